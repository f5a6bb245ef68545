package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// The delivery's columns and row mapping are shared with the other store.
var deliverySelect = sqlstore.DeliverySelect

func toDomainDelivery(sc scanner) (domain.Delivery, error) {
	d, err := sqlstore.ScanDelivery(sc)
	return d, translate(err)
}

// BeginDelivery saves d as pending. It returns false, saving nothing, when
// the event already has a delivery; domain.ErrConflict if d.ID is taken by
// another event's delivery.
func (s *Store) BeginDelivery(ctx context.Context, d domain.Delivery) (bool, error) {
	var first bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		// Nothing is begun for a deleted job: its webhook must not go out.
		d.Status = domain.DeliveryPending
		var payloadOf string
		if d.IsResend() {
			// A resend keeps no second copy of its event's payload.
			var first string
			var payload []byte
			err := tx.QueryRowContext(ctx, sqlstore.FirstDeliveryQuery+"?", d.WebhookID()).Scan(&first, &payload)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return translate(err)
			}
			d, payloadOf = sqlstore.SharedPayload(d, first, payload)
		}
		res, err := tx.ExecContext(ctx, sqlstore.SQLite.InsertUnlessDeleted("deliveries", sqlstore.DeliveryWriteCols)+
			" ON CONFLICT (event_id) DO NOTHING", append(sqlstore.DeliveryRow(d, payloadOf), string(d.DocID))...)
		if err != nil {
			return translate(err)
		}
		n, err := res.RowsAffected()
		first = n == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("sqlite.BeginDelivery: %w", err)
	}
	return first, nil
}

// FinishDelivery saves the outcome (status, HTTP status, latency, error,
// attempt time) of the delivery with d.ID.
func (s *Store) FinishDelivery(ctx context.Context, d domain.Delivery) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE deliveries
			SET status = ?, http_status = ?, latency_ms = ?, error = ?, attempted_at = ?
			WHERE id = ?`, d.Status, d.HTTPStatus, d.LatencyMs, d.Error, toNullMs(d.AttemptedAt), d.ID)
		if err != nil {
			return translate(err)
		}
		return oneRow(res, "delivery "+d.ID)
	})
	if err != nil {
		return fmt.Errorf("sqlite.FinishDelivery: %w", err)
	}
	return nil
}

// Deliveries lists a job's deliveries, oldest first.
func (s *Store) Deliveries(ctx context.Context, doc domain.DocID) ([]domain.Delivery, error) {
	out, err := queryAll(ctx, s.db, sqlstore.ScanDelivery, deliverySelect+` WHERE doc_id = ? ORDER BY created_at, rowid`, string(doc))
	if err != nil {
		return nil, fmt.Errorf("sqlite.Deliveries: %w", err)
	}
	return out, nil
}
