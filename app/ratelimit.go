package app

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// RateLimitError is a refused request: the limit per minute and the seconds
// until the next window opens.
type RateLimitError struct {
	Limit      int
	RetryAfter int
	// Rule says what was counted when it is not requests per API key
	// ("at most 60 resends a minute per account …").
	Rule string
}

func (e *RateLimitError) Error() string {
	if e.Rule != "" {
		return fmt.Sprintf("rate limit exceeded: %s; retry after %d seconds", e.Rule, e.RetryAfter)
	}
	return domain.RateLimitMessage(e.Limit, e.RetryAfter)
}

// Is makes errors.Is(err, domain.ErrRateLimited) hold.
func (e *RateLimitError) Is(target error) bool { return target == domain.ErrRateLimited }

// RateLimit applies a fixed wall-clock-minute limit per API key and scope.
// A key known to be over its limit in the current window is refused without a
// store round trip.
type RateLimit struct {
	counter ports.RateCounter
	clock   ports.Clock
	over    sync.Map     // scope+key → time.Time window in which it went over
	pruned  atomic.Int64 // unix minute of the last prune of over
}

// NewRateLimit builds the limiter.
func NewRateLimit(counter ports.RateCounter, clock ports.Clock) *RateLimit {
	need("counter", counter)
	need("clock", clock)
	return &RateLimit{counter: counter, clock: clock}
}

// Allow counts one request of keyID in scope and refuses it with a
// *RateLimitError when limit requests were already counted this minute.
func (rl *RateLimit) Allow(ctx context.Context, scope, keyID string, limit int) error {
	now := rl.clock.Now()
	window := domain.RateWindow(now)
	name := scope + ":" + keyID
	if err := rl.known(name, now, window, limit); err != nil {
		return err
	}
	n, err := rl.counter.Hit(ctx, name, window)
	if err != nil {
		return fmt.Errorf("rate limit: %w", err)
	}
	return rl.decide(name, n, now, window, limit)
}

// known refuses a key already over its limit in this window, with no store
// round trip, and prunes the memory of past windows.
func (rl *RateLimit) known(name string, now, window time.Time, limit int) error {
	if w, ok := rl.over.Load(name); ok && w.(time.Time).Equal(window) {
		_, retry := domain.Decide(now, limit, limit)
		return &RateLimitError{Limit: limit, RetryAfter: retry}
	}
	rl.prune(window)
	return nil
}

// decide refuses the request counted n-th in window when limit were
// counted before it, and remembers that the key is over.
func (rl *RateLimit) decide(name string, n int, now, window time.Time, limit int) error {
	allowed, retry := domain.Decide(now, n-1, limit)
	if !allowed {
		rl.over.Store(name, window)
		return &RateLimitError{Limit: limit, RetryAfter: retry}
	}
	return nil
}

// prune forgets keys that went over in past windows, once per window, so the
// memory holds only this minute's offenders.
func (rl *RateLimit) prune(window time.Time) {
	minute := window.Unix() / 60
	last := rl.pruned.Load()
	if last == minute || !rl.pruned.CompareAndSwap(last, minute) {
		return
	}
	rl.over.Range(func(k, v any) bool {
		if !v.(time.Time).Equal(window) {
			rl.over.Delete(k)
		}
		return true
	})
}
