package app_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/app/apptest"
	"github.com/hyscribe/hyscribe/ports"
)

type leftovers struct {
	mu    sync.Mutex
	calls []time.Time
}

func (l *leftovers) RemoveLeftovers(_ context.Context, olderThan time.Time) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, olderThan)
	return 1, nil
}

func (l *leftovers) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.calls)
}

func TestSweeperRemovesLeftoversEveryRound(t *testing.T) {
	clock := ports.SystemClock{}
	s := app.NewSweeper(apptest.NewStore(), clock, nil)
	l := &leftovers{}
	s.Interval, s.Leftovers, s.LeftoverAge = 10*time.Millisecond, l, 10*time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for l.count() < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	if l.count() < 2 {
		t.Fatalf("leftovers removed in %d sweeps within 10 s, want every sweep", l.count())
	}
	if age := time.Since(l.calls[0]); age < 10*time.Minute || age > 11*time.Minute {
		t.Fatalf("leftovers older than %s removed, want LeftoverAge (10 min)", age)
	}
}
