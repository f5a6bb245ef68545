package asr

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Defaults of GuardConfig.
const (
	DefaultConcurrency    = 4
	DefaultFailuresToOpen = 5
	DefaultOpenFor        = 30 * time.Second
)

// GuardConfig configures Guard. Zero fields take the defaults above.
type GuardConfig struct {
	Name        string // the engine, for logs: its host
	Concurrency int    // requests in flight at once: the engine's slots
	// Leases, when set, bound the requests in flight across every process
	// sending to the engine (Concurrency then bounds this process's share).
	Leases SlotLeases
	// ReserveFor is how long the last free slot may be held back for an
	// account seen that recently (Scheduler); 0 is DefaultReserveFor, < 0
	// holds none back.
	ReserveFor     time.Duration
	FailuresToOpen int           // consecutive failed recognitions that open the circuit
	OpenFor        time.Duration // how long the circuit stays open before one trial request
	// Observe is told every request's latency and error (nil on success);
	// an open circuit's refusal is not a request and is not observed.
	Observe func(latency time.Duration, err error)
	Logger  *slog.Logger
}

// Guarded is a ports.SpeechRecognizer in front of another, for one engine:
// a Scheduler hands out the engine's slots fairly among accounts and jobs
// (see scheduler.go), and a circuit breaker stops
// sending work to an engine that keeps failing. While the circuit is open,
// Recognize fails at once with an error that wraps domain.ErrUnavailable
// and domain.ErrBackOff, so the pipeline's consumer waits without spending
// the job's attempts: work backs up in Kafka instead of every job failing.
type Guarded struct {
	next     ports.SpeechRecognizer
	sched    *Scheduler
	cb       *gobreaker.CircuitBreaker[domain.Recognition]
	cfg      GuardConfig
	inFlight atomic.Int64
	lastErr  atomic.Value // string: the failure that opened the circuit
}

var _ ports.SpeechRecognizer = (*Guarded)(nil)

// Guard wraps next.
func Guard(next ports.SpeechRecognizer, cfg GuardConfig) *Guarded {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.FailuresToOpen <= 0 {
		cfg.FailuresToOpen = DefaultFailuresToOpen
	}
	if cfg.OpenFor <= 0 {
		cfg.OpenFor = DefaultOpenFor
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	g := &Guarded{next: next, sched: NewScheduler(cfg.Concurrency, cfg.Leases, cmp.Or(cfg.ReserveFor, DefaultReserveFor)), cfg: cfg}
	g.lastErr.Store("")
	g.cb = gobreaker.NewCircuitBreaker[domain.Recognition](gobreaker.Settings{
		Name:        cfg.Name,
		MaxRequests: 1, // one trial request when half-open
		Timeout:     cfg.OpenFor,
		ReadyToTrip: func(c gobreaker.Counts) bool { return int(c.ConsecutiveFailures) >= cfg.FailuresToOpen },
		// A refusal of one file (permanent: bad audio, too large) or a
		// cancelled job says nothing about the engine's health.
		IsExcluded: func(err error) bool {
			return domain.IsPermanent(err) || errors.Is(err, context.Canceled)
		},
		OnStateChange: func(name string, from, to gobreaker.State) {
			if to == gobreaker.StateOpen {
				cfg.Logger.Warn("speech engine circuit opened: jobs wait in the queue", "engine", name, "from", from.String(), "retry_in", cfg.OpenFor, "last_error", g.lastErr.Load())
				return
			}
			cfg.Logger.Info("speech engine circuit changed", "engine", name, "from", from.String(), "to", to.String())
		},
	})
	return g
}

// Recognize implements ports.SpeechRecognizer.
func (g *Guarded) Recognize(ctx context.Context, audio ports.AudioFile) (domain.Recognition, error) {
	if g.cb.State() == gobreaker.StateOpen {
		return domain.Recognition{}, g.openError()
	}
	release, err := g.sched.Acquire(ctx, audio.Account, audio.Job, audio.Seconds)
	if err != nil {
		return domain.Recognition{}, fmt.Errorf("asr: waiting for a free engine slot: %w", err)
	}
	defer release()
	g.inFlight.Add(1)
	defer g.inFlight.Add(-1)
	start := time.Now()
	rec, err := g.cb.Execute(func() (domain.Recognition, error) {
		rec, err := g.next.Recognize(ctx, audio)
		if err != nil && !domain.IsPermanent(err) {
			g.lastErr.Store(err.Error())
		}
		return rec, err
	})
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		return domain.Recognition{}, g.openError()
	}
	if g.cfg.Observe != nil {
		g.cfg.Observe(time.Since(start), err)
	}
	return rec, err
}

// State is the circuit's state: 0 closed, 1 half-open, 2 open.
func (g *Guarded) State() int {
	switch g.cb.State() {
	case gobreaker.StateHalfOpen:
		return 1
	case gobreaker.StateOpen:
		return 2
	}
	return 0
}

// InFlight is the number of requests being sent now.
func (g *Guarded) InFlight() int { return int(g.inFlight.Load()) }

// Stats is the scheduler's: slots, requests in flight and queued, and how
// busy the engine was kept.
func (g *Guarded) Stats() SchedulerStats { return g.sched.Stats() }

// BusyRatio is the scheduler's (Scheduler.BusyRatio).
func (g *Guarded) BusyRatio() float64 { return g.sched.BusyRatio() }

func (g *Guarded) openError() error {
	return &openCircuitError{last: g.lastErr.Load().(string), failures: g.cfg.FailuresToOpen}
}

// openCircuitError is the answer while the circuit is open.
type openCircuitError struct {
	last     string
	failures int
}

func (e *openCircuitError) Error() string {
	msg := fmt.Sprintf("speech engine unavailable: it failed %d times in a row and is being given time to recover", e.failures)
	if e.last != "" {
		msg += "; last error: " + e.last
	}
	return msg
}

// Is makes the error match domain.ErrUnavailable and domain.ErrBackOff.
func (e *openCircuitError) Is(target error) bool {
	return target == domain.ErrUnavailable || target == domain.ErrBackOff
}
