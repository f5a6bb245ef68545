package postgres

import (
	"context"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
	"github.com/hyscribe/hyscribe/ports/porttest"
)

// TestUpgradeMarksCallsThatNeedSpeakerNames: analyses stored before
// migration 28 have no needs_names; the migration marks those whose answers
// wait for the speakers to be named (domain.RoleUnknownReason), and only
// those, so the history's filter finds them.
func TestUpgradeMarksCallsThatNeedSpeakerNames(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	s := openURL(t, url)
	acct := domain.Account{ID: "acc", Name: "Acme", Plan: domain.PlanBusiness, CreatedAt: t0}
	if err := s.CreateAccount(ctx, acct); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ doc, reason string }{
		{"agent", domain.RoleUnknownReason(domain.SpeakerAgent)},
		{"customer", domain.RoleUnknownReason(domain.SpeakerCustomer)},
		{"unsure", domain.ReasonApproximate},
	} {
		j, evs := domain.NewJob(domain.DocID(c.doc), acct.ID, domain.CreateRequest{Type: domain.TypePhoneCall}, t0, domain.UploadWindow)
		if err := s.CreateJob(ctx, j, evs); err != nil {
			t.Fatal(err)
		}
		a := domain.Analysis{ID: "an-" + c.doc, DocID: j.ID, AccountID: acct.ID, ChecklistID: "cl", ChecklistVersion: 1, Status: domain.AnalysisOK, CreatedAt: t0,
			Results: map[string]domain.QuestionResult{"q": {Question: "Did the agent's greeting include ' and \"?", Answer: domain.AnswerUnclear, Evidence: []domain.Evidence{}, Reason: c.reason}}}
		if err := s.SaveAnalysis(ctx, a, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The store as it was before migration 28.
	if _, err := s.pool.Exec(ctx, `DROP INDEX analyses_needs_names`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `ALTER TABLE analyses DROP COLUMN needs_names`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM schema_migrations WHERE version = $1`, 28); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openURL(t, url)
	jobs, n, err := s.ListJobs(ctx, ports.JobQuery{Account: acct.ID, NeedsSpeakerNames: true})
	if err != nil || n != 2 || len(jobs) != 2 || jobs[0].ID == "unsure" || jobs[1].ID == "unsure" {
		t.Fatalf("after the upgrade the filter finds %d jobs (%v), want agent and customer", n, err)
	}
}

// BenchmarkNeedsSpeakerNames10k is the history's "needs speaker names"
// filter over 10,000 analysed calls, planned with the statistics
// autovacuum would have gathered.
func BenchmarkNeedsSpeakerNames10k(b *testing.B) {
	s := openTest(b)
	porttest.BenchmarkNeedsSpeakerNames(b, s, 10_000, func() {
		if _, err := s.pool.Exec(b.Context(), `ANALYZE jobs; ANALYZE analyses`); err != nil {
			b.Fatal(err)
		}
	})
}
