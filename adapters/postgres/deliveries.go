package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// The delivery's columns and row mapping are shared with the other store.
var deliverySelect = sqlstore.DeliverySelect

func toDomainDelivery(row pgx.Row) (domain.Delivery, error) {
	d, err := sqlstore.ScanDelivery(row)
	return d, translate(err)
}

// BeginDelivery saves d as pending. It returns false, saving nothing, when
// the event already has a delivery; domain.ErrConflict if d.ID is taken by
// another event's delivery.
func (s *Store) BeginDelivery(ctx context.Context, d domain.Delivery) (bool, error) {
	var first bool
	d.Status = domain.DeliveryPending
	var payloadOf string
	if d.IsResend() {
		// A resend keeps no second copy of its event's payload. The first
		// delivery is never changed, so reading it apart is safe.
		var orig string
		var payload []byte
		err := s.pool.QueryRow(ctx, sqlstore.FirstDeliveryQuery+"$1", d.WebhookID()).Scan(&orig, &payload)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return false, fmt.Errorf("postgres.BeginDelivery: %w", translate(err))
		}
		d, payloadOf = sqlstore.SharedPayload(d, orig, payload)
	}
	// One round trip: a batch runs in one implicit transaction.
	// Nothing is begun for a deleted job: its webhook must not go out. The
	// share lock waits for a DeleteJob in progress, whose tombstone the
	// next statement (a new snapshot) then sees.
	b := &pgx.Batch{}
	b.Queue(`SELECT 1 FROM jobs WHERE id = $1 FOR SHARE`, string(d.DocID))
	b.Queue(sqlstore.Postgres.InsertUnlessDeleted("deliveries", sqlstore.DeliveryWriteCols)+
		" ON CONFLICT (event_id) DO NOTHING", append(sqlstore.DeliveryRow(d, payloadOf), string(d.DocID))...).Exec(func(tag pgconn.CommandTag) error {
		first = tag.RowsAffected() == 1
		return nil
	})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
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
	out, err := queryAll(ctx, s.pool, sqlstore.ScanDelivery, deliverySelect+` WHERE doc_id = $1 ORDER BY created_at, ord`, string(doc))
	if err != nil {
		return nil, fmt.Errorf("postgres.Deliveries: %w", translate(err))
	}
	return out, nil
}
