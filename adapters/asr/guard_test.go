package asr

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
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

func TestGuardOpensTheCircuitAndBacksOff(t *testing.T) {
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
	// After OpenFor one trial goes through; it fails (the 4th failure) and
	// the circuit opens again; the next trial succeeds and closes it.
	time.Sleep(60 * time.Millisecond)
	if _, err := g.Recognize(ctx, ports.AudioFile{}); errors.Is(err, domain.ErrBackOff) || err == nil {
		t.Fatalf("trial: %v", err)
	}
	time.Sleep(60 * time.Millisecond)
	g.Recognize(ctx, ports.AudioFile{}) // 5th failure
	time.Sleep(60 * time.Millisecond)
	if rec, err := g.Recognize(ctx, ports.AudioFile{}); err != nil || rec.Text != "Բարև" || g.State() != 0 {
		t.Fatalf("recovered: %v %v state %d", rec, err, g.State())
	}
	if observed.Load() != 6 || failed.Load() != 5 {
		t.Fatalf("observed %d, failed %d", observed.Load(), failed.Load())
	}
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
	eng := &stubEngine{delay: 20 * time.Millisecond}
	g := Guard(eng, GuardConfig{Concurrency: 2})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := g.Recognize(context.Background(), ports.AudioFile{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if p := eng.peak.Load(); p != 2 {
		t.Fatalf("peak in flight %d, want 2", p)
	}
	// A job whose context ends while it waits for a slot gives up.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	eng.delay = 100 * time.Millisecond
	go g.Recognize(context.Background(), ports.AudioFile{})
	go g.Recognize(context.Background(), ports.AudioFile{})
	time.Sleep(5 * time.Millisecond)
	if _, err := g.Recognize(ctx, ports.AudioFile{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting: %v", err)
	}
}
