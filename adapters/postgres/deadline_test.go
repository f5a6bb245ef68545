package postgres

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/domain"
)

// TestSilentDatabaseBoundsBackgroundWork holds every byte between the
// store and Postgres. Calls whose context has no deadline (a stage, the
// relay, the sweeper) still end, each with domain.ErrUnavailable, once
// Options.StatementTimeout has passed: a statement, a batch, the group
// commit and the wait for a pooled connection alike. Without the bound
// they would wait as long as the database stays silent.
func TestSilentDatabaseBoundsBackgroundWork(t *testing.T) {
	proxy, url := pgtest.NewProxy(t, pgtest.URL(t))
	s, err := OpenWith(context.Background(), url, Options{StatementTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	a := domain.Account{ID: "acct-silent", Name: "silent", Plan: domain.PlanBusiness, CreatedAt: t0}
	if err := s.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}

	proxy.Hold()
	defer proxy.Release()
	calls := map[string]func() error{
		"GetAccount": func() error { _, err := s.GetAccount(ctx, a.ID); return err },
		"GetJob":     func() error { _, err := s.GetJob(ctx, "job-silent"); return err },
		"Hit":        func() error { _, err := s.Hit(ctx, "k", t0); return err },
		"UpdateJob": func() error {
			return s.UpdateJob(ctx, "job-silent", func(*domain.Job, *domain.Account) ([]domain.Event, error) { return nil, nil })
		},
		"ClaimOutbox": func() error { _, err := s.ClaimOutbox(ctx, t0, time.Second, 10); return err },
	}
	// More calls at once than the pool has connections, so that some wait
	// for one.
	type answer struct {
		name string
		err  error
	}
	answers := make(chan answer, 3*len(calls))
	var wg sync.WaitGroup
	for range 3 {
		for name, call := range calls {
			wg.Add(1)
			go func() { defer wg.Done(); answers <- answer{name, call()} }()
		}
	}
	done := make(chan struct{})
	start := time.Now()
	go func() { wg.Wait(); close(done) }()
	// A generous bound, far past the one-second timeout: not a speed
	// claim, only "they ended while the database was still silent".
	select {
	case <-done:
		t.Logf("%d calls ended after %s", 3*len(calls), time.Since(start).Round(time.Millisecond))
	case <-time.After(40 * time.Second):
		t.Fatal("calls without a deadline still wait for a silent database")
	}
	close(answers)
	for a := range answers {
		if !errors.Is(a.err, domain.ErrUnavailable) {
			t.Errorf("%s while the database is silent: %v, want ErrUnavailable", a.name, a.err)
		}
	}

	proxy.Release()
	if _, err := s.GetAccount(ctx, a.ID); err != nil {
		t.Fatalf("GetAccount once the database speaks again: %v", err)
	}
}
