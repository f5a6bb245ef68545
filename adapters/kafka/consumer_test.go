package kafka

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/eventually"
)

const topic = "hyscribe.test.v1"

// Events published in one batch come back, across 12 partitions, each
// docId's in the order published.
func TestPublishConsumeKeepsOrderPerDoc(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 12, topic)
	p := newPublisher(t, e.Addrs())

	const docs, perDoc = 30, 10
	var events []domain.Event
	for seq := range perDoc {
		for d := range docs {
			events = append(events, testEvent(topic, fmt.Sprintf("doc-%02d", d), seq))
		}
	}
	publish(t, p, events[:len(events)/2]...)
	publish(t, p, events[len(events)/2:]...)

	var mu sync.Mutex
	got := make(map[domain.DocID][]int)
	startConsumer(t, ConsumerConfig{
		Brokers: e.Addrs(), Topics: []string{topic},
		Handler: func(_ context.Context, ev domain.Event) error {
			mu.Lock()
			defer mu.Unlock()
			got[ev.DocID] = append(got[ev.DocID], seqOf(t, ev))
			return nil
		},
	})
	eventually.True(t, 15*time.Second, "every event handled", func() bool {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, s := range got {
			n += len(s)
		}
		return n == docs*perDoc
	})
	mu.Lock()
	defer mu.Unlock()
	for doc, seqs := range got {
		for i, s := range seqs {
			if s != i {
				t.Fatalf("%s: events in order %v", doc, seqs)
			}
		}
	}

	// Keys, headers and partitioning as published.
	parts := make(map[string]int32)
	usedParts := make(map[int32]bool)
	for _, r := range readAll(t, e.Addrs(), topic, docs*perDoc) {
		doc := string(r.Key)
		if p, ok := parts[doc]; ok && p != r.Partition {
			t.Fatalf("%s in partitions %d and %d", doc, p, r.Partition)
		}
		parts[doc] = r.Partition
		usedParts[r.Partition] = true
		ev, err := domain.ParseEvent(r.Topic, r.Value)
		if err != nil {
			t.Fatal(err)
		}
		if id, _ := header(r, HeaderEventID); id != ev.ID {
			t.Errorf("event-id header %q, event %q", id, ev.ID)
		}
		if typ, _ := header(r, HeaderEventType); typ != ev.Type {
			t.Errorf("event-type header %q, event %q", typ, ev.Type)
		}
	}
	if len(usedParts) < 2 {
		t.Errorf("30 docs landed in %d partition(s)", len(usedParts))
	}
}

// A handler failing twice is called a third time; the record is committed
// once it succeeds and never reaches the DLQ.
func TestRetryThenSuccess(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 3, topic)
	publish(t, newPublisher(t, e.Addrs()), testEvent(topic, "doc-1", 0))

	var calls, successes, retried, dead atomic.Int32
	var handled atomic.Int32
	startConsumer(t, ConsumerConfig{
		Brokers: e.Addrs(), Topics: []string{topic},
		Handler: func(context.Context, domain.Event) error {
			if calls.Add(1) <= 2 {
				return fmt.Errorf("store: %w", domain.ErrUnavailable)
			}
			successes.Add(1)
			return nil
		},
		OnGiveUp: func(context.Context, domain.Event, error) error {
			t.Error("OnGiveUp called")
			return nil
		},
		Metrics: Metrics{
			Handled:      func(string, time.Duration, error) { handled.Add(1) },
			Retried:      func(string, int) { retried.Add(1) },
			DeadLettered: func(string) { dead.Add(1) },
		},
	})
	eventually.True(t, 10*time.Second, "offset committed", func() bool {
		return sum(committed(t, e.Addrs(), "hyscribe-test", topic)) == 1
	})
	if calls.Load() != 3 || successes.Load() != 1 || retried.Load() != 2 || handled.Load() != 3 || dead.Load() != 0 {
		t.Errorf("calls %d successes %d retried %d handled %d dead %d; want 3 1 2 3 0",
			calls.Load(), successes.Load(), retried.Load(), handled.Load(), dead.Load())
	}
	if n := endOffsets(t, e.Addrs(), domain.DLQ(topic)); n != 0 {
		t.Errorf("%d records in the DLQ", n)
	}
}

// A permanent error is not retried: OnGiveUp runs, then the record goes to
// the DLQ with its key, value, headers and the error.
func TestPermanentErrorGoesToDLQ(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 3, topic)
	ev := testEvent(topic, "doc-wav", 0)
	publish(t, newPublisher(t, e.Addrs()), ev)

	var calls atomic.Int32
	type giveUp struct {
		ev  domain.Event
		err error
	}
	gaveUp := make(chan giveUp, 10)
	startConsumer(t, ConsumerConfig{
		Brokers: e.Addrs(), Topics: []string{topic},
		Handler: func(context.Context, domain.Event) error {
			calls.Add(1)
			return domain.Permanent(errors.New("the file is WAV audio, not MP3"))
		},
		OnGiveUp: func(_ context.Context, ev domain.Event, err error) error {
			gaveUp <- giveUp{ev, err}
			return nil
		},
	})
	dl := readAll(t, e.Addrs(), domain.DLQ(topic), 1)[0]
	wantHeaders := map[string]string{
		HeaderError: "the file is WAV audio, not MP3", HeaderAttempts: "1",
		HeaderSourceTopic: topic, HeaderSourceOffset: "0",
		HeaderEventID: ev.ID, HeaderEventType: ev.Type,
	}
	for k, want := range wantHeaders {
		if got, _ := header(dl, k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	if _, ok := header(dl, HeaderSourcePartition); !ok {
		t.Error("no source-partition header")
	}
	if string(dl.Key) != "doc-wav" || string(dl.Value) != string(ev.Marshal()) {
		t.Errorf("DLQ record key %q value %s", dl.Key, dl.Value)
	}
	select {
	case g := <-gaveUp:
		if g.ev.ID != ev.ID || !domain.IsPermanent(g.err) {
			t.Errorf("OnGiveUp(%s, %v)", g.ev.ID, g.err)
		}
	default:
		t.Error("OnGiveUp was not called before the DLQ write")
	}
	eventually.True(t, 10*time.Second, "offset committed", func() bool {
		return sum(committed(t, e.Addrs(), "hyscribe-test", topic)) == 1
	})
	if calls.Load() != 1 || len(gaveUp) != 0 {
		t.Errorf("handler calls %d, extra OnGiveUp calls %d; want 1, 0", calls.Load(), len(gaveUp))
	}
}

// After MaxAttempts transient failures the event is given up as well.
func TestTransientErrorsExhaustAttempts(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 1, topic)
	publish(t, newPublisher(t, e.Addrs()), testEvent(topic, "doc-1", 0), testEvent(topic, "doc-1", 1))

	var calls atomic.Int32
	var gaveUp atomic.Int32
	var second atomic.Bool
	startConsumer(t, ConsumerConfig{
		Brokers: e.Addrs(), Topics: []string{topic}, MaxAttempts: 3,
		Handler: func(_ context.Context, ev domain.Event) error {
			if seqOf(t, ev) == 1 {
				second.Store(true)
				return nil
			}
			calls.Add(1)
			return errors.New("engine timed out")
		},
		OnGiveUp: func(context.Context, domain.Event, error) error { gaveUp.Add(1); return nil },
	})
	dl := readAll(t, e.Addrs(), domain.DLQ(topic), 1)[0]
	if a, _ := header(dl, HeaderAttempts); a != "3" {
		t.Errorf("attempts header %q, want 3", a)
	}
	eventually.True(t, 10*time.Second, "the next event handled and committed", func() bool {
		return second.Load() && sum(committed(t, e.Addrs(), "hyscribe-test", topic)) == 2
	})
	if calls.Load() != 3 || gaveUp.Load() != 1 {
		t.Errorf("calls %d, OnGiveUp %d; want 3, 1", calls.Load(), gaveUp.Load())
	}
}

// A value that is not an event envelope goes to the DLQ untouched, without
// a handler call or OnGiveUp.
func TestGarbageGoesToDLQ(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 3, topic)
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	garbage := &kgo.Record{Topic: topic, Key: []byte("k"), Value: []byte("\x00\xffnot json"),
		Headers: []kgo.RecordHeader{{Key: "origin", Value: []byte("fuzz")}}}
	if err := cl.ProduceSync(context.Background(), garbage).FirstErr(); err != nil {
		t.Fatal(err)
	}

	var calls atomic.Int32
	startConsumer(t, ConsumerConfig{
		Brokers: e.Addrs(), Topics: []string{topic},
		Handler:  func(context.Context, domain.Event) error { calls.Add(1); return nil },
		OnGiveUp: func(context.Context, domain.Event, error) error { calls.Add(1); return nil },
	})
	dl := readAll(t, e.Addrs(), domain.DLQ(topic), 1)[0]
	if msg, _ := header(dl, HeaderError); !strings.Contains(msg, "not JSON") {
		t.Errorf("error header %q", msg)
	}
	if a, _ := header(dl, HeaderAttempts); a != "0" {
		t.Errorf("attempts header %q, want 0", a)
	}
	if o, _ := header(dl, "origin"); o != "fuzz" {
		t.Errorf("original header not copied: %v", dl.Headers)
	}
	if string(dl.Value) != string(garbage.Value) || string(dl.Key) != "k" {
		t.Errorf("DLQ record key %q value %q", dl.Key, dl.Value)
	}
	eventually.True(t, 10*time.Second, "offset committed", func() bool {
		return sum(committed(t, e.Addrs(), "hyscribe-test", topic)) == 1
	})
	if calls.Load() != 0 {
		t.Errorf("handler or OnGiveUp called %d times", calls.Load())
	}
}

// A consumer stopped while its handler is still working does not commit
// the record: the next member of the group gets it again.
func TestStoppedMidHandlerRedelivers(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 3, topic)
	ev := testEvent(topic, "doc-1", 0)
	publish(t, newPublisher(t, e.Addrs()), ev)

	started := make(chan struct{})
	var sawCancel atomic.Bool
	first := startConsumer(t, ConsumerConfig{
		Brokers: e.Addrs(), Topics: []string{topic}, ShutdownGrace: 200 * time.Millisecond,
		Handler: func(ctx context.Context, _ domain.Event) error {
			close(started)
			<-ctx.Done() // a slow transcription, still running at shutdown
			sawCancel.Store(true)
			return ctx.Err()
		},
		OnGiveUp: func(context.Context, domain.Event, error) error {
			t.Error("OnGiveUp called on shutdown")
			return nil
		},
	})
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("handler never started")
	}
	first.stop(t)
	if !sawCancel.Load() {
		t.Error("handler context not cancelled after the grace period")
	}
	if n := sum(committed(t, e.Addrs(), "hyscribe-test", topic)); n != 0 {
		t.Fatalf("unfinished record committed (offsets sum %d)", n)
	}

	again := make(chan domain.Event, 1)
	startConsumer(t, ConsumerConfig{
		Brokers: e.Addrs(), Topics: []string{topic},
		Handler: func(_ context.Context, ev domain.Event) error { again <- ev; return nil },
	})
	select {
	case got := <-again:
		if got.ID != ev.ID {
			t.Errorf("redelivered %s, want %s", got.ID, ev.ID)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("record not redelivered to the second consumer")
	}
	if n := endOffsets(t, e.Addrs(), domain.DLQ(topic)); n != 0 {
		t.Errorf("%d records in the DLQ", n)
	}
}

// A handler that finishes within the grace period gets its record committed.
func TestShutdownLetsHandlerFinish(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 3, topic)
	publish(t, newPublisher(t, e.Addrs()), testEvent(topic, "doc-1", 0))

	started := make(chan struct{})
	r := startConsumer(t, ConsumerConfig{
		Brokers: e.Addrs(), Topics: []string{topic},
		Handler: func(ctx context.Context, _ domain.Event) error {
			close(started)
			select {
			case <-time.After(300 * time.Millisecond):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
	})
	<-started
	r.stop(t)
	if n := sum(committed(t, e.Addrs(), "hyscribe-test", topic)); n != 1 {
		t.Errorf("committed offsets sum %d, want 1", n)
	}
}

// Two members of one group split the partitions and, with nothing failing,
// handle every record exactly once between them.
func TestTwoConsumersSplitPartitions(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 12, topic)

	var mu sync.Mutex
	seen := make(map[string]int)
	byMember := make([]map[int32]bool, 2)
	var markers atomic.Int32
	handler := func(member int) Handler {
		byMember[member] = make(map[int32]bool)
		return func(_ context.Context, ev domain.Event) error {
			if isMarker(ev) {
				markers.Add(1)
				return nil
			}
			mu.Lock()
			defer mu.Unlock()
			seen[ev.ID]++
			byMember[member][partitionOf(ev)] = true
			return nil
		}
	}
	for i := range 2 {
		startConsumer(t, ConsumerConfig{Brokers: e.Addrs(), Topics: []string{topic}, Handler: handler(i)})
	}
	waitForMembers(t, e.Addrs(), "hyscribe-test", 2)

	const n = 240
	p := newPublisher(t, e.Addrs())
	var events []domain.Event
	for i := range n {
		ev := testEvent(topic, fmt.Sprintf("doc-%03d", i), 0)
		events = append(events, ev)
	}
	publish(t, p, events...)
	eventually.True(t, 15*time.Second, "every record handled", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) == n
	})
	marks := markerEvents()
	publish(t, p, marks...)
	eventually.True(t, 15*time.Second, "every partition's marker handled", func() bool { return int(markers.Load()) >= len(marks) })
	mu.Lock()
	defer mu.Unlock()
	for id, k := range seen {
		if k != 1 {
			t.Errorf("%s handled %d times", id, k)
		}
	}
	if len(byMember[0]) == 0 || len(byMember[1]) == 0 {
		t.Fatalf("one member handled nothing: %v / %v", byMember[0], byMember[1])
	}
	for p := range byMember[0] {
		if byMember[1][p] {
			t.Errorf("partition %d handled by both members", p)
		}
	}
}

// markerPrefix starts the docIds of markerEvents.
const markerPrefix = "marker-"

// markerEvents are one event for each of the topic's 12 partitions, to be
// published after the records under test. A partition is consumed in
// order, so once a partition's marker is handled, every delivery of its
// earlier records (a repeat included) has been: the positive proof that no
// duplicate is still to come.
func markerEvents() []domain.Event {
	var evs []domain.Event
	covered := map[int32]bool{}
	for i := 0; len(covered) < 12; i++ {
		ev := testEvent(topic, fmt.Sprintf("%s%03d", markerPrefix, i), 0)
		if p := partitionOf(ev); !covered[p] {
			covered[p] = true
			evs = append(evs, ev)
		}
	}
	return evs
}

func isMarker(ev domain.Event) bool { return strings.HasPrefix(string(ev.DocID), markerPrefix) }

// partitionOf is where the publisher's partitioner put ev, which the test
// handler cannot see; the docId hash stands for it.
var partitionOf = func() func(domain.Event) int32 {
	part := kgo.StickyKeyPartitioner(nil).ForTopic(topic)
	return func(ev domain.Event) int32 {
		return int32(part.Partition(&kgo.Record{Key: []byte(ev.Key())}, 12))
	}
}()

// waitForMembers waits until the group is stable with n members that all
// have partitions.
func waitForMembers(t *testing.T, brokers []string, group string, n int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	eventually.True(t, 15*time.Second, fmt.Sprintf("%d members in %s", n, group), func() bool {
		ds, err := adm.DescribeGroups(context.Background(), group)
		if err != nil {
			return false
		}
		d := ds[group]
		if d.State != "Stable" || len(d.Members) != n {
			return false
		}
		for _, m := range d.Members {
			a, ok := m.Assigned.AsConsumer()
			if !ok || len(a.Topics) == 0 {
				return false
			}
		}
		return true
	})
}

// endOffsets is the number of records ever written to topic.
func endOffsets(t *testing.T, brokers []string, topic string) int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
	return n
}

// A member joining while another is busy takes partitions over at the
// committed offsets: with nothing failing, every record is still handled
// exactly once.
func TestRebalanceMidStreamExactlyOnce(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 12, topic)

	const n = 300
	var events []domain.Event
	for i := range n {
		events = append(events, testEvent(topic, fmt.Sprintf("doc-%03d", i%60), i/60))
	}
	publish(t, newPublisher(t, e.Addrs()), events...)

	var mu sync.Mutex
	seen := make(map[string]int)
	last := make(map[domain.DocID]int)
	var total atomic.Int32
	var perMember [2]atomic.Int32
	var markers atomic.Int32
	handler := func(member int) Handler {
		return func(_ context.Context, ev domain.Event) error {
			if isMarker(ev) {
				markers.Add(1)
				return nil
			}
			// Each record takes a while, so the second member joins while
			// the first still has most of the stream to handle (asserted
			// below: the joining member handles some of it).
			time.Sleep(20 * time.Millisecond)
			mu.Lock()
			defer mu.Unlock()
			seen[ev.ID]++
			if s, ok := last[ev.DocID]; ok && seqOf(t, ev) < s {
				t.Errorf("%s: seq %d after %d", ev.DocID, seqOf(t, ev), s)
			}
			last[ev.DocID] = seqOf(t, ev)
			total.Add(1)
			perMember[member].Add(1)
			return nil
		}
	}
	startConsumer(t, ConsumerConfig{Brokers: e.Addrs(), Topics: []string{topic}, Handler: handler(0)})
	eventually.True(t, 10*time.Second, "first records handled", func() bool { return total.Load() >= 20 })
	startConsumer(t, ConsumerConfig{Brokers: e.Addrs(), Topics: []string{topic}, Handler: handler(1)})
	eventually.True(t, 20*time.Second, "every record handled", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) == n
	})
	marks := markerEvents()
	publish(t, newPublisher(t, e.Addrs()), marks...)
	eventually.True(t, 15*time.Second, "every partition's marker handled", func() bool { return int(markers.Load()) >= len(marks) })
	mu.Lock()
	defer mu.Unlock()
	for id, k := range seen {
		if k != 1 {
			t.Errorf("%s handled %d times", id, k)
		}
	}
	if int(total.Load()) != n {
		t.Errorf("%d handler calls for %d records", total.Load(), n)
	}
	if perMember[1].Load() == 0 {
		t.Errorf("the joining member handled nothing (first member: %d)", perMember[0].Load())
	}
}

// A backlog far larger than a partition's queue pauses and resumes fetching
// without losing or reordering a record.
func TestBacklogPausesAndResumes(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 1, topic)
	const n = 3000
	events := make([]domain.Event, n)
	for i := range events {
		events[i] = testEvent(topic, "doc-1", i)
	}
	publish(t, newPublisher(t, e.Addrs()), events...)

	var mu sync.Mutex
	var got []int
	startConsumer(t, ConsumerConfig{
		Brokers: e.Addrs(), Topics: []string{topic},
		Handler: func(_ context.Context, ev domain.Event) error {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, seqOf(t, ev))
			return nil
		},
	})
	eventually.True(t, 20*time.Second, "the backlog handled", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) >= n
	})
	mu.Lock()
	defer mu.Unlock()
	for i, s := range got {
		if s != i {
			t.Fatalf("record %d has seq %d (of %d handled)", i, s, len(got))
		}
	}
}

// Shutdown during a retry backoff neither dead-letters nor commits the
// failing record, and does not wait the backoff out.
func TestShutdownDuringBackoffKeepsRecord(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 3, topic)
	publish(t, newPublisher(t, e.Addrs()), testEvent(topic, "doc-1", 0))

	failed := make(chan struct{}, 10)
	r := startConsumer(t, ConsumerConfig{
		Brokers: e.Addrs(), Topics: []string{topic},
		Backoff: time.Minute, MaxBackoff: time.Minute,
		Handler: func(context.Context, domain.Event) error {
			failed <- struct{}{}
			return domain.ErrUnavailable
		},
		OnGiveUp: func(context.Context, domain.Event, error) error {
			t.Error("OnGiveUp called")
			return nil
		},
	})
	<-failed
	start := time.Now()
	r.stop(t)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stop took %v", d)
	}
	if n := sum(committed(t, e.Addrs(), "hyscribe-test", topic)); n != 0 {
		t.Errorf("failing record committed")
	}
	if n := endOffsets(t, e.Addrs(), domain.DLQ(topic)); n != 0 {
		t.Errorf("%d records in the DLQ", n)
	}
}

// A panicking handler is an error like any other, not a crash.
func TestHandlerPanicIsAnError(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 3, topic)
	publish(t, newPublisher(t, e.Addrs()), testEvent(topic, "doc-1", 0))
	startConsumer(t, ConsumerConfig{
		Brokers: e.Addrs(), Topics: []string{topic}, MaxAttempts: 2,
		Handler: func(context.Context, domain.Event) error { panic("nil map") },
	})
	dl := readAll(t, e.Addrs(), domain.DLQ(topic), 1)[0]
	if msg, _ := header(dl, HeaderError); msg != "handler panicked: nil map" {
		t.Errorf("error header %q", msg)
	}
}

// A handler failing with domain.ErrBackOff (an engine's open circuit) many
// more times than MaxAttempts never gives the job up: the record waits,
// its attempts are not counted, and it is handled once the dependency is
// back.
func TestBackOffDoesNotBurnAttempts(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 3, topic)
	publish(t, newPublisher(t, e.Addrs()), testEvent(topic, "doc-1", 0))

	var calls, backedOff, retried atomic.Int32
	startConsumer(t, ConsumerConfig{
		Brokers: e.Addrs(), Topics: []string{topic}, MaxAttempts: 2,
		Handler: func(context.Context, domain.Event) error {
			switch n := calls.Add(1); {
			case n <= 8:
				return fmt.Errorf("speech engine: %w", errors.Join(domain.ErrUnavailable, domain.ErrBackOff))
			case n == 9:
				return fmt.Errorf("store: %w", domain.ErrUnavailable) // one counted failure
			}
			return nil
		},
		OnGiveUp: func(context.Context, domain.Event, error) error {
			t.Error("OnGiveUp called")
			return nil
		},
		Metrics: Metrics{
			BackedOff: func(string) { backedOff.Add(1) },
			Retried:   func(string, int) { retried.Add(1) },
		},
	})
	eventually.True(t, 10*time.Second, "offset committed", func() bool {
		return sum(committed(t, e.Addrs(), "hyscribe-test", topic)) == 1
	})
	if calls.Load() != 10 || backedOff.Load() != 8 || retried.Load() != 1 {
		t.Errorf("calls %d, backed off %d, retried %d; want 10, 8, 1", calls.Load(), backedOff.Load(), retried.Load())
	}
}

// The store out of reach (domain.ErrStoreDown) for far more calls than
// MaxAttempts is waited out: no attempt is spent, OnGiveUp is not called,
// nothing is dead-lettered, and the event is handled once the store is back.
func TestStoreOutageIsWaitedOut(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 1, topic)
	publish(t, newPublisher(t, e.Addrs()), testEvent(topic, "doc-1", 0))
	var calls atomic.Int32
	startConsumer(t, ConsumerConfig{
		Brokers: e.Addrs(), Topics: []string{topic}, MaxAttempts: 2,
		Handler: func(context.Context, domain.Event) error {
			if calls.Add(1) <= 12 {
				return fmt.Errorf("postgres.UpdateJob: %w: dial tcp 127.0.0.1:5432: connection refused", domain.ErrStoreDown)
			}
			return nil
		},
		OnGiveUp: func(context.Context, domain.Event, error) error {
			t.Error("OnGiveUp called for a store outage")
			return nil
		},
	})
	eventually.True(t, 10*time.Second, "offset committed", func() bool {
		return sum(committed(t, e.Addrs(), "hyscribe-test", topic)) == 1
	})
	if calls.Load() != 13 {
		t.Errorf("calls %d, want 13", calls.Load())
	}
	if n := endOffsets(t, e.Addrs(), domain.DLQ(topic)); n != 0 {
		t.Errorf("%d dead letters, want none", n)
	}
}

// A give-up that cannot be recorded (OnGiveUp failing: the store is down
// while the job is to be failed) holds the record, however many times it
// fails: it is dead-lettered only after OnGiveUp succeeded, never
// "anyway", which would leave the job in its stage with nothing to move it.
func TestDeadLetterOnlyAfterGiveUpRecorded(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 1, topic)
	publish(t, newPublisher(t, e.Addrs()), testEvent(topic, "doc-1", 0))
	var gaveUp, recorded atomic.Int32
	startConsumer(t, ConsumerConfig{
		Brokers: e.Addrs(), Topics: []string{topic}, MaxAttempts: 2,
		Handler: func(context.Context, domain.Event) error { return domain.ErrEmptyFile },
		OnGiveUp: func(context.Context, domain.Event, error) error {
			if gaveUp.Add(1) <= 10 {
				return errors.New("fail job: the store cannot be reached")
			}
			recorded.Store(1)
			return nil
		},
	})
	dl := readAll(t, e.Addrs(), domain.DLQ(topic), 1)[0]
	if recorded.Load() != 1 || gaveUp.Load() != 11 {
		t.Fatalf("dead-lettered after %d OnGiveUp calls (recorded %v); want after the 11th, which succeeded", gaveUp.Load(), recorded.Load() == 1)
	}
	if msg, _ := header(dl, HeaderError); msg != domain.ErrEmptyFile.Error() {
		t.Errorf("error header %q", msg)
	}
}

// A topic written by someone else (the object store's notifications) is read
// with its own Decode: the handler gets what Decode made of each record.
func TestCustomDecode(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 1, topic)
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, v := range []string{"doc-a", "doc-b"} {
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: topic, Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan domain.DocID, 2)
	startConsumer(t, ConsumerConfig{
		Brokers: e.Addrs(), Topics: []string{topic},
		Decode: func(tp string, b []byte) (domain.Event, error) {
			return domain.Event{ID: string(b), Topic: tp, Type: "raw", DocID: domain.DocID(b)}, nil
		},
		Handler: func(_ context.Context, ev domain.Event) error { got <- ev.DocID; return nil },
	})
	for _, want := range []domain.DocID{"doc-a", "doc-b"} {
		select {
		case id := <-got:
			if id != want {
				t.Fatalf("handler got %q, want %q", id, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("handler never got %q", want)
		}
	}
}
