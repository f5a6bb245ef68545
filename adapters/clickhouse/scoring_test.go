package clickhouse_test

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// "Unclear" is no answer (domain.Counts): the report leaves it out of
// pass rates and average scores, and a call with only unclear answers is
// not scored, so it is not averaged in as 0 (issue 36).
func TestChecklistReportLeavesUnclearAnswersOut(t *testing.T) {
	s, _, _ := newStore(t)
	ctx := context.Background()
	evs := []domain.Event{
		analysisEvent("full", "acc", "cl", t0, "yes", "no"),        // scored 0.5
		analysisEvent("partly", "acc", "cl", t0, "yes", "unclear"), // scored 1
		analysisEvent("unnamed", "acc", "cl", t0, "unclear", "unclear"),
	}
	if err := s.Write(ctx, evs); err != nil {
		t.Fatal(err)
	}
	from := t0.Truncate(24 * time.Hour)
	rep, err := s.ChecklistReport(ctx, "acc", "cl", from, from.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Questions) != 2 {
		t.Fatalf("questions %+v", rep.Questions)
	}
	q1, q2 := rep.Questions[0], rep.Questions[1]
	if q1.Answers != 3 || q1.Unclear != 1 || q1.PassRate != 1 || q1.AvgScore != 1 {
		t.Errorf("q1 %+v, want pass rate and average 1 over the 2 answered", q1)
	}
	if q2.Answers != 3 || q2.Unclear != 2 || q2.PassRate != 0 || q2.AvgScore != 0 {
		t.Errorf("q2 %+v, want 0 over the one answered", q2)
	}
	if len(rep.Days) != 1 || rep.Days[0].Analyses != 3 || rep.Days[0].Scored != 2 || math.Abs(rep.Days[0].AvgScore-0.75) > 1e-9 {
		t.Errorf("days %+v, want 3 calls, 2 scored at 0.75", rep.Days)
	}
}

// A call analysed again days later (its speakers named) stays on the day
// it was made, in the period that holds that day (issue 36 item 8).
func TestChecklistReportCountsAReanalysedCallOnItsDay(t *testing.T) {
	s, _, _ := newStore(t)
	ctx := context.Background()
	call := domain.Job{ID: "doc", AccountID: "acc", Metadata: json.RawMessage(`{}`), CreatedAt: t0}
	first := domain.Analysis{ID: "an-doc", DocID: "doc", AccountID: "acc", ChecklistID: "cl", ChecklistVersion: 1, Status: domain.AnalysisOK,
		CreatedAt: t0.Add(time.Minute), Results: map[string]domain.QuestionResult{"q1": {Answer: domain.AnswerUnclear, Evidence: []domain.Evidence{}}}}
	again := first
	again.CreatedAt = t0.Add(50 * time.Hour)
	again.Results = map[string]domain.QuestionResult{"q1": {Answer: domain.AnswerYes, Score: 1, Evidence: []domain.Evidence{}}}
	if err := s.Write(ctx, []domain.Event{domain.NewAnalysisReadyEvent(first, call, nil, first.CreatedAt)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, []domain.Event{domain.NewAnalysisAgainEvent(again, call, nil, again.CreatedAt)}); err != nil {
		t.Fatal(err)
	}
	day := t0.Truncate(24 * time.Hour)
	rep, err := s.ChecklistReport(ctx, "acc", "cl", day, day.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Days) != 1 || rep.Days[0].Day != "2026-11-20" || rep.Days[0].Analyses != 1 || rep.Days[0].AvgScore != 1 ||
		len(rep.Questions) != 1 || rep.Questions[0].Yes != 1 || rep.Questions[0].Answers != 1 {
		t.Fatalf("the call's day: days %+v, questions %+v; want the call once, with its new answer", rep.Days, rep.Questions)
	}
	later, err := s.ChecklistReport(ctx, "acc", "cl", day.Add(24*time.Hour), day.Add(72*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(later.Days) != 0 || len(later.Questions) != 0 {
		t.Fatalf("the re-analysis's days count the call: %+v %+v", later.Days, later.Questions)
	}
}
