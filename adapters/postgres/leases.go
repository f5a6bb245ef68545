package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// LeaseDelivery leases the pending delivery id until `until` when it has no
// lease, or one that has passed, at now. The conditional update is atomic.
func (s *Store) LeaseDelivery(ctx context.Context, id string, now, until time.Time) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE deliveries SET lease_until = $1
		WHERE id = $2 AND status = $3 AND (lease_until IS NULL OR lease_until <= $4)`,
		toMs(until), id, domain.DeliveryPending, toMs(now))
	if err != nil {
		return false, fmt.Errorf("postgres.LeaseDelivery: %w", translate(err))
	}
	return tag.RowsAffected() == 1, nil
}

// LeaseStaleDeliveries leases and returns, oldest first, up to limit pending
// deliveries created before createdBefore whose lease is absent or passed.
// Rows another worker is leasing at the same moment are skipped (SKIP
// LOCKED), so concurrent callers get different deliveries.
func (s *Store) LeaseStaleDeliveries(ctx context.Context, now, createdBefore, until time.Time, limit int) ([]domain.Delivery, error) {
	rows, err := s.pool.Query(ctx, `UPDATE deliveries SET lease_until = $1
		WHERE id IN (SELECT id FROM deliveries WHERE status = $2 AND created_at < $3
			AND (lease_until IS NULL OR lease_until <= $4) ORDER BY created_at, ord LIMIT $5 FOR UPDATE SKIP LOCKED)
		RETURNING `+strings.Join(sqlstore.DeliveryReadCols, ", "),
		toMs(until), domain.DeliveryPending, toMs(createdBefore), toMs(now), limit)
	if err != nil {
		return nil, fmt.Errorf("postgres.LeaseStaleDeliveries: %w", translate(err))
	}
	defer rows.Close()
	var out []domain.Delivery
	for rows.Next() {
		d, err := toDomainDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres.LeaseStaleDeliveries: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres.LeaseStaleDeliveries: %w", translate(err))
	}
	// RETURNING keeps no order.
	slices.SortFunc(out, func(a, b domain.Delivery) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}
