package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Record headers every event carries, so consumers and tools can route and
// deduplicate without decoding the value.
const (
	HeaderEventID   = "event-id"
	HeaderEventType = "event-type"
)

// Publisher produces events with an idempotent producer that waits for every
// in-sync replica: a record acknowledged is stored, and retries inside the
// client neither duplicate nor reorder records of one partition.
type Publisher struct {
	cl *kgo.Client
}

var _ ports.Publisher = (*Publisher)(nil)

// NewPublisher connects lazily to brokers. opts are added to (and may
// override) the client options, e.g. TLS or SASL for production.
func NewPublisher(brokers []string, opts ...kgo.Opt) (*Publisher, error) {
	if len(brokers) == 0 {
		return nil, errors.New("kafka.NewPublisher: no brokers")
	}
	all := []kgo.Opt{
		kgo.SeedBrokers(brokers...),
		kgo.RequiredAcks(kgo.AllISRAcks()),                   // the default, and what idempotence needs
		kgo.ProducerLinger(0),                                // Publish waits for acks anyway
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)), // murmur2 of docId, as Java clients do
	}
	cl, err := kgo.NewClient(append(all, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka.NewPublisher: %w", err)
	}
	return &Publisher{cl: cl}, nil
}

// Publish sends every event to its Topic, keyed by docId, and waits until all
// are acknowledged. Events of one docId land in one partition in the order
// given. On failure it returns the first error; other events may have been
// stored (consumers tolerate repeats).
func (p *Publisher) Publish(ctx context.Context, events []domain.Event) error {
	if len(events) == 0 {
		return nil
	}
	recs := make([]*kgo.Record, len(events))
	for i, ev := range events {
		if ev.Topic == "" {
			return fmt.Errorf("kafka.Publish: event %s has no topic", ev.ID)
		}
		recs[i] = toRecord(ev)
	}
	if err := p.cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return fmt.Errorf("kafka.Publish: %w", err)
	}
	return nil
}

// Close waits (up to 10 s) for records still buffered, then closes the client.
func (p *Publisher) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = p.cl.Flush(ctx) // Publish is synchronous: only a racing Publish leaves anything to flush
	p.cl.Close()
}

func toRecord(ev domain.Event) *kgo.Record {
	return &kgo.Record{
		Topic: ev.Topic,
		Key:   []byte(ev.Key()),
		Value: ev.Marshal(),
		Headers: []kgo.RecordHeader{
			{Key: HeaderEventID, Value: []byte(ev.ID)},
			{Key: HeaderEventType, Value: []byte(ev.Type)},
		},
	}
}
