package apptest

import (
	"context"
	"sort"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// leasable reports whether delivery d can be leased at now. Callers hold mu.
func (s *Store) leasable(d domain.Delivery, now time.Time) bool {
	until, ok := s.leases[d.ID]
	return d.Status == domain.DeliveryPending && (!ok || !until.After(now))
}

func (s *Store) lease(id string, until time.Time) {
	if s.leases == nil {
		s.leases = map[string]time.Time{}
	}
	s.leases[id] = until
}

// LeaseDelivery leases the pending delivery id until `until` when it has no
// lease, or one that has passed, at now.
func (s *Store) LeaseDelivery(_ context.Context, id string, now, until time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.deliveries {
		if d.ID == id && s.leasable(d, now) {
			s.lease(id, until)
			return true, nil
		}
	}
	return false, nil
}

// LeaseStaleDeliveries leases and returns, oldest first, up to limit pending
// deliveries created before createdBefore whose lease is absent or passed.
func (s *Store) LeaseStaleDeliveries(_ context.Context, now, createdBefore, until time.Time, limit int) ([]domain.Delivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []domain.Delivery
	for _, d := range s.deliveries {
		if d.CreatedAt.Before(createdBefore) && s.leasable(d, now) {
			out = append(out, copyDelivery(d))
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].CreatedAt.Before(out[b].CreatedAt) })
	if len(out) > limit {
		out = out[:limit]
	}
	for _, d := range out {
		s.lease(d.ID, until)
	}
	return out, nil
}
