package app_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// While Run runs, a key's last-used time is not written by the request
// but collected, and written by the next flush (here, Run's last one as
// its context ends).
func TestLastUsedWrittenInBatches(t *testing.T) {
	w := newWorld(t)
	a, raw, _ := w.accounts.Handle(w.ctx, "acme", domain.PlanBusiness, 1)
	auth := app.NewAuthenticate(w.store, w.clock)
	auth.KeyTTL = 5 * time.Second
	ctx, cancel := context.WithCancel(w.ctx)
	done := make(chan error, 1)
	go func() { done <- auth.Run(ctx) }()
	lastUsed := func() *time.Time {
		keys, err := w.store.ListAPIKeys(w.ctx, a.ID)
		if err != nil || len(keys) != 1 {
			t.Fatalf("keys %v, %v", keys, err)
		}
		return keys[0].LastUsedAt
	}
	// Run starts collecting at once, but asynchronously: wait until a
	// request's touch is collected rather than written.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := auth.Handle(w.ctx, "Bearer "+raw); err != nil {
			t.Fatal(err)
		}
		if lu := lastUsed(); lu == nil || lu.Before(w.clock.Now()) {
			break // this request's touch was not written
		}
		if time.Now().After(deadline) {
			t.Fatal("every touch was written by its request; none was collected")
		}
		// A written touch holds the key for a minute: move on a minute.
		w.clock.Add(time.Minute)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := lastUsed(); got == nil || !got.Equal(w.clock.Now()) {
		t.Fatalf("last used %v after the final flush, want %v", got, w.clock.Now())
	}
}

// keyToucher records the batches it is given and writes them key by key.
type keyToucher struct {
	store interface {
		TouchAPIKey(context.Context, string, time.Time) error
	}
	mu      sync.Mutex
	batches []map[string]time.Time
}

func (k *keyToucher) TouchAPIKeys(ctx context.Context, at map[string]time.Time) error {
	k.mu.Lock()
	k.batches = append(k.batches, at)
	k.mu.Unlock()
	for id, t := range at {
		if err := k.store.TouchAPIKey(ctx, id, t); err != nil {
			return err
		}
	}
	return nil
}

func (k *keyToucher) gotBoth() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.batches) > 0 && len(k.batches[len(k.batches)-1]) == 2
}

// Given the store's batch write (WithKeyTouches), a flush writes the
// collected last-used times in one call.
func TestLastUsedBatchGoesToTheKeyToucher(t *testing.T) {
	w := newWorld(t)
	_, raw, _ := w.accounts.Handle(w.ctx, "acme", domain.PlanBusiness, 1)
	_, raw2, _ := w.accounts.Handle(w.ctx, "beta", domain.PlanBusiness, 1)
	touches := &keyToucher{store: w.store}
	auth := app.NewAuthenticate(w.store, w.clock, app.WithKeyTouches(touches))
	ctx, cancel := context.WithCancel(w.ctx)
	done := make(chan error, 1)
	go func() { done <- auth.Run(ctx) }()
	// Run collects asynchronously: authenticate (a minute apart, so that
	// a touch written by its request does not hold the key) until a Run
	// flush has both keys to write.
	deadline := time.Now().Add(10 * time.Second)
	for !touches.gotBoth() {
		for _, k := range []string{raw, raw2} {
			if _, err := auth.Handle(w.ctx, "Bearer "+k); err != nil {
				t.Fatal(err)
			}
		}
		auth.Flush(w.ctx)
		if time.Now().After(deadline) {
			t.Fatal("no batch of both keys reached the toucher")
		}
		w.clock.Add(time.Minute)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
