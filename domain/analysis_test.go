package domain_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

func TestNewAnalysisAnswersEveryQuestionOfTheVersion(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	j := domain.Job{ID: "doc", AccountID: "acc", ChecklistID: "cl", ChecklistVersion: 2, Metadata: json.RawMessage(`{"a":1}`)}
	c := domain.Checklist{ID: "cl", Version: 2, Name: "Որակ", Questions: []domain.Question{
		{ID: "a", Text: "Ա՞"}, {ID: "b", Text: "Բ՞", Weight: 3}, {ID: "c", Text: "Գ՞"},
	}}
	a := domain.NewAnalysis("an", j, c, map[string]domain.QuestionResult{
		"a":     {Answer: "yes", Score: 1.7},
		"b":     {Answer: "perhaps", Score: 0.5}, // not an answer: unclear
		"extra": {Answer: "yes"},                 // not a question of the version: dropped
	}, now)
	if len(a.Results) != 3 || a.Results["a"].Score != 1 || a.Results["a"].Question != "Ա՞" || a.Results["b"].Answer != "unclear" ||
		a.Results["c"].Answer != "unclear" || a.Results["c"].Evidence == nil || a.ChecklistVersion != 2 || a.ChecklistName != "Որակ" {
		t.Fatalf("analysis %+v", a)
	}
	ev := domain.NewAnalysisReadyEvent(a, j, domain.ChecklistWeights(c), now)
	if ev.ID != "doc/analysis.ready" || ev.Topic != domain.TopicAnalysisReady || ev.Type != "analysis.ready" {
		t.Fatalf("event %+v", ev)
	}
	var d domain.AnalysisReadyData
	if err := ev.DecodeData(&d); err != nil || d.Weights["b"] != 3 || d.Weights["a"] != 1 || string(d.Metadata) != `{"a":1}` {
		t.Fatalf("data %+v %v", d, err)
	}
	p := domain.NewAnalysisReady("doc", d, "s", "https://pub/")
	b, _ := json.Marshal(p)
	var fields map[string]json.RawMessage
	json.Unmarshal(b, &fields)
	if len(fields) != 9 || p.Link != "https://pub/app/recordings/doc" || *p.ChecklistName != "Որակ" {
		t.Fatalf("payload %s", b)
	}
}

func TestChecklistFileWeights(t *testing.T) {
	if _, err := domain.ParseChecklistFile([]byte(`{"name":"n","questions":[{"id":"a","text":"t","weight":-1}]}`)); err == nil {
		t.Fatal("a negative weight was accepted")
	}
	f, err := domain.ParseChecklistFile([]byte(`{"name":"n","questions":[{"id":"a","text":"t","weight":2.5,"expect":["բարև"]}]}`))
	if err != nil || f.Questions[0].Weight != 2.5 {
		t.Fatalf("%+v %v", f, err)
	}
}

// TestANotScoredCallHasNoListScore: a call whose answers are all unclear
// is not scored, so the history's score filters and orders never read it
// as a 0.
func TestANotScoredCallHasNoListScore(t *testing.T) {
	a := domain.Analysis{Status: domain.AnalysisOK, Results: map[string]domain.QuestionResult{"q": {Answer: domain.AnswerUnclear}}}
	if got := a.WithListScore(nil).ListScore; got != nil {
		t.Fatalf("an all-unclear call's list score is %v, want none", *got)
	}
	a.Results["r"] = domain.QuestionResult{Answer: domain.AnswerNo}
	if got := a.WithListScore(nil).ListScore; got == nil || *got != 0 {
		t.Fatalf("a call answered no has list score %v, want 0", got)
	}
}
