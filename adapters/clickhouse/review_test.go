package clickhouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/eventually"
)

// reviewEvent is the analysis.reviewed event of analysis ev's review that
// overrides the given questions (to "yes" with a reason), revision rev.
func reviewEvent(t *testing.T, ready domain.Event, rev int, at time.Time, override ...string) domain.Event {
	t.Helper()
	var d domain.AnalysisReadyData
	if err := ready.DecodeData(&d); err != nil {
		t.Fatal(err)
	}
	a := domain.Analysis{ID: d.AnalysisID, DocID: ready.DocID, AccountID: ready.AccountID, ChecklistID: d.ChecklistID,
		ChecklistVersion: d.ChecklistVersion, ChecklistName: d.ChecklistName, Status: d.Status, Results: d.Results, CreatedAt: d.AnalysedAt}
	in := domain.ReviewInput{Choices: map[string]domain.ReviewChoice{}, Comment: "Լավ զանգ"}
	for _, q := range override {
		in.Choices[q] = domain.ReviewChoice{Answer: domain.AnswerYes, Reason: "լսվում է ձայնագրության մեջ"}
	}
	prev := &domain.Review{Revision: rev - 1, Stale: true}
	if rev == 1 {
		prev = nil
	}
	r, _, err := domain.NewReview(a, prev, in, domain.Reviewer{ID: "u-1", Email: "ani@example.am"}, at)
	if err != nil {
		t.Fatal(err)
	}
	return domain.NewAnalysisReviewedEvent(a, r, nil, json.RawMessage(`{"crm":"1"}`))
}

// TestReviewsReportMachineAgainstReviewed writes analyses and their
// reviews (a revision sent twice, a later revision that corrects the
// first) and reads back the review report: the latest revision of each
// call counts once, with each question's agreement between the machine
// and the reviewers and both scores.
func TestReviewsReportMachineAgainstReviewed(t *testing.T) {
	s, conn, _ := newStore(t)
	ctx := context.Background()
	a1 := analysisEvent("doc-1", "acc", "ck", t0, "yes", "no")
	a2 := analysisEvent("doc-2", "acc", "ck", t0.Add(time.Hour), "no", "no")
	r1 := reviewEvent(t, a1, 1, t0.Add(2*time.Hour), "q1")  // q1 was yes already: accepted; q2 stays no
	r1b := reviewEvent(t, a1, 2, t0.Add(3*time.Hour), "q2") // corrected: q2 overridden to yes
	r2 := reviewEvent(t, a2, 1, t0.Add(2*time.Hour), "q1")  // q1 overridden to yes
	if err := s.Write(ctx, []domain.Event{a1, a2, r1, r2, r1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, []domain.Event{r1b, r2}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, conn, "SELECT count() FROM review_results FINAL WHERE account_id = 'acc'"); n != 4 {
		t.Fatalf("%d review rows under FINAL; want 4 (2 calls × 2 questions, latest revision)", n)
	}
	if n := count(t, conn, "SELECT count() FROM reviews FINAL WHERE analysis_id = 'an-doc-1' AND revision = 2"); n != 1 {
		t.Fatalf("doc-1's latest review: %d rows of revision 2", n)
	}
	rep, err := s.ReviewReport(ctx, "acc", "ck", t0.Truncate(24*time.Hour), t0.Truncate(24*time.Hour).Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	// Machine: doc-1 yes/no (0.5), doc-2 no/no (0). Reviewed: doc-1 yes/yes
	// (1), doc-2 yes/no (0.5).
	if rep.Reviewed != 2 || math.Abs(rep.MachineScore-0.25) > 1e-9 || math.Abs(rep.ReviewedScore-0.75) > 1e-9 {
		t.Fatalf("totals: %d reviewed, machine %.3f, reviewed %.3f; want 2, 0.25, 0.75", rep.Reviewed, rep.MachineScore, rep.ReviewedScore)
	}
	if len(rep.Questions) != 2 {
		t.Fatalf("questions %+v", rep.Questions)
	}
	q1, q2 := rep.Questions[0], rep.Questions[1]
	if q1.QuestionID != "q1" || q1.Reviewed != 2 || q1.Agreed != 1 || q1.Overridden != 1 || q1.Agreement != 0.5 || q1.MachinePassRate != 0.5 || q1.ReviewedPassRate != 1 {
		t.Errorf("q1 %+v; want 2 reviewed, 1 agreed (doc-1), 1 overridden (doc-2), pass 50%% → 100%%", q1)
	}
	if q2.QuestionID != "q2" || q2.Reviewed != 2 || q2.Agreed != 1 || q2.Overridden != 1 || q2.MachineYes != 0 || q2.ReviewedYes != 1 || q2.Question != "Հարց 2" {
		t.Errorf("q2 %+v; want doc-1's revision 2 (overridden) and doc-2 (agreed)", q2)
	}
	// A deleted job's review rows go with it.
	_, del, _ := (&domain.Job{ID: "doc-2", AccountID: "acc"}).Delete(t0, domain.DeletedOnRequest, nil)
	if err := s.Write(ctx, del); err != nil {
		t.Fatal(err)
	}
	// The drop is a mutation that completes in the background.
	eventually.Holds(t, 30*time.Second, "the deleted job's review rows dropped", func() (bool, string) {
		n := count(t, conn, "SELECT count() FROM review_results WHERE doc_id = 'doc-2'") + count(t, conn, "SELECT count() FROM reviews WHERE doc_id = 'doc-2'")
		return n == 0, fmt.Sprintf("%d rows remain", n)
	})
}
