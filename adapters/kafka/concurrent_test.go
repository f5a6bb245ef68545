package kafka

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/eventually"
)

// Issue 28: with Concurrency above 1, the records behind a slow one in its
// partition (other jobs) are handled meanwhile, a key's records still one
// at a time and in order; the committed offset waits for the slow record,
// so a stop mid-way redelivers it (and what followed it, for idempotent
// handlers to skip), never loses it.
func TestConcurrentPartitionDoesNotWaitBehindASlowRecord(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 1, topic)
	p := newPublisher(t, e.Addrs())
	publish(t, p, testEvent(topic, "slow", 0))
	publish(t, p, testEvent(topic, "doc-a", 0), testEvent(topic, "doc-b", 0), testEvent(topic, "doc-a", 1), testEvent(topic, "doc-a", 2))

	release := make(chan struct{})
	var mu sync.Mutex
	var order []string
	running := map[domain.DocID]int{}
	handler := func(ctx context.Context, ev domain.Event) error {
		mu.Lock()
		running[ev.DocID]++
		if running[ev.DocID] > 1 {
			t.Errorf("two records of %s at once", ev.DocID)
		}
		order = append(order, string(ev.DocID)+":"+string(rune('0'+seqOf(t, ev))))
		mu.Unlock()
		defer func() { mu.Lock(); running[ev.DocID]--; mu.Unlock() }()
		if ev.DocID == "slow" {
			select {
			case <-release:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		// The work takes a moment, so two records of one doc would
		// overlap (caught above) if the consumer ran them at once.
		time.Sleep(5 * time.Millisecond)
		return nil
	}
	first := startConsumer(t, ConsumerConfig{Brokers: e.Addrs(), Topics: []string{topic}, Concurrency: 4, ShutdownGrace: 200 * time.Millisecond, Handler: handler})
	eventually.True(t, 10*time.Second, "the records behind the slow one handled", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(order) == 5
	})
	mu.Lock()
	var docA []string
	for _, o := range order {
		if o[:5] == "doc-a" {
			docA = append(docA, o)
		}
	}
	mu.Unlock()
	if !slices.Equal(docA, []string{"doc-a:0", "doc-a:1", "doc-a:2"}) {
		t.Fatalf("doc-a's records in order %v", docA)
	}

	// Stopped with the slow record unfinished: stopping commits what was
	// marked, which must not go past the slow record; the next consumer
	// gets it again, and the records after it.
	first.stop(t)
	if n := sum(committed(t, e.Addrs(), "hyscribe-test", topic)); n != 0 {
		t.Fatalf("offset %d committed past the unfinished slow record", n)
	}
	mu.Lock()
	order = nil
	mu.Unlock()
	close(release)
	startConsumer(t, ConsumerConfig{Brokers: e.Addrs(), Topics: []string{topic}, Concurrency: 4, Handler: handler})
	eventually.True(t, 10*time.Second, "every record committed", func() bool {
		return sum(committed(t, e.Addrs(), "hyscribe-test", topic)) == 5
	})
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(order, "slow:0") {
		t.Fatalf("the slow record was not redelivered: %v", order)
	}
}
