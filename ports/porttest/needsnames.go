package porttest

import (
	"fmt"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// BenchmarkNeedsSpeakerNames measures the history's "needs speaker names"
// filter (issue 36) over n analysed calls of one account, one in ten
// waiting for names: the count and the first page of 25, as the history
// asks, alone and with a date range of the latest tenth. settle, if not
// nil, runs once the calls are in (a database's statistics).
func BenchmarkNeedsSpeakerNames(b *testing.B, s Stores, n int, settle func()) {
	ctx := b.Context()
	acct := domain.Account{ID: "bench", Name: "Bench", Plan: domain.PlanBusiness, BalanceMs: 1 << 40, CreatedAt: t0}
	if err := s.CreateAccount(ctx, acct); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		j, evs := domain.NewJob(domain.DocID(fmt.Sprintf("doc-%05d", i)), acct.ID, domain.CreateRequest{Type: domain.TypePhoneCall, ChecklistID: "cl", ChecklistVersion: 1},
			t0.Add(time.Duration(i)*time.Second), domain.UploadWindow)
		if err := s.CreateJob(ctx, j, evs); err != nil {
			b.Fatal(err)
		}
		r := domain.QuestionResult{Answer: domain.AnswerYes, Score: 1, Evidence: []domain.Evidence{}}
		if i%10 == 0 {
			r = domain.QuestionResult{Answer: domain.AnswerUnclear, Evidence: []domain.Evidence{}, Reason: domain.RoleUnknownReason(domain.SpeakerAgent)}
		}
		a := domain.Analysis{ID: "an-" + string(j.ID), DocID: j.ID, AccountID: acct.ID, ChecklistID: "cl", ChecklistVersion: 1, Status: domain.AnalysisOK,
			Results: map[string]domain.QuestionResult{"greet": r}, CreatedAt: j.CreatedAt}
		if err := s.SaveAnalysis(ctx, a, nil); err != nil {
			b.Fatal(err)
		}
	}
	if settle != nil {
		settle()
	}
	last := t0.Add(time.Duration(n-n/10) * time.Second)
	for _, c := range []struct {
		name  string
		from  time.Time
		total int
	}{{"All", time.Time{}, n / 10}, {"LatestTenth", last, n / 100}} {
		b.Run(c.name, func(b *testing.B) {
			q := ports.JobQuery{Account: acct.ID, NeedsSpeakerNames: true, From: c.from, Limit: 25}
			for b.Loop() {
				jobs, total, err := s.ListJobs(ctx, q)
				if err != nil || total != c.total || len(jobs) != min(25, c.total) {
					b.Fatalf("%d jobs of %d, %v", len(jobs), total, err)
				}
			}
		})
	}
}
