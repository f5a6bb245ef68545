// Package memcount is a ports.RateCounter in the process's memory. It is
// exact only where one process answers every request it counts: the
// embedded default (`hyscribe serve` on SQLite). With DATABASE_URL the
// count stays in the shared store, exact across replicas.
package memcount

import (
	"context"
	"sync"
	"time"
)

// keep is how many windows are kept: the newest and the one before it, for
// a request whose clock was read just before the window changed.
const keep = 2

// Counter counts requests per key in fixed windows.
type Counter struct {
	mu     sync.Mutex
	counts map[time.Time]map[string]int
}

// New returns an empty counter.
func New() *Counter { return &Counter{counts: map[time.Time]map[string]int{}} }

// Hit counts one request for key in window and returns the count including
// it (ports.RateCounter).
func (c *Counter) Hit(_ context.Context, key string, window time.Time) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.counts[window]
	if m == nil {
		m = map[string]int{}
		c.counts[window] = m
		for len(c.counts) > keep {
			oldest := window
			for w := range c.counts {
				if w.Before(oldest) {
					oldest = w
				}
			}
			delete(c.counts, oldest)
		}
	}
	m[key]++
	return m[key], nil
}
