package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/retry"
)

// Headers a Consumer adds to a dead-lettered record, beside the original ones.
const (
	HeaderError           = "error"            // why the record was given up
	HeaderSourceTopic     = "source-topic"     // where it was read
	HeaderSourcePartition = "source-partition" //
	HeaderSourceOffset    = "source-offset"    //
	HeaderAttempts        = "attempts"         // handler calls made; 0 for an unreadable record
)

// Defaults of ConsumerConfig.
const (
	DefaultMaxAttempts   = 5
	DefaultBackoff       = 200 * time.Millisecond
	DefaultMaxBackoff    = 10 * time.Second
	DefaultShutdownGrace = 10 * time.Second
)

// A partition's queue pauses fetching at highWater records and resumes at
// lowWater, so a slow handler neither blocks the poll loop (which would hold
// up rebalances) nor lets a backlog pile up in memory.
const (
	maxPollRecords = 500
	highWater      = 256
	lowWater       = 64
)

// Handler handles one event. It returns nil once the event's effects are
// committed; an error makes the Consumer retry, unless domain.IsPermanent.
type Handler func(ctx context.Context, ev domain.Event) error

// GiveUpFunc is told that ev will not be handled: err is the handler's last
// error. It runs before the record goes to the dead-letter topic.
type GiveUpFunc func(ctx context.Context, ev domain.Event, err error) error

// Metrics receives what a Consumer does. Any field may be nil.
type Metrics struct {
	// Handled follows every handler call: its latency and its error (nil
	// on success).
	Handled func(topic string, latency time.Duration, err error)
	// Retried is called before retry number attempt (2 for the first retry).
	Retried func(topic string, attempt int)
	// DeadLettered is called once a record of topic is in the dead-letter topic.
	DeadLettered func(topic string)
	// BackedOff is called each time the handler failed with
	// domain.ErrBackOff and the record waits, its attempts not counted.
	BackedOff func(topic string)
}

// ConsumerConfig configures a Consumer. Brokers, Group, Topics and Handler
// are required.
type ConsumerConfig struct {
	Brokers []string
	Group   string   // one group per stage: "hyscribe-process"
	Topics  []string // topics the stage reads; dead letters go to domain.DLQ(topic)
	Handler Handler
	// Decode turns a record's value into the event the handler gets; an
	// error dead-letters the record unhandled. Default domain.ParseEvent
	// (hyscribe's envelope); topics written by others, such as the object
	// store's notifications, bring their own.
	Decode func(topic string, value []byte) (domain.Event, error)
	// OnGiveUp is called after the last failed attempt, or after the
	// first one for a permanent error, e.g. to fail the job with a
	// readable error. It is retried with backoff until it returns nil
	// (the store may be down): the record is dead-lettered only after.
	// Optional.
	OnGiveUp GiveUpFunc

	// Concurrency is how many records of one partition are handled at
	// once; default 1, in order. Above 1, records of different keys run
	// side by side (those of one key still in order, one at a time), so a
	// record whose handling takes long (an hour of speech at the engine)
	// does not hold up the partition's other jobs; offsets are still
	// marked in order, a record's only once it and every record before it
	// are done, so a crash redelivers whatever was unfinished (and some
	// finished records after it, which idempotent handlers skip).
	Concurrency int

	MaxAttempts   int           // handler calls per record; default 5
	Backoff       time.Duration // wait before the first retry, doubled each retry; default 200ms
	MaxBackoff    time.Duration // cap of that wait; default 10s
	ShutdownGrace time.Duration // how long handlers may run on after Run's ctx ends; default 10s

	Logger  *slog.Logger // default slog.Default()
	Metrics Metrics
	// ClientOpts are added to (and may override) the franz-go client
	// options: TLS, SASL, or short session timeouts in tests.
	ClientOpts []kgo.Opt
}

// Consumer runs one consumer group: each assigned partition gets a
// goroutine that handles its records in order, so partitions proceed
// concurrently while a docId's events (one partition) stay in sequence.
// With ConsumerConfig.Concurrency above 1 a partition's records of
// different keys run side by side (concurrent.go), a key's still in order.
//
// A record's offset is marked for commit only once the handler returned nil
// or the record was dead-lettered; marked offsets are committed every few
// seconds, when partitions are revoked, and on shutdown. A record whose
// handling did not finish (shutdown, revocation, lost partition) is not
// marked, and neither is anything after it, so it is delivered again.
//
// A revoked or lost partition's running handler has its context cancelled
// at once rather than awaited: a stage's call can outlast the group's
// rebalance timeout (a long recording at the speech engine), and waiting for
// it would stall the rebalance or cost the member its place. The handler's
// work is idempotent and its record unmarked, so the next owner redoes it.
type Consumer struct {
	cfg     ConsumerConfig
	log     *slog.Logger
	started atomic.Bool

	hctx context.Context // handlers' context; set by Run before the client exists

	mu      sync.Mutex
	closing bool
	workers map[topicPartition]*worker
}

type topicPartition struct {
	topic     string
	partition int32
}

// NewConsumer checks cfg and fills in defaults. Nothing connects until Run.
func NewConsumer(cfg ConsumerConfig) (*Consumer, error) {
	switch {
	case len(cfg.Brokers) == 0:
		return nil, errors.New("kafka.NewConsumer: no brokers")
	case cfg.Group == "":
		return nil, errors.New("kafka.NewConsumer: no group")
	case len(cfg.Topics) == 0:
		return nil, errors.New("kafka.NewConsumer: no topics")
	case cfg.Handler == nil:
		return nil, errors.New("kafka.NewConsumer: no handler")
	}
	if cfg.Decode == nil {
		cfg.Decode = domain.ParseEvent
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	cfg.Concurrency = max(cfg.Concurrency, 1)
	if cfg.Backoff <= 0 {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	if cfg.MaxBackoff < cfg.Backoff {
		cfg.MaxBackoff = cfg.Backoff
	}
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = DefaultShutdownGrace
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Consumer{
		cfg:     cfg,
		log:     cfg.Logger.With("group", cfg.Group),
		workers: make(map[topicPartition]*worker),
	}, nil
}

// Run joins the group and handles records until ctx ends. Then it stops
// fetching, lets running handlers finish (their context is cancelled
// ShutdownGrace later), commits what was handled and leaves the group. It
// returns nil after a clean stop. A Consumer runs once.
//
// A handler that ignores its context can hold Run past the grace period.
func (c *Consumer) Run(ctx context.Context) error {
	if !c.started.CompareAndSwap(false, true) {
		return errors.New("kafka.Consumer.Run: already run")
	}
	hctx, stopHandlers := context.WithCancel(context.WithoutCancel(ctx))
	defer stopHandlers()
	c.hctx = hctx

	opts := []kgo.Opt{
		kgo.SeedBrokers(c.cfg.Brokers...),
		kgo.ConsumerGroup(c.cfg.Group),
		kgo.ConsumeTopics(c.cfg.Topics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), // a new group reads what was published before it existed
		kgo.AutoCommitMarks(),
		kgo.BlockRebalanceOnPoll(),
		kgo.OnPartitionsAssigned(c.assigned),
		kgo.OnPartitionsRevoked(c.revoked),
		kgo.OnPartitionsLost(c.lost),
		kgo.ProducerLinger(0), // dead letters are produced one at a time, synchronously
		kgo.WithLogger(kgoLogger{c.log}),
	}
	cl, err := kgo.NewClient(append(opts, c.cfg.ClientOpts...)...)
	if err != nil {
		return fmt.Errorf("kafka.Consumer.Run: %w", err)
	}
	c.log.Info("consumer started", "topics", c.cfg.Topics)

	c.poll(ctx, cl)

	c.log.Info("consumer stopping: waiting for running handlers", "grace", c.cfg.ShutdownGrace)
	grace := time.AfterFunc(c.cfg.ShutdownGrace, stopHandlers)
	c.stopWorkers(cl, nil)
	grace.Stop()

	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	err = cl.CommitMarkedOffsets(cctx)
	cl.CloseAllowingRebalance() // leaves the group; its final revoke has nothing left to commit
	if err != nil {
		return fmt.Errorf("kafka.Consumer.Run: final commit: %w", err)
	}
	c.log.Info("consumer stopped")
	return nil
}

// poll hands fetched records to their partition's worker until ctx ends.
// BlockRebalanceOnPoll keeps partition callbacks out from between a poll and
// AllowRebalance, so every polled partition has its worker.
func (c *Consumer) poll(ctx context.Context, cl *kgo.Client) {
	defer cl.AllowRebalance()
	for {
		fetches := cl.PollRecords(ctx, maxPollRecords)
		if ctx.Err() != nil || fetches.IsClientClosed() {
			return // records polled but not queued are not marked: they come again
		}
		fetches.EachError(func(t string, p int32, err error) {
			c.log.Warn("kafka fetch error", "topic", t, "partition", p, "err", err)
		})
		fetches.EachPartition(func(p kgo.FetchTopicPartition) {
			if len(p.Records) == 0 {
				return
			}
			c.mu.Lock()
			w := c.workers[topicPartition{p.Topic, p.Partition}]
			c.mu.Unlock()
			if w == nil {
				c.log.Warn("records of a partition without a worker; they will be fetched again",
					"topic", p.Topic, "partition", p.Partition)
				return
			}
			w.push(p.Records)
		})
		cl.AllowRebalance()
	}
}

func (c *Consumer) assigned(_ context.Context, cl *kgo.Client, assigned map[string][]int32) {
	cl.ResumeFetchPartitions(assigned) // a pause outlives an assignment; start clean
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return
	}
	for topic, parts := range assigned {
		for _, p := range parts {
			tp := topicPartition{topic, p}
			if c.workers[tp] != nil {
				continue
			}
			ctx, cancel := context.WithCancel(c.hctx)
			w := &worker{
				c: c, cl: cl, topic: topic, partition: p, ctx: ctx, cancel: cancel,
				log:  c.log.With("topic", topic, "partition", p),
				wake: make(chan struct{}, 1),
				quit: make(chan struct{}),
				done: make(chan struct{}),
			}
			c.workers[tp] = w
			go w.run()
		}
	}
	if len(assigned) > 0 {
		c.log.Info("partitions assigned", "partitions", assigned)
	}
}

// revoked cancels the revoked partitions' running handlers and waits for
// them to return, then commits what they finished before the partitions
// move to another member.
func (c *Consumer) revoked(ctx context.Context, cl *kgo.Client, revoked map[string][]int32) {
	c.stopWorkers(cl, revoked)
	if err := cl.CommitMarkedOffsets(ctx); err != nil {
		c.log.Error("commit on revoke failed; the next owner repeats those records", "err", err)
	}
	if len(revoked) > 0 {
		c.log.Info("partitions revoked", "partitions", revoked)
	}
}

// lost stops the partitions' workers; committing is pointless, the group
// has moved on without us.
func (c *Consumer) lost(_ context.Context, cl *kgo.Client, lost map[string][]int32) {
	c.stopWorkers(cl, lost)
	c.log.Warn("partitions lost", "partitions", lost)
}

// stopWorkers stops the workers of parts and waits for them. Handlers of
// parts are cancelled; with parts nil (all, for good: shutdown) they may
// finish their current record, until Run's grace ends.
func (c *Consumer) stopWorkers(cl *kgo.Client, parts map[string][]int32) {
	c.mu.Lock()
	var ws []*worker
	if parts == nil {
		c.closing = true
		for tp, w := range c.workers {
			ws = append(ws, w)
			delete(c.workers, tp)
		}
	} else {
		for topic, ps := range parts {
			for _, p := range ps {
				tp := topicPartition{topic, p}
				if w := c.workers[tp]; w != nil {
					ws = append(ws, w)
					delete(c.workers, tp)
				}
			}
		}
	}
	c.mu.Unlock()
	for _, w := range ws {
		close(w.quit)
		if parts != nil {
			w.cancel()
		}
	}
	stopped := make(map[string][]int32)
	for _, w := range ws {
		<-w.done
		w.cancel()
		stopped[w.topic] = append(stopped[w.topic], w.partition)
	}
	if len(stopped) > 0 {
		cl.ResumeFetchPartitions(stopped)
	}
}

// backoff is the wait before retry number attempt of a record: the
// project's one policy (internal/retry), whose jitter keeps retrying members
// from hammering in step. The attempt count lives in the worker's state, so
// the wait is asked for by number.
func (c *Consumer) backoff(attempt int) time.Duration {
	return retry.Wait(c.cfg.Backoff, c.cfg.MaxBackoff, attempt)
}

// worker handles one assigned partition's records in order.
type worker struct {
	c         *Consumer
	cl        *kgo.Client
	topic     string
	partition int32
	log       *slog.Logger
	ctx       context.Context    // the handlers': Run's, cancelled on revoke
	cancel    context.CancelFunc // cancels ctx

	mu     sync.Mutex
	queue  []*kgo.Record
	paused bool

	wake chan struct{} // cap 1: records were queued
	quit chan struct{} // closed: stop after the current record
	done chan struct{} // closed by run on return

	backedOff atomic.Int64 // consecutive waits on domain.ErrBackOff
}

func (w *worker) tp() map[string][]int32 { return map[string][]int32{w.topic: {w.partition}} }

// push queues records, pausing the partition's fetches past highWater. The
// pause and resume calls happen under w.mu so they cannot cross.
func (w *worker) push(recs []*kgo.Record) {
	w.mu.Lock()
	w.queue = append(w.queue, recs...)
	if !w.paused && len(w.queue) >= highWater {
		w.paused = true
		w.cl.PauseFetchPartitions(w.tp())
		w.log.Debug("partition queue full; fetching paused", "queued", len(w.queue))
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// next returns the next queued record, or false once the worker must stop.
func (w *worker) next() (*kgo.Record, bool) {
	for {
		if w.stopping() {
			return nil, false
		}
		if r, ok := w.tryNext(); ok {
			return r, true
		}
		select {
		case <-w.quit:
			return nil, false
		case <-w.wake:
		}
	}
}

func (w *worker) run() {
	defer close(w.done)
	if w.c.cfg.Concurrency > 1 {
		w.runConcurrently(w.c.cfg.Concurrency)
		return
	}
	for {
		r, ok := w.next()
		if !ok {
			return
		}
		if !w.handle(r) {
			// r is not marked, so nothing after it may be either:
			// stop here and let the next owner start from r.
			return
		}
		w.cl.MarkCommitRecords(r)
	}
}

func (w *worker) stopping() bool {
	select {
	case <-w.quit:
		return true
	default:
		return false
	}
}

// sleep waits d; false if the worker was told to stop meanwhile.
func (w *worker) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-w.quit:
		return false
	case <-t.C:
		return true
	}
}

// handle runs r through the handler with retries, or dead-letters it. It
// returns true once r is done (its caller marks it for commit), false if r
// must be delivered again.
func (w *worker) handle(r *kgo.Record) bool {
	ev, err := w.c.cfg.Decode(r.Topic, r.Value)
	if err != nil {
		w.log.Warn("unreadable record goes to the dead-letter topic", "offset", r.Offset, "err", err)
		return w.deadLetter(r, err, 0)
	}
	cfg := &w.c.cfg
	log := w.log.With("offset", r.Offset, "event_id", ev.ID, "doc_id", ev.DocID)
	for attempt := 1; ; attempt++ {
		err := w.call(ev, attempt)
		if err == nil {
			w.backedOff.Store(0)
			return true
		}
		if w.stopping() {
			log.Warn("handler failed while stopping; the event will be delivered again", "attempt", attempt, "err", err)
			return false
		}
		if errors.Is(err, domain.ErrBackOff) && !domain.IsPermanent(err) {
			// A shared dependency is down (an engine's open circuit, the
			// store out of reach): the job is not at fault, so the
			// attempt is not counted, however long the outage lasts.
			// The partition waits, holding its records in Kafka, and
			// tries again after a backoff growing to the longest.
			attempt--
			if !w.waitOut(r.Topic, err, log) {
				return false
			}
			continue
		}
		w.backedOff.Store(0)
		if domain.IsPermanent(err) || attempt >= cfg.MaxAttempts {
			log.Error("giving up on event", "attempts", attempt, "permanent", domain.IsPermanent(err), "err", err)
			if !w.giveUp(ev, err, log) {
				return false
			}
			return w.deadLetter(r, err, attempt)
		}
		log.Warn("handler failed; retrying", "attempt", attempt, "err", err)
		if f := cfg.Metrics.Retried; f != nil {
			f(r.Topic, attempt+1)
		}
		if !w.sleep(w.c.backoff(attempt)) {
			return false
		}
	}
}

// call runs the handler once, turning a panic into an error so one bad
// event cannot take the process down, and logs the job's passage.
func (w *worker) call(ev domain.Event, attempt int) (err error) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			w.log.Error("handler panicked", "event_id", ev.ID, "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("handler panicked: %v", p)
		}
		d := time.Since(start)
		if f := w.c.cfg.Metrics.Handled; f != nil {
			f(ev.Topic, d, err)
		}
		logHandled(w.log, ev, attempt, d, err)
	}()
	return w.c.cfg.Handler(w.ctx, ev)
}

// waitOut is one wait of a record whose handler met a shared dependency
// down (domain.ErrBackOff): the waits of a row grow from Backoff to
// MaxBackoff, so a short outage costs little and a long one is polled
// gently. False if the worker was told to stop meanwhile.
func (w *worker) waitOut(topic string, err error, log *slog.Logger) bool {
	if f := w.c.cfg.Metrics.BackedOff; f != nil {
		f(topic)
	}
	n := w.backedOff.Add(1)
	if n == 1 || n%30 == 0 {
		log.Warn("a shared dependency is down; the partition waits", "waits", n, "err", err)
	}
	return w.sleep(retry.Wait(w.c.cfg.Backoff, w.c.cfg.MaxBackoff, int(min(n, 64))))
}

// giveUp tells the application, retrying until it has recorded the give-up
// (the job failed with its reason): only then may the record go to the
// dead-letter topic and its offset be committed, or a job would be left in
// its stage with nothing left to move it. False means stop without
// marking; the record is delivered again.
func (w *worker) giveUp(ev domain.Event, cause error, log *slog.Logger) bool {
	f := w.c.cfg.OnGiveUp
	if f == nil {
		return true
	}
	for attempt := 1; ; attempt++ {
		err := f(w.ctx, ev, cause)
		if err == nil {
			w.backedOff.Store(0)
			return true
		}
		if w.stopping() {
			return false
		}
		if attempt == 1 || attempt%30 == 0 {
			log.Error("OnGiveUp failed; retrying until the give-up is recorded", "attempt", attempt, "err", err)
		}
		if !w.sleep(w.c.backoff(min(attempt, 64))) {
			return false
		}
	}
}

// deadLetter writes r to its topic's DLQ, retrying until the broker takes
// it or the worker stops; true once it is there.
func (w *worker) deadLetter(r *kgo.Record, cause error, attempts int) bool {
	for try := 1; ; try++ {
		err := w.cl.ProduceSync(w.ctx, dlqRecord(r, cause, attempts)).FirstErr()
		if err == nil {
			if f := w.c.cfg.Metrics.DeadLettered; f != nil {
				f(r.Topic)
			}
			w.log.Error("record dead-lettered", "offset", r.Offset, "dlq", domain.DLQ(r.Topic), "err", cause)
			return true
		}
		if w.stopping() {
			return false
		}
		w.log.Error("writing to the dead-letter topic failed; retrying", "offset", r.Offset, "err", err)
		if !w.sleep(w.c.backoff(try)) {
			return false
		}
	}
}

// dlqRecord copies r (key, value, headers) for the dead-letter topic and
// says why and where from. Headers of an earlier dead-lettering are replaced.
func dlqRecord(r *kgo.Record, cause error, attempts int) *kgo.Record {
	ours := map[string]string{
		HeaderError:           cause.Error(),
		HeaderSourceTopic:     r.Topic,
		HeaderSourcePartition: strconv.Itoa(int(r.Partition)),
		HeaderSourceOffset:    strconv.FormatInt(r.Offset, 10),
		HeaderAttempts:        strconv.Itoa(attempts),
	}
	headers := make([]kgo.RecordHeader, 0, len(r.Headers)+len(ours))
	for _, h := range r.Headers {
		if _, ok := ours[h.Key]; !ok {
			headers = append(headers, h)
		}
	}
	for _, k := range []string{HeaderError, HeaderSourceTopic, HeaderSourcePartition, HeaderSourceOffset, HeaderAttempts} {
		headers = append(headers, kgo.RecordHeader{Key: k, Value: []byte(ours[k])})
	}
	return &kgo.Record{
		Topic:   domain.DLQ(r.Topic),
		Key:     r.Key,
		Value:   r.Value,
		Headers: headers,
	}
}
