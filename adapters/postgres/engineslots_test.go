package postgres

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/internal/eventually"
)

// Issue 28: two worker processes (two stores on one database) share a
// 4-slot engine: together they never hold more than 4 leases, and they
// use all 4. Before, each process had its own 4.
func TestEngineSlotsAreSharedByEveryProcess(t *testing.T) {
	url := pgtest.URL(t)
	var procs []*EngineSlots
	for range 2 {
		e, err := openURL(t, url).EngineSlots(context.Background(), "engine:8000", 4, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(e.Close)
		procs = append(procs, e)
	}
	var held, peak, granted atomic.Int32
	var wg sync.WaitGroup
	for i := range 12 { // 6 senders a process, each taking 5 leases in turn
		e := procs[i%2]
		wg.Go(func() {
			for got := 0; got < 5; {
				release, ok, err := e.TryAcquire(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					// Every slot taken: try again shortly, as the
					// scheduler's lease loop does (asr.leaseRetry).
					time.Sleep(2 * time.Millisecond)
					continue
				}
				n := held.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(10 * time.Millisecond) // a request's time at the engine: leases overlap
				held.Add(-1)
				release()
				granted.Add(1)
				got++
			}
		})
	}
	wg.Wait()
	if peak.Load() != 4 || granted.Load() != 60 {
		t.Fatalf("peak %d leases at once (want the engine's 4), %d granted", peak.Load(), granted.Load())
	}
	if n, err := procs[0].InUse(context.Background()); err != nil || n != 0 {
		t.Fatalf("in use after every release: %d, %v", n, err)
	}
}

// A process killed with requests in flight stops renewing its leases: the
// slots are free again once its leases run out, and not before.
func TestEngineSlotsOfAKilledProcessComeBack(t *testing.T) {
	url := pgtest.URL(t)
	const ttl = 600 * time.Millisecond
	dead, err := openURL(t, url).EngineSlots(context.Background(), "engine", 2, ttl)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, ok, err := dead.TryAcquire(context.Background()); !ok || err != nil {
			t.Fatalf("lease: %v %v", ok, err)
		}
	}
	close(dead.stop) // killed: no more renewals, no releases
	<-dead.done
	killed := time.Now()

	live, err := openURL(t, url).EngineSlots(context.Background(), "engine", 2, ttl)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(live.Close)
	if _, ok, _ := live.TryAcquire(context.Background()); ok {
		t.Fatal("a slot of a process just killed was leased again before its lease ran out")
	}
	eventually.True(t, 5*ttl-time.Since(killed), "the killed process's slots back", func() bool {
		_, ok, err := live.TryAcquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return ok
	})
	if n, _ := live.InUse(context.Background()); n < 1 {
		t.Fatalf("in use %d", n)
	}
}

// Leases are renewed while their request runs: a request longer than the
// lease keeps its slot.
func TestEngineSlotsRenewWhileHeld(t *testing.T) {
	url := pgtest.URL(t)
	const ttl = 300 * time.Millisecond
	a, err := openURL(t, url).EngineSlots(context.Background(), "engine", 1, ttl)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	b, err := openURL(t, url).EngineSlots(context.Background(), "engine", 1, ttl)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	release, ok, err := a.TryAcquire(context.Background())
	if !ok || err != nil {
		t.Fatalf("lease: %v %v", ok, err)
	}
	// Time is the premise: a lease outlives its TTL only by being renewed
	// in Postgres, whose clock no fake can move; so the other process
	// tries for four TTLs of real time.
	for end := time.Now().Add(4 * ttl); time.Now().Before(end); time.Sleep(30 * time.Millisecond) {
		if _, ok, _ := b.TryAcquire(context.Background()); ok {
			t.Fatal("a held and renewed slot was leased to another process")
		}
	}
	release()
	if _, ok, _ := b.TryAcquire(context.Background()); !ok {
		t.Fatal("a released slot was not leased")
	}
}
