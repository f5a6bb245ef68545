package asr

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

type stubEngine struct {
	mu       sync.Mutex
	fail     int // calls still to fail
	err      error
	calls    int
	inFlight atomic.Int32
	peak     atomic.Int32
	delay    time.Duration
}

func (s *stubEngine) Recognize(ctx context.Context, _ ports.AudioFile) (domain.Recognition, error) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		p := s.peak.Load()
		if n <= p || s.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(s.delay)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.fail > 0 {
		s.fail--
		return domain.Recognition{}, s.err
	}
	return domain.Recognition{Text: "Բարև"}, nil
}

// The circuit's timing is its premise (a trial only after OpenFor), so the
// test runs on synctest's clock: each sleep is exactly as long as it says.
// Calls is how many requests reached the engine, safe to read while others
// are being sent.
func (s *stubEngine) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func TestGuardOpensTheCircuitAndBacksOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		eng := &stubEngine{fail: 5, err: fmt.Errorf("speech engine unavailable after 4 attempts: 503: %w", domain.ErrUnavailable)}
		var observed, failed atomic.Int32
		g := Guard(eng, GuardConfig{Name: "engine", FailuresToOpen: 3, OpenFor: 50 * time.Millisecond,
			Observe: func(_ time.Duration, err error) {
				observed.Add(1)
				if err != nil {
					failed.Add(1)
				}
			}})
		ctx := context.Background()
		for i := range 3 {
			if _, err := g.Recognize(ctx, ports.AudioFile{}); !errors.Is(err, domain.ErrUnavailable) || errors.Is(err, domain.ErrBackOff) {
				t.Fatalf("call %d: %v", i, err)
			}
		}
		// Open: no request reaches the engine, and the error says to back off.
		_, err := g.Recognize(ctx, ports.AudioFile{})
		if !errors.Is(err, domain.ErrBackOff) || !errors.Is(err, domain.ErrUnavailable) || g.State() != 2 || eng.calls != 3 {
			t.Fatalf("open circuit: %v, state %d, engine calls %d", err, g.State(), eng.calls)
		}
		if want := "speech engine unavailable: it failed 3 times in a row and is being given time to recover; last error: speech engine unavailable after 4 attempts: 503: unavailable"; err.Error() != want {
			t.Fatalf("message %q", err.Error())
		}
		// Still open just before OpenFor has passed.
		time.Sleep(49 * time.Millisecond)
		if _, err := g.Recognize(ctx, ports.AudioFile{}); !errors.Is(err, domain.ErrBackOff) || eng.calls != 3 {
			t.Fatalf("before OpenFor: %v, engine calls %d", err, eng.calls)
		}
		// Once OpenFor has passed one trial goes through; it fails (the 4th failure) and
		// the circuit opens again; the next trial succeeds and closes it.
		time.Sleep(2 * time.Millisecond)
		if _, err := g.Recognize(ctx, ports.AudioFile{}); errors.Is(err, domain.ErrBackOff) || err == nil || eng.calls != 4 || g.State() != 2 {
			t.Fatalf("trial: %v, engine calls %d, state %d", err, eng.calls, g.State())
		}
		time.Sleep(51 * time.Millisecond)
		if _, err := g.Recognize(ctx, ports.AudioFile{}); err == nil || errors.Is(err, domain.ErrBackOff) || eng.calls != 5 { // 5th failure
			t.Fatalf("second trial: %v, engine calls %d", err, eng.calls)
		}
		time.Sleep(51 * time.Millisecond)
		if rec, err := g.Recognize(ctx, ports.AudioFile{}); err != nil || rec.Text != "Բարև" || g.State() != 0 {
			t.Fatalf("recovered: %v %v state %d", rec, err, g.State())
		}
		if observed.Load() != 6 || failed.Load() != 5 {
			t.Fatalf("observed %d, failed %d", observed.Load(), failed.Load())
		}
	})
}

func TestGuardIgnoresRefusalsOfOneFile(t *testing.T) {
	eng := &stubEngine{fail: 10, err: domain.Permanent(errors.New("speech engine refused the file: 413"))}
	g := Guard(eng, GuardConfig{FailuresToOpen: 2})
	for range 5 {
		if _, err := g.Recognize(context.Background(), ports.AudioFile{}); !domain.IsPermanent(err) {
			t.Fatalf("err %v", err)
		}
	}
	if g.State() != 0 {
		t.Fatal("permanent refusals opened the circuit")
	}
}

func TestGuardBoundsConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		eng := &stubEngine{delay: 20 * time.Millisecond}
		g := Guard(eng, GuardConfig{Concurrency: 2})
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if _, err := g.Recognize(context.Background(), ports.AudioFile{}); err != nil {
					t.Error(err)
				}
			})
		}
		synctest.Wait() // every call is at the engine or waiting for a slot
		if st := g.Stats(); g.InFlight() != 2 || eng.inFlight.Load() != 2 || st.Queued != 6 {
			t.Fatalf("in flight %d (engine %d), queued %d; want 2, 2, 6", g.InFlight(), eng.inFlight.Load(), st.Queued)
		}
		wg.Wait()
		if p := eng.peak.Load(); p != 2 || eng.Calls() != 8 {
			t.Fatalf("peak in flight %d, want 2; calls %d", p, eng.Calls())
		}

		// A job whose context ends while it waits for a slot gives up.
		eng.delay = 100 * time.Millisecond
		for range 2 {
			wg.Go(func() {
				if _, err := g.Recognize(context.Background(), ports.AudioFile{}); err != nil {
					t.Error(err)
				}
			})
		}
		synctest.Wait()
		if g.InFlight() != 2 { // the premise: both slots are taken
			t.Fatalf("in flight %d, want both slots taken", g.InFlight())
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		if _, err := g.Recognize(ctx, ports.AudioFile{}); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("waiting: %v", err)
		}
		if g.InFlight() != 2 || eng.Calls() != 8 {
			t.Fatalf("the refused call reached the engine: in flight %d, calls %d", g.InFlight(), eng.Calls())
		}
		wg.Wait()
	})
}
