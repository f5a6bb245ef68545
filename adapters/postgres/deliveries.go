package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/domain"
)

const deliverySelect = `SELECT id, event_id, doc_id, account_id, event_type, url, payload, status, http_status,
	latency_ms, error, created_at, attempted_at FROM deliveries`

func toDomainDelivery(row pgx.Row) (domain.Delivery, error) {
	var d domain.Delivery
	var created int64
	var attempted *int64
	err := row.Scan(&d.ID, &d.EventID, &d.DocID, &d.AccountID, &d.EventType, &d.URL, &d.Payload, &d.Status,
		&d.HTTPStatus, &d.LatencyMs, &d.Error, &created, &attempted)
	if err != nil {
		return domain.Delivery{}, translate(err)
	}
	d.CreatedAt, d.AttemptedAt = fromMs(created), fromNullMs(attempted)
	return d, nil
}

// BeginDelivery saves d as pending. It returns false, saving nothing, when
// the event already has a delivery; domain.ErrConflict if d.ID is taken by
// another event's delivery.
func (s *Store) BeginDelivery(ctx context.Context, d domain.Delivery) (bool, error) {
	var first bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Nothing is begun for a deleted job: its webhook must not go out.
		// The share lock waits for a DeleteJob in progress, whose tombstone
		// the next statement then sees.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM jobs WHERE id = $1 FOR SHARE`, string(d.DocID)); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO deliveries (id, event_id, doc_id, account_id, event_type, url,
				payload, status, http_status, latency_ms, error, created_at, attempted_at)
			SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13
			WHERE NOT EXISTS (SELECT 1 FROM job_tombstones WHERE doc_id = $3)
			ON CONFLICT (event_id) DO NOTHING`,
			d.ID, d.EventID, string(d.DocID), string(d.AccountID), d.EventType, d.URL, d.Payload,
			domain.DeliveryPending, d.HTTPStatus, d.LatencyMs, d.Error, toMs(d.CreatedAt), toNullMs(d.AttemptedAt))
		first = tag.RowsAffected() == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("postgres.BeginDelivery: %w", translate(err))
	}
	return first, nil
}

// FinishDelivery saves the outcome (status, HTTP status, latency, error,
// attempt time) of the delivery with d.ID.
func (s *Store) FinishDelivery(ctx context.Context, d domain.Delivery) error {
	tag, err := s.pool.Exec(ctx, `UPDATE deliveries
		SET status = $1, http_status = $2, latency_ms = $3, error = $4, attempted_at = $5
		WHERE id = $6`, d.Status, d.HTTPStatus, d.LatencyMs, d.Error, toNullMs(d.AttemptedAt), d.ID)
	if err == nil {
		err = oneRow(tag, "delivery "+d.ID)
	}
	if err != nil {
		return fmt.Errorf("postgres.FinishDelivery: %w", translate(err))
	}
	return nil
}

// Deliveries lists a job's deliveries, oldest first.
func (s *Store) Deliveries(ctx context.Context, doc domain.DocID) ([]domain.Delivery, error) {
	out, err := s.queryDeliveries(ctx, deliverySelect+` WHERE doc_id = $1 ORDER BY created_at, ord`, string(doc))
	if err != nil {
		return nil, fmt.Errorf("postgres.Deliveries: %w", translate(err))
	}
	return out, nil
}

// PendingDeliveries lists pending deliveries created before olderThan,
// oldest first.
func (s *Store) PendingDeliveries(ctx context.Context, olderThan time.Time, limit int) ([]domain.Delivery, error) {
	out, err := s.queryDeliveries(ctx, deliverySelect+` WHERE status = $1 AND created_at < $2
		ORDER BY created_at, ord LIMIT $3`, domain.DeliveryPending, toMs(olderThan), limit)
	if err != nil {
		return nil, fmt.Errorf("postgres.PendingDeliveries: %w", translate(err))
	}
	return out, nil
}

func (s *Store) queryDeliveries(ctx context.Context, query string, args ...any) ([]domain.Delivery, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []domain.Delivery
	for rows.Next() {
		d, err := toDomainDelivery(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
