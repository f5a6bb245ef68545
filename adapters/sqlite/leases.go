package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// LeaseDelivery leases the pending delivery id until `until` when it has no
// lease, or one that has passed, at now.
func (s *Store) LeaseDelivery(ctx context.Context, id string, now, until time.Time) (bool, error) {
	var leased bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE deliveries SET lease_until = ?
			WHERE id = ? AND status = ? AND (lease_until IS NULL OR lease_until <= ?)`,
			toMs(until), id, domain.DeliveryPending, toMs(now))
		if err != nil {
			return translate(err)
		}
		n, err := res.RowsAffected()
		leased = n == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("sqlite.LeaseDelivery: %w", err)
	}
	return leased, nil
}

// LeaseStaleDeliveries leases and returns, oldest first, up to limit pending
// deliveries created before createdBefore whose lease is absent or passed.
// The write transaction makes the selection and the leasing one step.
func (s *Store) LeaseStaleDeliveries(ctx context.Context, now, createdBefore, until time.Time, limit int) ([]domain.Delivery, error) {
	var out []domain.Delivery
	err := s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, deliverySelect+` WHERE status = ? AND created_at < ?
			AND (lease_until IS NULL OR lease_until <= ?) ORDER BY created_at, rowid LIMIT ?`,
			domain.DeliveryPending, toMs(createdBefore), toMs(now), limit)
		if err != nil {
			return translate(err)
		}
		for rows.Next() {
			d, err := toDomainDelivery(rows)
			if err != nil {
				rows.Close()
				return err
			}
			out = append(out, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return translate(err)
		}
		for _, d := range out {
			if _, err := tx.ExecContext(ctx, `UPDATE deliveries SET lease_until = ? WHERE id = ?`, toMs(until), d.ID); err != nil {
				return translate(err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite.LeaseStaleDeliveries: %w", err)
	}
	return out, nil
}
