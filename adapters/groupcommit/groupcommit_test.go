package groupcommit_test

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/groupcommit"
)

// While every sender's place is taken, requests queue; once the sender
// is done they go in batches of at most maxBatch, in order, each once, by
// one sender at a time.
func TestQueuedRequestsGoTogetherInBoundedBatches(t *testing.T) {
	q := groupcommit.New[int](1, 3)
	var (
		mu      sync.Mutex
		batches [][]int
		sending atomic.Int32
		most    atomic.Int32
	)
	entered, release := make(chan struct{}), make(chan struct{})
	all := make(chan struct{})
	send := func(b []int) {
		n := sending.Add(1)
		defer sending.Add(-1)
		if n > most.Load() {
			most.Store(n)
		}
		if b[0] == 0 {
			close(entered)
			<-release
		}
		mu.Lock()
		defer mu.Unlock()
		batches = append(batches, b)
		if b[len(b)-1] == 7 {
			close(all)
		}
	}
	first := q.Add(0)
	if !slices.Equal(first, []int{0}) {
		t.Fatalf("the first request's batch is %v, want [0]", first)
	}
	done := make(chan struct{})
	go func() { q.SendAll(first, send); close(done) }()
	<-entered
	for i := 1; i <= 7; i++ {
		if b := q.Add(i); b != nil {
			t.Fatalf("request %d got a batch %v while the only sender's place was taken", i, b)
		}
	}
	close(release)
	<-done
	<-all
	mu.Lock()
	got := slices.Clone(batches)
	mu.Unlock()
	want := [][]int{{0}, {1, 2, 3}, {4, 5, 6}, {7}}
	if len(got) != len(want) {
		t.Fatalf("batches %v, want %v", got, want)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("batches %v, want %v", got, want)
		}
	}
	if most.Load() != 1 {
		t.Fatalf("%d batches were sent at once, want at most 1", most.Load())
	}
}

// Many callers at once: every request is sent exactly once (a sender that
// kept its place after the queue drained would leave later requests
// unsent, and the test would hang), no batch is larger than maxBatch and
// no more than maxInFlight are sent at once.
func TestConcurrentCallersEachSentOnce(t *testing.T) {
	const callers, maxInFlight, maxBatch = 200, 2, 8
	q := groupcommit.New[int](maxInFlight, maxBatch)
	var (
		mu      sync.Mutex
		seen    = map[int]int{}
		sending atomic.Int32
		most    atomic.Int32
		sent    sync.WaitGroup
	)
	sent.Add(callers)
	send := func(b []int) {
		n := sending.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		if len(b) > maxBatch {
			t.Errorf("a batch of %d, want at most %d", len(b), maxBatch)
		}
		mu.Lock()
		for _, r := range b {
			seen[r]++
		}
		mu.Unlock()
		sending.Add(-1)
		for range b {
			sent.Done()
		}
	}
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if b := q.Add(i); b != nil {
				q.SendAll(b, send)
			}
		}()
	}
	wg.Wait()
	sent.Wait()
	for i := range callers {
		if seen[i] != 1 {
			t.Fatalf("request %d was sent %d times", i, seen[i])
		}
	}
	if most.Load() > maxInFlight {
		t.Fatalf("%d batches were sent at once, want at most %d", most.Load(), maxInFlight)
	}
}
