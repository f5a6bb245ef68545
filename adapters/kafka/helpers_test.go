package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/domain"
)

// Short group timings so joins, rebalances and leaves take milliseconds.
var testClientOpts = []kgo.Opt{
	kgo.SessionTimeout(1500 * time.Millisecond),
	kgo.HeartbeatInterval(100 * time.Millisecond),
	kgo.RebalanceTimeout(3 * time.Second),
	kgo.FetchMaxWait(500 * time.Millisecond),
	kgo.AutoCommitInterval(100 * time.Millisecond),
}

func testLogger(t *testing.T) *slog.Logger {
	if os.Getenv("KAFKA_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})).With("test", t.Name())
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// startCluster starts an embedded cluster on a free port with its own data
// directory, closed at the end of the test.
func startCluster(t *testing.T) *Embedded {
	t.Helper()
	return startClusterIn(t, t.TempDir())
}

func startClusterIn(t *testing.T, dir string) *Embedded {
	t.Helper()
	e, err := StartEmbedded("127.0.0.1:0", dir, DefaultPartitions, kfake.GroupMinSessionTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

func ensureTopics(t *testing.T, brokers []string, partitions int32, topics ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := EnsureTopics(ctx, brokers, topics, TopicSettings{Partitions: partitions}); err != nil {
		t.Fatal(err)
	}
}

func newPublisher(t *testing.T, brokers []string) *Publisher {
	t.Helper()
	p, err := NewPublisher(brokers)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func publish(t *testing.T, p *Publisher, events ...domain.Event) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Publish(ctx, events); err != nil {
		t.Fatal(err)
	}
}

type seqData struct {
	Seq int `json:"seq"`
}

// testEvent is event number seq of doc on topic.
func testEvent(topic, doc string, seq int) domain.Event {
	data, _ := json.Marshal(seqData{seq})
	return domain.Event{
		ID:         fmt.Sprintf("%s/test/%d", doc, seq),
		Topic:      topic,
		Type:       "test.event",
		Version:    domain.EnvelopeVersion,
		OccurredAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		DocID:      domain.DocID(doc),
		AccountID:  "acct-1",
		Data:       data,
	}
}

func seqOf(t *testing.T, ev domain.Event) int {
	var d seqData
	if err := ev.DecodeData(&d); err != nil {
		t.Error(err)
	}
	return d.Seq
}

// running is a Consumer whose Run is going on in the background.
type running struct {
	c      *Consumer
	cancel context.CancelFunc
	done   chan struct{} // closed when Run returned
	err    error         // what Run returned, once done
}

// stop cancels Run and waits for it to return.
func (r *running) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	select {
	case <-r.done:
		if r.err != nil {
			t.Errorf("Run: %v", r.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}

// startConsumer fills in test defaults (short timings, a quiet logger) and
// starts Run; the test's cleanup stops it.
func startConsumer(t *testing.T, cfg ConsumerConfig) *running {
	t.Helper()
	if cfg.Group == "" {
		cfg.Group = "hyscribe-test"
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = 10 * time.Millisecond
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = 50 * time.Millisecond
	}
	if cfg.ShutdownGrace == 0 {
		cfg.ShutdownGrace = 2 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	cfg.ClientOpts = append(append([]kgo.Opt(nil), testClientOpts...), cfg.ClientOpts...)
	c, err := NewConsumer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{c: c, cancel: cancel, done: make(chan struct{})}
	go func() {
		r.err = c.Run(ctx)
		close(r.done)
	}()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// readAll reads n records of topic from the start without a group.
func readAll(t *testing.T, brokers []string, topic string, n int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(200*time.Millisecond),
	)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var recs []*kgo.Record
	for len(recs) < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d records of %s", len(recs), n, topic)
		}
		fs.EachError(func(t2 string, p int32, err error) { t.Logf("fetch %s/%d: %v", t2, p, err) })
		recs = append(recs, fs.Records()...)
	}
	return recs
}

// committed returns the group's committed offsets of topic, by partition.
func committed(t *testing.T, brokers []string, group, topic string) map[int32]int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	offs, err := kadm.NewClient(cl).FetchOffsets(ctx, group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		return nil // no commit yet
	}
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[int32]int64)
	offs.Each(func(o kadm.OffsetResponse) {
		if o.Topic == topic {
			out[o.Partition] = o.At
		}
	})
	return out
}

func sum(m map[int32]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

func header(r *kgo.Record, key string) (string, bool) {
	for _, h := range r.Headers {
		if h.Key == key {
			return string(h.Value), true
		}
	}
	return "", false
}
