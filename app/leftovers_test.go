package app_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/app/apptest"
	"github.com/hyscribe/hyscribe/internal/eventually"
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
	eventually.True(t, 10*time.Second, "leftovers removed in two sweeps", func() bool { return l.count() >= 2 })
	cancel()
	<-done
	if age := time.Since(l.calls[0]); age < 10*time.Minute || age > 11*time.Minute {
		t.Fatalf("leftovers older than %s removed, want LeftoverAge (10 min)", age)
	}
}
