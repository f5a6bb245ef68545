package domain

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"
)

// Answers of a checklist question (docs/decisions.md, Checklists and analysis: `results`).
const (
	AnswerYes     = "yes"
	AnswerNo      = "no"
	AnswerUnclear = "unclear"
)

// ValidAnswer reports whether a is one of the three answers.
func ValidAnswer(a string) bool { return a == AnswerYes || a == AnswerNo || a == AnswerUnclear }

// Analysis statuses. A failed analysis keeps its reason; the job it belongs to
// stays transcribed (the transcript is good).
const (
	AnalysisOK     = "ok"
	AnalysisFailed = "failed"
)

// Analysis is the outcome of running a job's transcript against the
// checklist version the job was created with. One per job.
type Analysis struct {
	ID               string
	DocID            DocID
	AccountID        AccountID
	ChecklistID      string
	ChecklistVersion int
	ChecklistName    string // as captured when the analysis ran
	Status           string // AnalysisOK or AnalysisFailed
	Error            string // why it failed; empty when ok
	Results          map[string]QuestionResult
	CreatedAt        time.Time
	// ListScore is the call's score as the history sorts and filters by
	// it: ScoreOf's Value with the checklist version's weights, set by the
	// use case that made the analysis (WithListScore); nil when failed.
	// The stores keep it with the analysis and on its job's row
	// (ports.ListedJob.Score), where the history's index reads it.
	ListScore *float64
}

// WithListScore is a with its ListScore under weights (the checklist
// version's): its total when ok, none when failed.
func (a Analysis) WithListScore(weights map[string]float64) Analysis {
	a.ListScore = nil
	// A call with no answer yes or no is not scored (Score.Scored): it has
	// no list score, so score filters and orders never take it for a 0.
	if sc := ScoreOf(a, weights); a.Status == AnalysisOK && sc.Scored() {
		v := sc.Value
		a.ListScore = &v
	}
	return a
}

// NewAnalysis builds the analysis of j against c from the analyser's results,
// keeping only the checklist's questions and answering "unclear" for any
// question the analyser left out, so results are keyed by every question id.
func NewAnalysis(id string, j Job, c Checklist, results map[string]QuestionResult, now time.Time) Analysis {
	out := make(map[string]QuestionResult, len(c.Questions))
	for _, q := range c.Questions {
		r, ok := results[q.ID]
		if !ok || !ValidAnswer(r.Answer) {
			r = QuestionResult{Answer: AnswerUnclear, Evidence: []Evidence{}}
		}
		r.Question = q.Text
		r.Score = clamp01(r.Score)
		if r.Evidence == nil {
			r.Evidence = []Evidence{}
		}
		out[q.ID] = r
	}
	return Analysis{
		ID: id, DocID: j.ID, AccountID: j.AccountID, ChecklistID: c.ID, ChecklistVersion: c.Version,
		ChecklistName: c.Name, Status: AnalysisOK, Results: out, CreatedAt: now,
	}
}

// FailedAnalysis records that the analysis of j could not be made.
func FailedAnalysis(id string, j Job, checklistName, reason string, now time.Time) Analysis {
	return Analysis{
		ID: id, DocID: j.ID, AccountID: j.AccountID, ChecklistID: j.ChecklistID, ChecklistVersion: j.ChecklistVersion,
		ChecklistName: checklistName, Status: AnalysisFailed, Error: reason, Results: map[string]QuestionResult{}, CreatedAt: now,
	}
}

func clamp01(v float64) float64 {
	switch {
	case v != v || v < 0: // NaN or negative
		return 0
	case v > 1:
		return 1
	}
	return v
}

// AnalysisReadyData is the data of hyscribe.analysis.ready.v1. It carries
// everything analytics and the notify stage need, so neither reads the store.
type AnalysisReadyData struct {
	AnalysisID       string                    `json:"analysisId"`
	Status           string                    `json:"status"`
	Error            string                    `json:"error,omitempty"`
	ChecklistID      string                    `json:"checklistId"`
	ChecklistVersion int                       `json:"checklistVersion"`
	ChecklistName    string                    `json:"checklistName"`
	Weights          map[string]float64        `json:"weights,omitempty"`
	Results          map[string]QuestionResult `json:"results"`
	Metadata         json.RawMessage           `json:"metadata"`
	AnalysedAt       time.Time                 `json:"analysedAt"`
	// CallAt is the call's time (its job's creation): the day analytics
	// count the call on, however late it was analysed or analysed again.
	// Absent from events made before it was added (then analysedAt).
	CallAt time.Time `json:"callAt,omitzero"`
}

// AnalysisReadyEventID is the deterministic ID of a job's analysis event, so a
// repeat is recognisable by every consumer.
func AnalysisReadyEventID(doc DocID) string { return string(doc) + "/analysis.ready" }

// NewAnalysisReadyEvent is the hyscribe.analysis.ready.v1 event of a, with
// its job's metadata and time (j) and the question weights of the
// checklist version used.
func NewAnalysisReadyEvent(a Analysis, j Job, weights map[string]float64, now time.Time) Event {
	data := AnalysisReadyData{
		AnalysisID: a.ID, Status: a.Status, Error: a.Error, ChecklistID: a.ChecklistID,
		ChecklistVersion: a.ChecklistVersion, ChecklistName: a.ChecklistName, Weights: weights,
		Results: a.Results, Metadata: objectOrEmpty(j.Metadata), AnalysedAt: a.CreatedAt.UTC(), CallAt: j.CreatedAt.UTC(),
	}
	b, _ := json.Marshal(data) // plain data; cannot fail
	return Event{
		ID: AnalysisReadyEventID(a.DocID), Topic: TopicAnalysisReady, Type: eventType(TopicAnalysisReady),
		Version: EnvelopeVersion, OccurredAt: now.UTC(), DocID: a.DocID, AccountID: a.AccountID, Data: b,
	}
}

// NewAnalysisReady builds the analysis_ready payload (spec §6.2) from an
// analysis.ready event's data.
func NewAnalysisReady(doc DocID, d AnalysisReadyData, secret, publicURL string) AnalysisReadyPayload {
	p := AnalysisReadyPayload{
		EventType: EventAnalysisReady, Secret: secret, DocID: doc, AnalysisID: d.AnalysisID,
		Metadata: objectOrEmpty(d.Metadata), Results: d.Results, Link: RecordingLink(publicURL, doc),
	}
	if p.Results == nil {
		p.Results = map[string]QuestionResult{}
	}
	if d.ChecklistID != "" {
		id, name := d.ChecklistID, d.ChecklistName
		p.ChecklistID, p.ChecklistName = &id, &name
	}
	return p
}

// ChecklistWeights maps question id to weight (1 when unset).
func ChecklistWeights(c Checklist) map[string]float64 {
	w := make(map[string]float64, len(c.Questions))
	for _, q := range c.Questions {
		w[q.ID] = q.Weight
		if q.Weight <= 0 {
			w[q.ID] = 1
		}
	}
	return w
}

// ChecklistReport is the analytics summary of one checklist over a period.
type ChecklistReport struct {
	AccountID   AccountID       `json:"accountId"`
	ChecklistID string          `json:"checklistId"`
	From        time.Time       `json:"from"` // inclusive
	To          time.Time       `json:"to"`   // exclusive
	Questions   []QuestionStats `json:"questions"`
	Days        []DayStats      `json:"days"`
	// Agents are the per-agent figures (BuildAgentStats) where the report's
	// maker has the calls' speaker names (the web application's Analytics).
	Agents []AgentStats `json:"agents,omitempty"`
}

// QuestionStats are one question's answers over the period.
type QuestionStats struct {
	QuestionID string `json:"questionId"`
	Question   string `json:"question"`
	Answers    int64  `json:"answers"`
	Yes        int64  `json:"yes"`
	No         int64  `json:"no"`
	Unclear    int64  `json:"unclear"`
	// PassRate is yes / (yes + no): an "unclear" answer is no answer
	// (Counts) and stays out of it; 0 when nothing was answered.
	PassRate float64 `json:"passRate"`
	AvgScore float64 `json:"avgScore"` // mean score of the yes and no answers
}

// DayStats are the analyses of one day's calls: a call counts on the day
// it was made (the job's creation), however late it was analysed or
// analysed again.
type DayStats struct {
	Day      string `json:"day"` // YYYY-MM-DD in the report's zone (ReportZone)
	Analyses int64  `json:"analyses"`
	Failed   int64  `json:"failed"`
	Scored   int64  `json:"scored"` // analyses with a score (Score.Scored)
	// AvgScore is the mean of the scored calls' scores (ScoreOf); calls not
	// scored are left out, not counted as 0.
	AvgScore float64 `json:"avgScore"`
}

// ValidateReportPeriod checks a report's period.
func ValidateReportPeriod(from, to time.Time) error {
	if !from.Before(to) {
		return Invalid("invalid_period", "%s", fmt.Sprintf("--from (%s) must be before --to (%s)", from.Format(time.DateOnly), to.Format(time.DateOnly)))
	}
	return nil
}

// ReportZone is where a report over [from, to) counts its days: from's
// location (the account's time zone when the web application asks), UTC
// for a time without one of its own (time.Local is the server's, not the
// account's).
func ReportZone(from time.Time) *time.Location {
	if loc := from.Location(); loc != time.Local && loc != nil {
		return loc
	}
	return time.UTC
}

// BuildChecklistReport computes from stored analyses what the ClickHouse
// report computes from its tables, for deployments without ClickHouse.
// Days are calendar days of ReportZone(from), each call on the day of its
// CallAt. analyses must already be the account's analyses of the
// checklist of calls made in [from, to); weights gives a checklist
// version's question weights (missing or non-positive weights count 1, as
// in the analytics sink). Unclear answers are counted (Unclear) but stay
// out of pass rates and scores (Counts).
func BuildChecklistReport(account AccountID, checklistID string, from, to time.Time, analyses []CallAnalysis, weights func(version int) map[string]float64) ChecklistReport {
	rep := ChecklistReport{AccountID: account, ChecklistID: checklistID, From: from.UTC(), To: to.UTC(),
		Questions: []QuestionStats{}, Days: []DayStats{}}
	type dayAcc struct {
		n, failed, scored int64
		score             float64
	}
	questions := map[string]*QuestionStats{}
	latest := map[string]time.Time{}
	scoreSum := map[string]float64{}
	days := map[string]*dayAcc{}
	zone := ReportZone(from)
	for _, a := range analyses {
		day := a.CallAt.In(zone).Format(time.DateOnly)
		d := days[day]
		if d == nil {
			d = &dayAcc{}
			days[day] = d
		}
		d.n++
		if a.Status != AnalysisOK {
			d.failed++
			continue
		}
		var w map[string]float64
		if weights != nil {
			w = weights(a.ChecklistVersion)
		}
		for qid, r := range a.Results {
			q := questions[qid]
			if q == nil {
				q = &QuestionStats{QuestionID: qid}
				questions[qid] = q
			}
			if !a.CreatedAt.Before(latest[qid]) {
				q.Question, latest[qid] = r.Question, a.CreatedAt
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
				scoreSum[qid] += clamp01(r.Score)
			}
		}
		if s := ScoreOf(a.Analysis, w); s.Scored() {
			d.score += s.Value
			d.scored++
		}
	}
	for _, q := range questions {
		if n := q.Yes + q.No; n > 0 {
			q.PassRate = float64(q.Yes) / float64(n)
			q.AvgScore = scoreSum[q.QuestionID] / float64(n)
		}
		rep.Questions = append(rep.Questions, *q)
	}
	sort.Slice(rep.Questions, func(i, j int) bool { return rep.Questions[i].QuestionID < rep.Questions[j].QuestionID })
	for day, d := range days {
		ds := DayStats{Day: day, Analyses: d.n, Failed: d.failed, Scored: d.scored}
		if d.scored > 0 {
			ds.AvgScore = d.score / float64(d.scored)
		}
		rep.Days = append(rep.Days, ds)
	}
	sort.Slice(rep.Days, func(i, j int) bool { return rep.Days[i].Day < rep.Days[j].Day })
	return rep
}

// NewAnalysisAgainEvent is the hyscribe.analysis.ready.v1 event of an
// analysis made again (its call's speakers were given other roles): the
// same analysis ID with the new results, under an event ID of its own, so
// that every consumer takes it as news (the receiver gets analysis_ready
// again; analytics replace the analysis's rows).
func NewAnalysisAgainEvent(a Analysis, j Job, weights map[string]float64, now time.Time) Event {
	ev := NewAnalysisReadyEvent(a, j, weights, now)
	ev.ID = AnalysisReadyEventID(a.DocID) + "/" + strconv.FormatInt(a.CreatedAt.UnixMilli(), 10)
	return ev
}
