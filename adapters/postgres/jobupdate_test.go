package postgres

import (
	"context"
	"fmt"
	"testing"

	"github.com/hyscribe/hyscribe/domain"
)

// A write Postgres refuses (a NUL byte in text) fails its group's
// transaction; each update is then tried on its own, so only the update
// that wrote it fails and the others commit.
func TestGroupCommitIsolatesAFailingWrite(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	acct := domain.Account{ID: "acc", Name: "Acme", Plan: domain.PlanBusiness, BalanceMs: 60_000, CreatedAt: t0}
	if err := s.CreateAccount(ctx, acct); err != nil {
		t.Fatal(err)
	}
	var group []*jobUpdateReq
	for i := range 5 {
		id := domain.DocID(fmt.Sprintf("doc-%d", i))
		j, evs := domain.NewJob(id, acct.ID, domain.CreateRequest{Type: domain.TypeSingleVoice}, t0, domain.UploadWindow)
		if err := s.CreateJob(ctx, j, evs); err != nil {
			t.Fatal(err)
		}
		title := fmt.Sprintf("title %d", i)
		if i == 2 {
			title = "bad \x00 title"
		}
		group = append(group, &jobUpdateReq{ctx: ctx, id: id, done: make(chan struct{}),
			fn: func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
				j.Title = title
				return nil, nil
			}})
	}
	s.commitGroup(group)
	for i, r := range group {
		<-r.done
		j, err := s.GetJob(ctx, r.id)
		if err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			if r.err == nil || j.Title != "" {
				t.Errorf("%s: error %v, title %q; want an error and the job unchanged", r.id, r.err, j.Title)
			}
			continue
		}
		if r.err != nil || j.Title != fmt.Sprintf("title %d", i) {
			t.Errorf("%s: error %v, title %q; want it saved", r.id, r.err, j.Title)
		}
	}
}
