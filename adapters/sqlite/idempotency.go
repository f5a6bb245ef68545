package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// CreateJobOnce saves j, its events and rec in one write transaction unless
// the account's key is held by a live record, which it returns instead.
// Write transactions are serialised (BEGIN IMMEDIATE), so the look-up and
// the insert cannot be interleaved with a racing request's.
func (s *Store) CreateJobOnce(ctx context.Context, rec domain.Idempotency, j domain.Job, events []domain.Event) (domain.Idempotency, bool, error) {
	row, err := sqlstore.JobRow(j)
	if err != nil {
		return domain.Idempotency{}, false, fmt.Errorf("sqlite.CreateJobOnce: %w", err)
	}
	cutoff := toMs(rec.CreatedAt.Add(-domain.IdempotencyWindow))
	var first domain.Idempotency
	created := false
	err = s.write(ctx, func(tx *sql.Tx) error {
		// Expired keys of the account go first, so a key past the window
		// is free again and the table holds only a day of keys.
		if _, err := tx.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE account_id = ? AND created_at <= ?`,
			string(rec.AccountID), cutoff); err != nil {
			return translate(err)
		}
		var resp string
		var at int64
		err := tx.QueryRowContext(ctx, `SELECT fingerprint, doc_id, response, created_at FROM idempotency_keys WHERE account_id = ? AND key = ?`,
			string(rec.AccountID), rec.Key).Scan(&first.Fingerprint, &first.DocID, &resp, &at)
		if err == nil {
			first.AccountID, first.Key, first.Response, first.CreatedAt = rec.AccountID, rec.Key, []byte(resp), fromMs(at)
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return translate(err)
		}
		if _, err := tx.ExecContext(ctx, shared.Job.Insert, row...); err != nil {
			return translate(err)
		}
		if err := insertEvents(ctx, tx, events); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO idempotency_keys (account_id, key, fingerprint, doc_id, response, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			string(rec.AccountID), rec.Key, rec.Fingerprint, string(rec.DocID), string(rec.Response), toMs(rec.CreatedAt)); err != nil {
			return translate(err)
		}
		first, created = rec, true
		return nil
	})
	if err != nil {
		return domain.Idempotency{}, false, fmt.Errorf("sqlite.CreateJobOnce: %w", err)
	}
	if created && len(events) > 0 {
		s.signal()
	}
	return first, created, nil
}
