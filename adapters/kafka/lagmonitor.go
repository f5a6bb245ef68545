package kafka

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// GroupTopic is one consumer group's view of one topic it should consume.
type GroupTopic struct {
	Group, Topic string
	// Lag is how many records of the topic the group has yet to handle:
	// from its committed offsets, or every record the topic holds when
	// the group never committed.
	Lag int64
	// Members is how many members of the group consume the topic now.
	Members int
	// UnconsumedFor is how long the topic has had no member of the group
	// behind it (0 while it has one).
	UnconsumedFor time.Duration
}

// LagMonitor watches the consumer groups a deployment should run: their lag
// per topic, and topics no member of their group consumes — a stage that no
// process runs (its events pile up unseen). It logs a warning once such a
// topic has been without a consumer for Warn, and again every Repeat.
type LagMonitor struct {
	// Expect maps each consumer group to the topics it should consume.
	Expect map[string][]string
	Warn   time.Duration // default 2 minutes
	Repeat time.Duration // default 10 minutes
	Log    *slog.Logger

	cl  *kgo.Client
	adm *kadm.Client

	mu     sync.Mutex
	since  map[[2]string]time.Time // when group/topic was first seen unconsumed
	warned map[[2]string]time.Time
}

// NewLagMonitor connects to brokers, opts added to the client's options
// (Security's); Close releases the connection.
func NewLagMonitor(brokers []string, expect map[string][]string, log *slog.Logger, opts ...kgo.Opt) (*LagMonitor, error) {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...)}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka.NewLagMonitor: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &LagMonitor{
		Expect: expect, Warn: 2 * time.Minute, Repeat: 10 * time.Minute, Log: log,
		cl: cl, adm: kadm.NewClient(cl), since: map[[2]string]time.Time{}, warned: map[[2]string]time.Time{},
	}, nil
}

// Close closes the monitor's client.
func (m *LagMonitor) Close() { m.cl.Close() }

// Check asks the brokers once, at now, and returns every expected group and
// topic sorted, logging what has gone unconsumed too long.
func (m *LagMonitor) Check(ctx context.Context, now time.Time) ([]GroupTopic, error) {
	groups := make([]string, 0, len(m.Expect))
	var topics []string
	for g, ts := range m.Expect {
		groups = append(groups, g)
		for _, t := range ts {
			if !slices.Contains(topics, t) {
				topics = append(topics, t)
			}
		}
	}
	slices.Sort(groups)
	lags, err := m.adm.Lag(ctx, slices.Clone(groups)...) // Lag reuses its argument
	if err != nil {
		return nil, fmt.Errorf("kafka.LagMonitor: %w", err)
	}
	starts, err := m.adm.ListStartOffsets(ctx, topics...)
	if err != nil {
		return nil, fmt.Errorf("kafka.LagMonitor: %w", err)
	}
	ends, err := m.adm.ListEndOffsets(ctx, topics...)
	if err != nil {
		return nil, fmt.Errorf("kafka.LagMonitor: %w", err)
	}
	held := func(topic string) int64 { // records the topic holds
		var n int64
		ends.Each(func(o kadm.ListedOffset) {
			if o.Topic == topic && o.Err == nil {
				if s, ok := starts.Lookup(o.Topic, o.Partition); ok && s.Err == nil {
					n += o.Offset - s.Offset
				}
			}
		})
		return n
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	var out []GroupTopic
	for _, g := range groups {
		l := lags[g]
		for _, t := range m.Expect[g] {
			gt := GroupTopic{Group: g, Topic: t}
			for _, mem := range l.Members {
				if c, ok := mem.Assigned.AsConsumer(); ok && slices.ContainsFunc(c.Topics, func(a kmsg.ConsumerMemberAssignmentTopic) bool { return a.Topic == t }) {
					gt.Members++
				}
			}
			if ps, ok := l.Lag[t]; ok && l.Error() == nil {
				for _, p := range ps {
					if p.Lag > 0 {
						gt.Lag += p.Lag
					}
				}
			} else {
				gt.Lag = held(t)
			}
			key := [2]string{g, t}
			if gt.Members > 0 {
				delete(m.since, key)
				delete(m.warned, key)
			} else {
				first, ok := m.since[key]
				if !ok {
					first, m.since[key] = now, now
				}
				gt.UnconsumedFor = now.Sub(first)
				if gt.UnconsumedFor >= m.Warn && now.Sub(m.warned[key]) >= m.Repeat {
					m.warned[key] = now
					m.Log.Warn("a topic has no consumer behind it: is its stage deployed (worker --stages)?",
						"topic", t, "group", g, "unconsumedFor", gt.UnconsumedFor.Round(time.Second).String(), "lag", gt.Lag)
				}
			}
			out = append(out, gt)
		}
	}
	return out, nil
}

// Run checks every interval until ctx ends, passing each result to report.
func (m *LagMonitor) Run(ctx context.Context, interval time.Duration, report func([]GroupTopic)) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		cctx, cancel := context.WithTimeout(ctx, interval)
		res, err := m.Check(cctx, time.Now())
		cancel()
		if err != nil && ctx.Err() == nil {
			m.Log.Warn("consumer lag check failed", "err", err)
		} else if err == nil {
			report(res)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
