package kafka

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/domain"
)

// A rebalance while handlers are inside a slow call (a long recording at
// the speech engine, far longer than the rebalance timeout) does not wait
// for them: the revoked partition's handler sees its context cancelled at
// once, and the member that takes the partition over handles its record.
func TestRebalanceCancelsTheRevokedPartitionsSlowHandler(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 2, topic)

	// One document on each of the two partitions.
	part := kgo.StickyKeyPartitioner(nil).ForTopic(topic)
	byPartition := map[int]domain.Event{}
	for i := 0; len(byPartition) < 2; i++ {
		ev := testEvent(topic, fmt.Sprintf("doc-%d", i), 0)
		byPartition[part.Partition(&kgo.Record{Key: []byte(ev.Key())}, 2)] = ev
	}
	publish(t, newPublisher(t, e.Addrs()), byPartition[0], byPartition[1])

	const engineCall = time.Minute // the slow call; the test's deadlines are far shorter
	entered := make(chan domain.DocID, 4)
	cancelled := make(chan domain.DocID, 4)
	startConsumer(t, ConsumerConfig{Brokers: e.Addrs(), Topics: []string{topic}, ShutdownGrace: time.Second,
		Handler: func(ctx context.Context, ev domain.Event) error {
			entered <- ev.DocID
			select {
			case <-ctx.Done():
				cancelled <- ev.DocID
				return ctx.Err()
			case <-time.After(engineCall):
				return nil
			}
		}})
	// The premise: both handlers are inside the slow call.
	inside := map[domain.DocID]bool{}
	deadline := time.After(15 * time.Second)
	for len(inside) < 2 {
		select {
		case id := <-entered:
			inside[id] = true
		case <-deadline:
			t.Fatalf("handlers inside the slow call: %v, want both documents", inside)
		}
	}

	handled := make(chan domain.DocID, 4)
	startConsumer(t, ConsumerConfig{Brokers: e.Addrs(), Group: "hyscribe-test", Topics: []string{topic},
		Handler: func(_ context.Context, ev domain.Event) error {
			handled <- ev.DocID
			return nil
		}})
	var moved domain.DocID
	select {
	case moved = <-cancelled:
	case <-time.After(15 * time.Second):
		t.Fatal("the rebalance did not cancel the revoked partition's handler")
	}
	select {
	case id := <-handled:
		if id != moved {
			t.Fatalf("the new member handled %s, the cancelled handler had %s", id, moved)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("the new member never handled %s", moved)
	}
	select {
	case id := <-cancelled:
		t.Fatalf("the partition the first member kept was cancelled too (%s)", id)
	default:
	}
}
