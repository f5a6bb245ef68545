package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/domain"
)

// BatchHandler handles a batch of events at once. It returns nil once every
// event's effects are stored; it may be given events it stored before
// (redelivery after a crash) and must then store them as if once. A
// domain.Permanent error means some event of the batch can never be stored:
// the consumer then narrows the batch down to that event and skips it.
type BatchHandler func(ctx context.Context, events []domain.Event) error

// BatchConsumerConfig configures a BatchConsumer. Brokers, Group, Topics and
// Handler are required.
type BatchConsumerConfig struct {
	Brokers []string
	Group   string
	Topics  []string
	Handler BatchHandler
	// A batch closes at MaxBatch events or MaxWait after its first event,
	// whichever comes first. Defaults 10000 and 1s.
	MaxBatch int
	MaxWait  time.Duration
	// Backoff and MaxBackoff space the retries of a failing batch. A batch
	// is retried until it succeeds or Run ends: a sink (ClickHouse) that is
	// down stops the group instead of losing events. Defaults 200ms, 30s.
	Backoff    time.Duration
	MaxBackoff time.Duration
	Logger     *slog.Logger
	// OnBatch, when set, is told the size and latency of each stored batch.
	OnBatch func(events int, latency time.Duration)
	// OnFailure, when set, is told of each failed attempt at a batch
	// (retried), so a sink that keeps failing can be alerted on.
	OnFailure  func(err error)
	ClientOpts []kgo.Opt
}

// BatchConsumer reads its topics in batches for a sink that writes in bulk:
// poll until the batch is full or old enough, hand it to the handler, commit
// the offsets of the whole batch only after the handler succeeded. Records
// that are not envelopes are logged and skipped (a sink has no job to fail).
type BatchConsumer struct{ cfg BatchConsumerConfig }

// NewBatchConsumer checks cfg and fills in defaults. Nothing connects until Run.
func NewBatchConsumer(cfg BatchConsumerConfig) (*BatchConsumer, error) {
	switch {
	case len(cfg.Brokers) == 0:
		return nil, errors.New("kafka.NewBatchConsumer: no brokers")
	case cfg.Group == "":
		return nil, errors.New("kafka.NewBatchConsumer: no group")
	case len(cfg.Topics) == 0:
		return nil, errors.New("kafka.NewBatchConsumer: no topics")
	case cfg.Handler == nil:
		return nil, errors.New("kafka.NewBatchConsumer: no handler")
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = 10000
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = time.Second
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 200 * time.Millisecond
	}
	if cfg.MaxBackoff < cfg.Backoff {
		cfg.MaxBackoff = max(30*time.Second, cfg.Backoff)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &BatchConsumer{cfg: cfg}, nil
}

// Run consumes until ctx ends. A batch being handled when ctx ends is not
// committed; it is read again by the next run.
func (c *BatchConsumer) Run(ctx context.Context) error {
	cl, err := kgo.NewClient(append([]kgo.Opt{
		kgo.SeedBrokers(c.cfg.Brokers...),
		kgo.ConsumerGroup(c.cfg.Group),
		kgo.ConsumeTopics(c.cfg.Topics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		kgo.WithLogger(kgoLogger{c.cfg.Logger}),
	}, c.cfg.ClientOpts...)...)
	if err != nil {
		return fmt.Errorf("kafka.BatchConsumer.Run: %w", err)
	}
	defer cl.CloseAllowingRebalance()
	c.cfg.Logger.Info("batch consumer started", "topics", c.cfg.Topics, "maxBatch", c.cfg.MaxBatch, "maxWait", c.cfg.MaxWait)
	for {
		recs := c.collect(ctx, cl)
		if ctx.Err() != nil {
			return nil // uncommitted records come again
		}
		if len(recs) == 0 {
			cl.AllowRebalance()
			continue
		}
		events := make([]domain.Event, 0, len(recs))
		for _, r := range recs {
			ev, err := domain.ParseEvent(r.Topic, r.Value)
			if err != nil {
				c.cfg.Logger.Error("skipping a record that is not an event", "topic", r.Topic, "partition", r.Partition, "offset", r.Offset, "err", err)
				continue
			}
			events = append(events, ev)
		}
		if !c.handle(ctx, events) {
			return nil
		}
		if err := cl.CommitRecords(ctx, recs...); err != nil && ctx.Err() == nil {
			// The batch is stored; a failed commit only means it may be
			// read again, which the handler tolerates.
			c.cfg.Logger.Warn("commit of a stored batch failed", "records", len(recs), "err", err)
		}
		cl.AllowRebalance()
	}
}

// collect polls until MaxBatch records or MaxWait after the first one.
func (c *BatchConsumer) collect(ctx context.Context, cl *kgo.Client) []*kgo.Record {
	var recs []*kgo.Record
	add := func(fs kgo.Fetches) {
		fs.EachError(func(t string, p int32, err error) {
			if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				c.cfg.Logger.Warn("kafka fetch error", "topic", t, "partition", p, "err", err)
			}
		})
		recs = append(recs, fs.Records()...)
	}
	add(cl.PollRecords(ctx, c.cfg.MaxBatch))
	if len(recs) == 0 || ctx.Err() != nil {
		return recs
	}
	wctx, cancel := context.WithTimeout(ctx, c.cfg.MaxWait)
	defer cancel()
	for len(recs) < c.cfg.MaxBatch && wctx.Err() == nil {
		add(cl.PollRecords(wctx, c.cfg.MaxBatch-len(recs)))
	}
	return recs
}

// handle calls the handler until it succeeds; false if ctx ended first.
func (c *BatchConsumer) handle(ctx context.Context, events []domain.Event) bool {
	wait := c.cfg.Backoff
	for attempt := 1; ; attempt++ {
		start := time.Now()
		err := c.cfg.Handler(ctx, events)
		if err == nil {
			if c.cfg.OnBatch != nil {
				c.cfg.OnBatch(len(events), time.Since(start))
			}
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		if domain.IsPermanent(err) {
			// Some event can never be stored: halve the batch until it is
			// found, store the rest, and skip it with an error in the log,
			// so one bad event cannot stop analytics for good.
			if len(events) == 1 {
				c.cfg.Logger.Error("skipping an event the sink refuses", "id", events[0].ID, "topic", events[0].Topic, "err", err)
				return true
			}
			mid := len(events) / 2
			return c.handle(ctx, events[:mid]) && c.handle(ctx, events[mid:])
		}
		if c.cfg.OnFailure != nil {
			c.cfg.OnFailure(err)
		}
		c.cfg.Logger.Warn("batch failed; retrying", "events", len(events), "attempt", attempt, "retryIn", wait, "err", err)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(wait):
		}
		wait = min(wait*2, c.cfg.MaxBackoff)
	}
}
