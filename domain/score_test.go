package domain

import (
	"math"
	"testing"
	"time"
)

func TestScoreIsTheWeightedMeanOfTheAnswers(t *testing.T) {
	res := map[string]QuestionResult{
		"greet": {Answer: AnswerYes, Score: 1},
		"name":  {Answer: AnswerNo, Score: 0},
		"bye":   {Answer: AnswerUnclear, Score: 0},
	}
	for _, tc := range []struct {
		name    string
		weights map[string]float64
		want    float64
	}{
		// The example: one yes of three, weights 1, 2, 1 → 1/4.
		{"weighted", map[string]float64{"greet": 1, "name": 2, "bye": 1}, 0.25},
		{"no weights count 1", nil, 1.0 / 3},
		{"non-positive weights count 1", map[string]float64{"greet": 0, "name": -2, "bye": math.NaN()}, 1.0 / 3},
		{"a question of another version counts 1", map[string]float64{"name": 3}, 1.0 / 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ScoreOf(Analysis{Results: res}, tc.weights)
			if s.Yes != 1 || s.Of != 3 || math.Abs(s.Value-tc.want) > 1e-12 {
				t.Fatalf("ScoreOf = %+v, want 1 of 3 at %v", s, tc.want)
			}
		})
	}
	if s := ScoreOf(Analysis{Status: AnalysisFailed, Results: map[string]QuestionResult{}}, nil); s != (Score{}) {
		t.Fatalf("a failed analysis scores %+v, want zero", s)
	}
	// Out-of-range scores are held to 0..1, as NewAnalysis stores them.
	if v := WeightedScore(map[string]QuestionResult{"a": {Score: 7}, "b": {Score: -1}}, nil); v != 0.5 {
		t.Fatalf("WeightedScore of 7 and -1 = %v, want 0.5", v)
	}
}

// The analytics report's per-day score is the mean of the calls' scores
// as every page shows them.
func TestReportScoresAreTheCallsScores(t *testing.T) {
	day := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	weights := map[string]float64{"greet": 1, "name": 2, "bye": 1}
	a := Analysis{Status: AnalysisOK, ChecklistVersion: 1, CreatedAt: day, Results: map[string]QuestionResult{
		"greet": {Answer: AnswerYes, Score: 1}, "name": {Answer: AnswerNo}, "bye": {Answer: AnswerNo}}}
	b := Analysis{Status: AnalysisOK, ChecklistVersion: 1, CreatedAt: day.Add(time.Hour), Results: map[string]QuestionResult{
		"greet": {Answer: AnswerYes, Score: 1}, "name": {Answer: AnswerYes, Score: 1}, "bye": {Answer: AnswerNo}}}
	rep := BuildChecklistReport("acc", "cl", day.Add(-time.Hour), day.Add(5*time.Hour), []Analysis{a, b},
		func(int) map[string]float64 { return weights })
	want := (ScoreOf(a, weights).Value + ScoreOf(b, weights).Value) / 2
	if len(rep.Days) != 1 || math.Abs(rep.Days[0].AvgScore-want) > 1e-12 || want != 0.5 {
		t.Fatalf("days %+v, want one day at %v (0.25 and 0.75)", rep.Days, want)
	}
}
