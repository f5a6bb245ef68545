package app_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/eventually"
)

type publisher struct {
	mu   sync.Mutex
	got  []domain.Event
	fail error
}

func (p *publisher) Publish(_ context.Context, evs []domain.Event) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return p.fail
	}
	p.got = append(p.got, evs...)
	return nil
}

func TestRelayPublishesInCommitOrderAndKeepsWhatFailed(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	a := w.newJob(p, `{"type":"single_voice"}`)
	w.put(a.DocID, "MP3 1 1")
	pub := &publisher{fail: errors.New("brokers down")}
	r := app.NewRelay(w.store, pub, w.clock, nil)
	r.Lease = time.Second
	if _, err := r.Once(w.ctx); err == nil {
		t.Fatal("publish error swallowed")
	}
	pub.fail = nil
	w.clock.Add(2 * time.Second) // the failed claim's lease ran out
	n, err := r.Once(w.ctx)
	if err != nil || n != 3 {
		t.Fatalf("relayed %d: %v", n, err)
	}
	want := []string{"/job.status/uploading", "/audio.uploaded", "/job.status/processing"}
	for i, ev := range pub.got {
		if ev.ID != string(a.DocID)+want[i] {
			t.Fatalf("event %d = %s", i, ev.ID)
		}
	}
	if n, _ := r.Once(w.ctx); n != 0 {
		t.Fatalf("published twice: %d", n)
	}
}

func TestRelayRunWakesOnCommit(t *testing.T) {
	w := newWorld(t)
	pub := &publisher{}
	r := app.NewRelay(w.store, pub, w.clock, nil)
	r.Interval = time.Hour // only the commit signal can wake it
	ctx, cancel := context.WithCancel(w.ctx)
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	p := w.account(domain.PlanBusiness, 60)
	w.newJob(p, `{"type":"single_voice"}`)
	eventually.True(t, 5*time.Second, "the relay woken by the commit signal", func() bool {
		pub.mu.Lock()
		defer pub.mu.Unlock()
		return len(pub.got) == 1
	})
	cancel()
	<-done
}

// hangingPublisher blocks until its context ends, as a producer does when
// no broker answers.
type hangingPublisher struct{}

func (hangingPublisher) Publish(ctx context.Context, _ []domain.Event) error {
	<-ctx.Done()
	return ctx.Err()
}

func TestRelayGivesUpAPublishThatOutlastsItsLease(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	a := w.newJob(p, `{"type":"single_voice"}`)
	w.put(a.DocID, "MP3 1 1")
	r := app.NewRelay(w.store, hangingPublisher{}, w.clock, nil)
	r.Lease = 50 * time.Millisecond
	if _, err := r.Once(w.ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a publish hanging past the lease: %v, want it given up", err)
	}
	w.clock.Add(time.Second) // the lease ran out
	pub := &publisher{}
	if n, err := app.NewRelay(w.store, pub, w.clock, nil).Once(w.ctx); err != nil || n != 3 {
		t.Fatalf("after the hung publish another relay published %d: %v, want the 3 records", n, err)
	}
}
