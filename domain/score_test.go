package domain

import (
	"math"
	"testing"
	"time"
)

func TestScoreIsTheWeightedMeanOfTheAnsweredQuestions(t *testing.T) {
	res := map[string]QuestionResult{
		"greet": {Answer: AnswerYes, Score: 1},
		"name":  {Answer: AnswerNo, Score: 0},
		"offer": {Answer: AnswerNo, Score: 0},
		"bye":   {Answer: AnswerUnclear, Score: 0.8}, // the built-in analyser's near miss
	}
	for _, tc := range []struct {
		name    string
		weights map[string]float64
		want    float64
	}{
		// One yes of three answered, weights 1, 2, 1 → 1/4; bye's weight and score count nowhere.
		{"weighted", map[string]float64{"greet": 1, "name": 2, "offer": 1, "bye": 5}, 0.25},
		{"no weights count 1", nil, 1.0 / 3},
		{"non-positive weights count 1", map[string]float64{"greet": 0, "name": -2, "offer": math.NaN()}, 1.0 / 3},
		{"a question of another version counts 1", map[string]float64{"name": 3}, 1.0 / 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ScoreOf(Analysis{Results: res}, tc.weights)
			if s.Yes != 1 || s.Of != 3 || s.Unclear != 1 || !s.Scored() || s.NeedsNames || math.Abs(s.Value-tc.want) > 1e-12 {
				t.Fatalf("ScoreOf = %+v, want 1 of 3 answered, 1 unclear, at %v", s, tc.want)
			}
		})
	}
	if s := ScoreOf(Analysis{Status: AnalysisFailed, Results: map[string]QuestionResult{}}, nil); s != (Score{}) || s.Scored() {
		t.Fatalf("a failed analysis scores %+v, want zero and not scored", s)
	}
	// Out-of-range scores are held to 0..1, as NewAnalysis stores them.
	if v := WeightedScore(map[string]QuestionResult{"a": {Answer: AnswerYes, Score: 7}, "b": {Answer: AnswerNo, Score: -1}}, nil); v != 0.5 {
		t.Fatalf("WeightedScore of 7 and -1 = %v, want 0.5", v)
	}
}

// unnamedAgentCall is the mono call: every question limited to the
// agent, whom nobody named, so every answer is "unclear" with the reason
// the service wrote.
func unnamedAgentCall() map[string]QuestionResult {
	out := map[string]QuestionResult{}
	for _, q := range []string{"q1", "q2", "q3", "q4", "q5"} {
		out[q] = QuestionResult{Answer: AnswerUnclear, Reason: RoleUnknownReason(SpeakerAgent)}
	}
	return out
}

// "Not scored" is not "scored 0": a call whose answers are all unclear has
// no score (it read "0/5 · 0.00"), and says it needs speaker names.
func TestACallWithOnlyUnclearAnswersIsNotScored(t *testing.T) {
	s := ScoreOf(Analysis{Status: AnalysisOK, Results: unnamedAgentCall()}, nil)
	if s.Scored() || s.Of != 0 || s.Yes != 0 || s.Unclear != 5 || !s.NeedsNames {
		t.Fatalf("ScoreOf = %+v, want not scored, 5 unclear, needing speaker names", s)
	}
	// Unclear for another reason (the analyser was unsure) is not scored
	// either, but naming speakers would not help.
	s = ScoreOf(Analysis{Status: AnalysisOK, Results: map[string]QuestionResult{"q": {Answer: AnswerUnclear, Reason: ReasonApproximate, Score: 0.7}}}, nil)
	if s.Scored() || s.NeedsNames || s.Unclear != 1 {
		t.Fatalf("ScoreOf of an unsure answer = %+v, want not scored, no names needed", s)
	}
	// One answered question is enough for a score; the rest still say why.
	res := unnamedAgentCall()
	res["q6"] = QuestionResult{Answer: AnswerNo}
	s = ScoreOf(Analysis{Status: AnalysisOK, Results: res}, nil)
	if !s.Scored() || s.Of != 1 || s.Value != 0 || s.Unclear != 5 || !s.NeedsNames {
		t.Fatalf("ScoreOf = %+v, want scored 0 of 1, 5 unclear needing names", s)
	}
}

// The analytics report's per-day score is the mean of the scored calls'
// scores as every page shows them, and pass rates leave unclear answers
// out of their denominators.
func TestReportScoresAreTheCallsScores(t *testing.T) {
	day := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	weights := map[string]float64{"greet": 1, "name": 2, "bye": 1}
	a := Analysis{Status: AnalysisOK, ChecklistVersion: 1, CreatedAt: day, Results: map[string]QuestionResult{
		"greet": {Answer: AnswerYes, Score: 1}, "name": {Answer: AnswerNo}, "bye": {Answer: AnswerNo}}}
	b := Analysis{Status: AnalysisOK, ChecklistVersion: 1, CreatedAt: day.Add(time.Hour), Results: map[string]QuestionResult{
		"greet": {Answer: AnswerYes, Score: 1}, "name": {Answer: AnswerYes, Score: 1}, "bye": {Answer: AnswerNo}}}
	unscored := Analysis{Status: AnalysisOK, ChecklistVersion: 1, CreatedAt: day.Add(2 * time.Hour), Results: map[string]QuestionResult{
		"greet": {Answer: AnswerUnclear, Score: 0.7}, "name": {Answer: AnswerUnclear, Reason: RoleUnknownReason(SpeakerAgent)},
		"bye": {Answer: AnswerUnclear, Reason: RoleUnknownReason(SpeakerAgent)}}}
	calls := []CallAnalysis{{Analysis: a, CallAt: day}, {Analysis: b, CallAt: day}, {Analysis: unscored, CallAt: day}}
	rep := BuildChecklistReport("acc", "cl", day.Add(-time.Hour), day.Add(5*time.Hour), calls,
		func(int) map[string]float64 { return weights })
	want := (ScoreOf(a, weights).Value + ScoreOf(b, weights).Value) / 2
	if len(rep.Days) != 1 || math.Abs(rep.Days[0].AvgScore-want) > 1e-12 || want != 0.5 || rep.Days[0].Analyses != 3 || rep.Days[0].Scored != 2 {
		t.Fatalf("days %+v, want one day of 3 calls, 2 scored, at %v (0.25 and 0.75; the unscored call is no 0)", rep.Days, want)
	}
	byID := map[string]QuestionStats{}
	for _, q := range rep.Questions {
		byID[q.QuestionID] = q
	}
	// greet: yes, yes, unclear → 2 of 2 answered, 3 answers of which 1 unclear.
	if g := byID["greet"]; g.Answers != 3 || g.Unclear != 1 || g.PassRate != 1 || g.AvgScore != 1 {
		t.Fatalf("greet %+v, want pass rate 1 over the 2 answered (the unclear 0.7 left out)", g)
	}
	if n := byID["name"]; math.Abs(n.PassRate-0.5) > 1e-12 {
		t.Fatalf("name %+v, want pass rate 1/2", n)
	}
}

// A call counts on the day it was made, not on the day it was analysed
// (again): a re-analysis the next day leaves the call on its own day.
func TestReportCountsACallOnItsOwnDay(t *testing.T) {
	yerevan := time.FixedZone("AMT", 4*3600)
	call := time.Date(2026, 11, 20, 23, 30, 0, 0, yerevan)
	again := call.Add(26 * time.Hour)
	an := Analysis{Status: AnalysisOK, CreatedAt: again, Results: map[string]QuestionResult{"q": {Answer: AnswerYes, Score: 1}}}
	from := time.Date(2026, 11, 20, 0, 0, 0, 0, yerevan)
	rep := BuildChecklistReport("acc", "cl", from, from.AddDate(0, 0, 3), []CallAnalysis{{Analysis: an, CallAt: call}}, nil)
	if len(rep.Days) != 1 || rep.Days[0].Day != "2026-11-20" {
		t.Fatalf("days %+v, want the call on 2026-11-20 (its day), not 2026-11-22 (the re-analysis)", rep.Days)
	}
}

func TestAgentStatsGroupByTheNamedAgent(t *testing.T) {
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	ok := func(greet, name string) Analysis {
		return Analysis{Status: AnalysisOK, Results: map[string]QuestionResult{
			"greet": {Question: "Greeted?", Answer: greet, Score: map[bool]float64{true: 1}[greet == AnswerYes]},
			"name":  {Question: "Name?", Answer: name, Score: map[bool]float64{true: 1}[name == AnswerYes]}}}
	}
	calls := []CallAnalysis{
		{Analysis: ok(AnswerYes, AnswerNo), CallAt: at, Agent: "Անի"},
		{Analysis: ok(AnswerYes, AnswerYes), CallAt: at.Add(time.Hour), Agent: "ԱՆԻ"}, // one agent, however written
		{Analysis: Analysis{Status: AnalysisFailed}, CallAt: at, Agent: "Անի"},
		{Analysis: Analysis{Status: AnalysisOK, Results: unnamedAgentCall()}, CallAt: at},
		{Analysis: ok(AnswerNo, AnswerNo), CallAt: at, Agent: "Արամ"},
	}
	got := BuildAgentStats(calls, nil)
	if len(got) != 3 || got[0].Agent != "ԱՆԻ" || got[1].Agent != "Արամ" || got[2].Agent != "" {
		t.Fatalf("agents %+v, want Ani (as last written), Aram, then the unnamed", got)
	}
	ani := got[0]
	if ani.Calls != 3 || ani.Scored != 2 || math.Abs(ani.AvgScore-0.75) > 1e-12 || ani.NeedsNames != 0 {
		t.Fatalf("Ani %+v, want 3 calls, 2 scored at 0.75", ani)
	}
	if len(ani.Questions) != 2 || ani.Questions[0].QuestionID != "greet" || ani.Questions[0].PassRate != 1 || ani.Questions[1].PassRate != 0.5 {
		t.Fatalf("Ani's questions %+v, want greet 100%%, name 50%%", ani.Questions)
	}
	if u := got[2]; u.Calls != 1 || u.Scored != 0 || u.AvgScore != 0 || u.NeedsNames != 1 || u.Questions[0].Unclear != 1 || u.Questions[0].PassRate != 0 {
		t.Fatalf("the unnamed agent's calls %+v, want 1 call, not scored, needing names", u)
	}
}

func TestAgentNameIsTheSpeakerNamedAsAgent(t *testing.T) {
	for _, tc := range []struct {
		speakers map[string]SpeakerName
		want     string
	}{
		{nil, ""},
		{map[string]SpeakerName{"1": {Role: SpeakerAgent}}, ""},
		{map[string]SpeakerName{"1": {Name: "Անի"}}, ""},
		{map[string]SpeakerName{"1": {Role: SpeakerCustomer, Name: "Գագիկ"}, "2": {Role: SpeakerAgent, Name: "Անի"}}, "Անի"},
	} {
		if got := (Job{Speakers: tc.speakers}).AgentName(); got != tc.want {
			t.Errorf("AgentName of %v = %q, want %q", tc.speakers, got, tc.want)
		}
	}
}
