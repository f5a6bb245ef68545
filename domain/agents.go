package domain

import (
	"sort"
	"time"
)

// CallAnalysis is an analysis with what reports read of its call.
type CallAnalysis struct {
	Analysis
	// CallAt is the call's time (the job's creation): the day a report
	// counts the call on, however late it was analysed or analysed again.
	CallAt time.Time
	// Agent is the name of the call's agent speaker (Job.AgentName); empty
	// when nobody in the call is named as the agent.
	Agent string
}

// AgentName is the name people gave the speaker they made the call's
// agent on the recording's page (Job.Speakers), or "" when no speaker has
// both the agent role and a name. A role the account's stereo channel
// gives carries no name, so it names no agent.
func (j Job) AgentName() string {
	for _, sp := range []string{"1", "2"} {
		if n := j.Speakers[sp]; n.Role == SpeakerAgent && n.Name != "" {
			return n.Name
		}
	}
	return ""
}

// AgentStats are one agent's calls of a checklist over a report's period.
type AgentStats struct {
	// Agent is the agent's name as last written; empty for the calls whose
	// agent is not named.
	Agent    string  `json:"agent"`
	Calls    int64   `json:"calls"`    // analyses, failed ones included
	Scored   int64   `json:"scored"`   // analyses with a score (Score.Scored)
	AvgScore float64 `json:"avgScore"` // mean of the scored calls' scores
	// NeedsNames counts calls with answers waiting for the speakers to be
	// named (Score.NeedsNames).
	NeedsNames int64 `json:"needsNames"`
	// Questions are the agent's answers per question, ordered by id, with
	// pass rates as in QuestionStats (unclear answers left out).
	Questions []QuestionStats `json:"questions"`
}

// BuildAgentStats groups analyses by their call's agent (CallAnalysis.Agent;
// names that differ only in case or in the spelling of "ev" are one agent,
// FoldSearch), named agents by name, then the calls whose agent is not
// named. Scores and pass rates follow the same rule as the checklist report
// (Counts, ScoreOf); weights as in BuildChecklistReport.
func BuildAgentStats(analyses []CallAnalysis, weights func(version int) map[string]float64) []AgentStats {
	type acc struct {
		AgentStats
		score     float64
		seen      time.Time
		questions map[string]*QuestionStats
		sums      map[string]float64
	}
	by := map[string]*acc{}
	for _, a := range analyses {
		key := FoldSearch(a.Agent)
		g := by[key]
		if g == nil {
			g = &acc{questions: map[string]*QuestionStats{}, sums: map[string]float64{}}
			by[key] = g
		}
		if !a.CallAt.Before(g.seen) {
			g.Agent, g.seen = a.Agent, a.CallAt
		}
		g.Calls++
		if a.Status != AnalysisOK {
			continue
		}
		var w map[string]float64
		if weights != nil {
			w = weights(a.ChecklistVersion)
		}
		s := ScoreOf(a.Analysis, w)
		if s.Scored() {
			g.Scored++
			g.score += s.Value
		}
		if s.NeedsNames {
			g.NeedsNames++
		}
		for qid, r := range a.Results {
			q := g.questions[qid]
			if q == nil {
				q = &QuestionStats{QuestionID: qid, Question: r.Question}
				g.questions[qid] = q
			}
			q.Answers++
			switch r.Answer {
			case AnswerYes:
				q.Yes++
			case AnswerNo:
				q.No++
			default:
				q.Unclear++
			}
			if Counts(r.Answer) {
				g.sums[qid] += clamp01(r.Score)
			}
		}
	}
	out := make([]AgentStats, 0, len(by))
	for _, g := range by {
		st := g.AgentStats
		if st.Scored > 0 {
			st.AvgScore = g.score / float64(st.Scored)
		}
		st.Questions = make([]QuestionStats, 0, len(g.questions))
		for _, q := range g.questions {
			if n := q.Yes + q.No; n > 0 {
				q.PassRate = float64(q.Yes) / float64(n)
				q.AvgScore = g.sums[q.QuestionID] / float64(n)
			}
			st.Questions = append(st.Questions, *q)
		}
		sort.Slice(st.Questions, func(i, j int) bool { return st.Questions[i].QuestionID < st.Questions[j].QuestionID })
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i].Agent == "") != (out[j].Agent == "") {
			return out[j].Agent == ""
		}
		return FoldSearch(out[i].Agent) < FoldSearch(out[j].Agent)
	})
	return out
}
