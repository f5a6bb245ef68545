package app

import (
	"context"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// deliveryStore is what the notify stage keeps its deliveries in.
type deliveryStore interface {
	ports.DeliveryStore
	ports.DeliveryLeases
}

// Defaults of the delivery leases (docs/security.md).
const (
	DefaultDeliveryLease = time.Minute
	DefaultTakeOverEvery = 5 * time.Second
	DefaultTakeOverAfter = 10 * time.Second
)

// leaseAndDispatch leases a delivery just begun and sends it. Failing to
// lease it sends nothing: another worker has it, or the lease could not be
// written and a worker's takeover will send it once TakeOverAfter passed.
func (uc *DeliverEvents) leaseAndDispatch(ctx context.Context, d domain.Delivery, secret string) {
	now := uc.clock.Now()
	ok, err := uc.deliveries.LeaseDelivery(ctx, d.ID, now, now.Add(uc.LeaseFor))
	if err != nil {
		uc.log.Warn("lease webhook delivery; a worker's takeover will send it", "docId", d.DocID, "err", err)
		return
	}
	if ok {
		uc.dispatch(d, secret)
	}
}

// TakeOver sends the pending deliveries no live worker holds: their worker
// died mid-delivery (the lease passed) or between beginning and leasing
// them (never leased, older than TakeOverAfter). It returns how many it
// started.
func (uc *DeliverEvents) TakeOver(ctx context.Context) (int, error) {
	now := uc.clock.Now()
	ds, err := uc.deliveries.LeaseStaleDeliveries(ctx, now, now.Add(-uc.TakeOverAfter), now.Add(uc.LeaseFor), 100)
	if err != nil {
		return 0, fmt.Errorf("take over deliveries: %w", err)
	}
	for _, d := range ds {
		acct, err := uc.accounts.GetAccount(ctx, d.AccountID)
		if err != nil {
			uc.log.Warn("take over delivery: account", "docId", d.DocID, "err", err)
			continue
		}
		uc.log.Info("webhook delivery taken over", "docId", d.DocID, "event", d.EventType)
		uc.dispatch(d, acct.WebhookSecret)
	}
	return len(ds), nil
}

// RunTakeOver calls TakeOver at once and then every TakeOverEvery until ctx
// ends: a worker that starts, and every live one after, sends what dead
// workers left.
func (uc *DeliverEvents) RunTakeOver(ctx context.Context) {
	t := time.NewTicker(uc.TakeOverEvery)
	defer t.Stop()
	for {
		if n, err := uc.TakeOver(ctx); err != nil && ctx.Err() == nil {
			uc.log.Warn("take over deliveries", "err", err)
		} else if n == 100 {
			continue // more are waiting
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
