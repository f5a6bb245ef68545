package app_test

import (
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// TestNotifyTakesOverDeliveriesOfDeadWorkers: a delivery leased by a worker
// that died is left alone while the lease holds and sent by a live worker
// once it passed, with the same webhook-id; one begun but never leased is
// sent after TakeOverAfter; one a live worker holds is never sent twice.
func TestNotifyTakesOverDeliveriesOfDeadWorkers(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	w.updateAccount(p.Account.ID, app.AccountChanges{WebhookURL: ptr("https://hooks.example/h"), WebhookSecret: ptr("s")})
	now := w.clock.Now()
	dead := domain.Delivery{ID: "d-dead", EventID: "ev-dead", DocID: "doc-1", AccountID: p.Account.ID, EventType: domain.EventTranscriptReady,
		URL: "https://hooks.example/h", Payload: []byte(`{}`), Status: domain.DeliveryPending, CreatedAt: now}
	unleased := dead
	unleased.ID, unleased.EventID, unleased.DocID = "d-unleased", "ev-unleased", "doc-2"
	for _, d := range []domain.Delivery{dead, unleased} {
		if _, err := w.store.BeginDelivery(w.ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	// The worker that began dead leased it, then died before sending.
	if ok, err := w.store.LeaseDelivery(w.ctx, dead.ID, now, now.Add(w.notify.LeaseFor)); !ok || err != nil {
		t.Fatalf("lease: %v %v", ok, err)
	}

	take := func() int {
		t.Helper()
		n, err := w.notify.TakeOver(w.ctx)
		if err != nil {
			t.Fatal(err)
		}
		w.notify.Wait()
		return n
	}
	if n := take(); n != 0 || len(w.sender.Requests()) != 0 {
		t.Fatalf("at once: %d taken over, %d sent; want none", n, len(w.sender.Requests()))
	}
	w.clock.Add(w.notify.TakeOverAfter + time.Second)
	if n := take(); n != 1 || len(w.sender.Requests()) != 1 || w.sender.Requests()[0].EventID != unleased.WebhookID() {
		t.Fatalf("after TakeOverAfter: %d taken over, sent %v; want the never-leased one", n, w.sender.Requests())
	}
	w.clock.Add(w.notify.LeaseFor)
	if n := take(); n != 1 || len(w.sender.Requests()) != 2 || w.sender.Requests()[1].EventID != dead.WebhookID() {
		t.Fatalf("after the lease: %d taken over, sent %v; want the dead worker's", n, w.sender.Requests())
	}
	w.clock.Add(time.Hour)
	if n := take(); n != 0 || len(w.sender.Requests()) != 2 {
		t.Fatalf("delivered ones were taken over again: %d", n)
	}
	for _, doc := range []domain.DocID{"doc-1", "doc-2"} {
		ds, _ := w.store.Deliveries(w.ctx, doc)
		if len(ds) != 1 || ds[0].Status == domain.DeliveryPending {
			t.Fatalf("%s deliveries after the takeover: %+v", doc, ds)
		}
	}
}
