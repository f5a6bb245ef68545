package porttest

import (
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// leaseTests are the contract of ports.DeliveryLeases.
var leaseTests = []subtest{
	{"LeaseDeliveryOnceUntilItPasses", func(t *testing.T, s Stores) {
		must(s.BeginDelivery(ctxOf(t), delivery("dl-1", "e-1", "doc-1", t0)))
		if !must(s.LeaseDelivery(ctxOf(t), "dl-1", t0, t0.Add(time.Minute))) {
			t.Fatal("a new delivery was not leased")
		}
		if must(s.LeaseDelivery(ctxOf(t), "dl-1", t0.Add(59*time.Second), t0.Add(2*time.Minute))) {
			t.Fatal("a delivery was leased twice while the first lease held")
		}
		if !must(s.LeaseDelivery(ctxOf(t), "dl-1", t0.Add(time.Minute), t0.Add(2*time.Minute))) {
			t.Fatal("a delivery whose lease passed was not leased again")
		}
		if must(s.LeaseDelivery(ctxOf(t), "no-such", t0, t0.Add(time.Minute))) {
			t.Fatal("an unknown delivery was leased")
		}
	}},
	{"FinishedDeliveriesAreNeverLeased", func(t *testing.T, s Stores) {
		d := delivery("dl-1", "e-1", "doc-1", t0)
		must(s.BeginDelivery(ctxOf(t), d))
		at := t0.Add(time.Second)
		d.Status, d.HTTPStatus, d.AttemptedAt = domain.DeliveryDelivered, 200, &at
		noErr(t, s.FinishDelivery(ctxOf(t), d))
		if must(s.LeaseDelivery(ctxOf(t), "dl-1", t0.Add(time.Hour), t0.Add(2*time.Hour))) {
			t.Fatal("a delivered delivery was leased")
		}
		if got := must(s.LeaseStaleDeliveries(ctxOf(t), t0.Add(time.Hour), t0.Add(time.Hour), t0.Add(2*time.Hour), 10)); len(got) != 0 {
			t.Fatalf("LeaseStaleDeliveries returned a delivered delivery: %s", dump(got))
		}
	}},
	{"LeaseStaleDeliveries", func(t *testing.T, s Stores) {
		old1 := delivery("dl-1", "e-1", "doc-1", t0)
		old2 := delivery("dl-2", "e-2", "doc-2", t0.Add(time.Second))
		held := delivery("dl-3", "e-3", "doc-3", t0.Add(2*time.Second))
		fresh := delivery("dl-4", "e-4", "doc-4", t0.Add(time.Minute))
		for _, d := range []domain.Delivery{old1, old2, held, fresh} {
			must(s.BeginDelivery(ctxOf(t), d))
		}
		now := t0.Add(30 * time.Second)
		must(s.LeaseDelivery(ctxOf(t), held.ID, now, now.Add(time.Minute))) // its worker is alive
		got := must(s.LeaseStaleDeliveries(ctxOf(t), now, now, now.Add(time.Minute), 10))
		if len(got) != 2 {
			t.Fatalf("LeaseStaleDeliveries: %s, want %s and %s", dump(got), old1.ID, old2.ID)
		}
		wantDelivery(t, got[0], old1)
		wantDelivery(t, got[1], old2)
		if again := must(s.LeaseStaleDeliveries(ctxOf(t), now, now, now.Add(time.Minute), 10)); len(again) != 0 {
			t.Fatalf("leased deliveries were returned again: %s", dump(again))
		}
		later := now.Add(2 * time.Minute) // every lease has passed; fresh is now old enough
		if got := must(s.LeaseStaleDeliveries(ctxOf(t), later, later, later.Add(time.Minute), 3)); len(got) != 3 || got[0].ID != old1.ID {
			t.Fatalf("after the leases passed, limit 3: %s", dump(got))
		}
	}},
	{"ResendsShareTheirEventsPayload", func(t *testing.T, s Stores) {
		// A resend of the same bytes is stored without its own copy (SQL
		// stores) and still reads back whole, from the log and from a
		// takeover; one of other bytes (a new secret) keeps its own.
		first := delivery("dl-1", "e-1", "doc-1", t0)
		must(s.BeginDelivery(ctxOf(t), first))
		same := first.Resend("dl-2", "https://hooks.example/new", "", t0.Add(time.Second))
		same.Payload = first.Payload
		must(s.BeginDelivery(ctxOf(t), same))
		other := first.Resend("dl-3", first.URL, "", t0.Add(2*time.Second))
		other.Payload = []byte(`{"event_type":"transcript_ready","secret":"whsec_new"}`)
		must(s.BeginDelivery(ctxOf(t), other))
		got := must(s.Deliveries(ctxOf(t), "doc-1"))
		if len(got) != 3 {
			t.Fatalf("Deliveries: %s, want 3", dump(got))
		}
		for i, want := range []domain.Delivery{first, same, other} {
			if got[i].ID != want.ID || string(got[i].Payload) != string(want.Payload) || got[i].URL != want.URL {
				t.Errorf("delivery %s read back with payload %q, URL %s; want %q, %s", want.ID, got[i].Payload, got[i].URL, want.Payload, want.URL)
			}
		}
		now := t0.Add(time.Minute)
		leased := must(s.LeaseStaleDeliveries(ctxOf(t), now, now, now.Add(time.Minute), 10))
		for _, d := range leased {
			if d.ID == same.ID && string(d.Payload) != string(same.Payload) {
				t.Errorf("a taken-over resend has payload %q, want %q", d.Payload, same.Payload)
			}
		}
		if len(leased) != 3 {
			t.Errorf("LeaseStaleDeliveries: %s, want 3", dump(leased))
		}
	}},
	{"ConcurrentLeasesGoToOneWorker", func(t *testing.T, s Stores) {
		const n = 20
		for i := range n {
			must(s.BeginDelivery(ctxOf(t), delivery("dl-"+string(rune('a'+i)), "e-"+string(rune('a'+i)), "doc", t0)))
		}
		now := t0.Add(time.Minute)
		var wg sync.WaitGroup
		seen := make(chan string, 8*n)
		for range 8 {
			wg.Add(2)
			go func() {
				defer wg.Done()
				ds, err := s.LeaseStaleDeliveries(ctxOf(t), now, now, now.Add(time.Minute), 3)
				if err != nil {
					t.Error(err)
				}
				for _, d := range ds {
					seen <- d.ID
				}
			}()
			go func() {
				defer wg.Done()
				if ok, err := s.LeaseDelivery(ctxOf(t), "dl-a", now, now.Add(time.Minute)); err != nil {
					t.Error(err)
				} else if ok {
					seen <- "dl-a"
				}
			}()
		}
		wg.Wait()
		close(seen)
		count := map[string]int{}
		for id := range seen {
			count[id]++
		}
		for id, c := range count {
			if c != 1 {
				t.Errorf("delivery %s leased %d times at once", id, c)
			}
		}
	}},
}
