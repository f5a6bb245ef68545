package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/eventually"
)

func TestBatchConsumerBatchesRetriesAndCommitsAfterSuccess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded cluster")
	}
	e := startCluster(t)
	const topic = "batch.test.v1"
	ensureTopics(t, e.Addrs(), 3, topic)
	pub := newPublisher(t, e.Addrs())
	var events []domain.Event
	for i := 0; i < 300; i++ {
		events = append(events, testEvent(topic, fmt.Sprintf("doc-%d", i%7), i))
	}
	publish(t, pub, events...)

	var (
		mu      sync.Mutex
		seen    = map[string]int{}
		batches []int
		fails   atomic.Int32
		told    atomic.Int32 // OnFailure calls
	)
	handler := func(_ context.Context, evs []domain.Event) error {
		if fails.Add(1) == 1 {
			return errors.New("sink down") // the first batch fails once: retried, not lost
		}
		mu.Lock()
		defer mu.Unlock()
		batches = append(batches, len(evs))
		for _, ev := range evs {
			seen[ev.ID]++
		}
		return nil
	}
	c, err := NewBatchConsumer(BatchConsumerConfig{
		Brokers: e.Addrs(), Group: "hyscribe-batch-test", Topics: []string{topic}, Handler: handler,
		MaxBatch: 100, MaxWait: 300 * time.Millisecond, Backoff: 10 * time.Millisecond, Logger: testLogger(t),
		ClientOpts: testClientOpts, OnFailure: func(error) { told.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	eventually.True(t, 20*time.Second, "every event stored", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) == len(events)
	})
	eventually.True(t, 10*time.Second, "offsets committed", func() bool {
		return sum(committed(t, e.Addrs(), "hyscribe-batch-test", topic)) == int64(len(events))
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, n := range batches {
		if n > 100 {
			t.Fatalf("batch of %d events, over MaxBatch", n)
		}
	}
	if len(batches) >= len(events) {
		t.Fatalf("%d batches for %d events: no batching", len(batches), len(events))
	}
	if n := told.Load(); n != 1 {
		t.Errorf("OnFailure told of %d failures, want the 1 (the metric an alert reads)", n)
	}
}

func TestBatchConsumerSkipsOnlyAPoisonEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded cluster")
	}
	e := startCluster(t)
	const topic = "batch.poison.v1"
	ensureTopics(t, e.Addrs(), 1, topic)
	var events []domain.Event
	for i := 0; i < 50; i++ {
		events = append(events, testEvent(topic, "doc", i))
	}
	publish(t, newPublisher(t, e.Addrs()), events...)
	var mu sync.Mutex
	stored := map[int]bool{}
	handler := func(_ context.Context, evs []domain.Event) error {
		for _, ev := range evs {
			if seqOf(t, ev) == 17 {
				return domain.Permanent(errors.New("cannot be stored"))
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for _, ev := range evs {
			stored[seqOf(t, ev)] = true
		}
		return nil
	}
	c, err := NewBatchConsumer(BatchConsumerConfig{Brokers: e.Addrs(), Group: "hyscribe-poison", Topics: []string{topic}, Handler: handler,
		MaxBatch: 50, MaxWait: 200 * time.Millisecond, Logger: testLogger(t), ClientOpts: testClientOpts})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	eventually.True(t, 20*time.Second, "offsets committed past the poison event", func() bool {
		return sum(committed(t, e.Addrs(), "hyscribe-poison", topic)) == int64(len(events))
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(stored) != 49 || stored[17] {
		t.Fatalf("stored %d events (poison stored: %v), want the 49 others", len(stored), stored[17])
	}
}
