package memcount

import (
	"slices"
	"sync"
	"testing"
	"time"
)

var w0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func TestCountsPerKeyAndWindow(t *testing.T) {
	c := New()
	hit := func(key string, window time.Time, want int) {
		t.Helper()
		if got, _ := c.Hit(t.Context(), key, window); got != want {
			t.Fatalf("Hit(%s, %v) = %d, want %d", key, window, got, want)
		}
	}
	hit("a", w0, 1)
	hit("a", w0, 2)
	hit("b", w0, 1)
	next := w0.Add(time.Minute)
	hit("a", next, 1)
	// A request whose clock was read just before the minute turned still
	// counts in its own window, after the next one began.
	hit("a", w0, 3)
	hit("a", next, 2)
	// Two windows later the first is gone.
	hit("a", next.Add(time.Minute), 1)
	if len(c.counts) != keep {
		t.Fatalf("%d windows kept, want %d", len(c.counts), keep)
	}
}

func TestConcurrentHitsAreDistinct(t *testing.T) {
	c := New()
	const n = 64
	counts := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { counts[i], _ = c.Hit(t.Context(), "k", w0) })
	}
	wg.Wait()
	slices.Sort(counts)
	for i, got := range counts {
		if got != i+1 {
			t.Fatalf("concurrent hits counted %v, want 1..%d each once", counts, n)
		}
	}
}
