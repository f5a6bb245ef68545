package ports

import (
	"context"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// DeliveryLeases hands pending webhook deliveries to the notify workers that
// send them. A worker leases a delivery before sending it; when the worker
// dies mid-delivery, the lease runs out and any live worker takes the
// delivery over. A delivery is sent at least once: one that reached the
// receiver just before its worker died is sent again, with the same
// webhook-id (docs/security.md).
type DeliveryLeases interface {
	// LeaseDelivery leases the pending delivery id to the caller until
	// `until` if, at now, it has no lease or its lease has passed, and
	// reports whether it did. Of concurrent callers at most one gets it. A
	// delivery that is no longer pending is never leased.
	LeaseDelivery(ctx context.Context, id string, now, until time.Time) (bool, error)
	// LeaseStaleDeliveries leases until `until`, and returns oldest first,
	// up to limit pending deliveries created before createdBefore that at
	// now have no lease or one that has passed. Atomic like LeaseDelivery:
	// concurrent callers get different deliveries.
	LeaseStaleDeliveries(ctx context.Context, now, createdBefore, until time.Time, limit int) ([]domain.Delivery, error)
}
