package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Relay publishes the outbox to the event bus: claim a batch in commit order,
// publish it, remove it (ports.Outbox.PublishOutbox; on Postgres in one
// transaction holding the rows locked, with no lease written). A crash
// between publishing and removing publishes the batch again, which
// consumers tolerate.
type Relay struct {
	outbox    ports.Outbox
	publisher ports.Publisher
	clock     ports.Clock
	log       *slog.Logger

	// Interval is how often the outbox is polled when no commit signals it.
	Interval time.Duration
	// Batch is the most records claimed at once.
	Batch int
	// Lease is how long claimed records stay reserved to this relay.
	Lease time.Duration
	// Observe, when set, is told the commit-to-publish latency of each record.
	Observe func(latency time.Duration)
}

// NewRelay builds a relay with sensible defaults.
func NewRelay(outbox ports.Outbox, publisher ports.Publisher, clock ports.Clock, log *slog.Logger) *Relay {
	need("outbox", outbox)
	need("publisher", publisher)
	need("clock", clock)
	if log == nil {
		log = slog.Default()
	}
	return &Relay{outbox: outbox, publisher: publisher, clock: clock, log: log,
		Interval: 500 * time.Millisecond, Batch: 500, Lease: 30 * time.Second}
}

// relayMaxBackoff caps the wait between attempts while the outbox or the
// broker keeps failing.
const relayMaxBackoff = 10 * time.Second

// Run relays until ctx ends. A failing round is retried after the waits of
// the project's one policy (internal/retry): Interval, doubling up to
// relayMaxBackoff, jittered.
func (r *Relay) Run(ctx context.Context) error {
	return runRounds(ctx, r.log, "outbox relay", r.Interval, relayMaxBackoff, r.outbox.OutboxWritten(), func(ctx context.Context) (bool, error) {
		n, err := r.Once(ctx)
		return n == r.Batch, err // more may be waiting
	})
}

// Once relays one batch and returns how many records it published.
func (r *Relay) Once(ctx context.Context) (int, error) {
	var evs []domain.Event
	n, err := r.outbox.PublishOutbox(ctx, r.clock.Now(), r.Lease, r.Batch, func(ctx context.Context, recs []ports.OutboxRecord) error {
		// The records are reserved to this relay for Lease (a lease, or row
		// locks held while publishing): a publish that hangs longer gives
		// them up, so that another relay can publish them.
		if r.Lease > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, r.Lease)
			defer cancel()
		}
		evs = make([]domain.Event, len(recs))
		for i, rec := range recs {
			evs[i] = rec.Event
		}
		if err := r.publisher.Publish(ctx, evs); err != nil {
			return fmt.Errorf("relay: publish %d events: %w", len(evs), err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if r.Observe != nil && n > 0 {
		now := r.clock.Now()
		for _, ev := range evs {
			r.Observe(now.Sub(ev.OccurredAt))
		}
	}
	return n, nil
}
