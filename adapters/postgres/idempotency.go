package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// errKeyHeld ends CreateJobOnce's transaction when the key is taken.
var errKeyHeld = errors.New("idempotency key held")

// CreateJobOnce saves j, its events and rec in one transaction unless the
// account's key is held by a live record, which it returns instead. The
// insert of the key comes first: a racing transaction inserting the same
// key waits on it in Postgres until this one commits or rolls back, then
// finds the key taken (ON CONFLICT DO NOTHING) and reads the winner's row,
// so across any number of API processes one request creates the job.
func (s *Store) CreateJobOnce(ctx context.Context, rec domain.Idempotency, j domain.Job, events []domain.Event) (domain.Idempotency, bool, error) {
	row, err := sqlstore.JobRow(j)
	if err != nil {
		return domain.Idempotency{}, false, fmt.Errorf("postgres.CreateJobOnce: %w", err)
	}
	if err := domain.ValidateEvents(events); err != nil {
		return domain.Idempotency{}, false, fmt.Errorf("postgres.CreateJobOnce: %w", err)
	}
	cutoff := toMs(rec.CreatedAt.Add(-domain.IdempotencyWindow))
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Expired keys of the account go first, so a key past the window
		// is free again and the table holds only a day of keys.
		if _, err := tx.Exec(ctx, `DELETE FROM idempotency_keys WHERE account_id = $1 AND created_at <= $2`,
			string(rec.AccountID), cutoff); err != nil {
			return translate(err)
		}
		tag, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (account_id, key, fingerprint, doc_id, response, created_at)
			VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account_id, key) DO NOTHING`,
			string(rec.AccountID), rec.Key, rec.Fingerprint, string(rec.DocID), string(rec.Response), toMs(rec.CreatedAt))
		if err != nil {
			return translate(err)
		}
		if tag.RowsAffected() == 0 {
			return errKeyHeld
		}
		b := &pgx.Batch{}
		b.Queue(shared.Job.Insert, row...)
		queueEvents(b, events)
		return translate(tx.SendBatch(ctx, b).Close())
	})
	if errors.Is(err, errKeyHeld) {
		first, err := s.idempotency(ctx, rec.AccountID, rec.Key)
		if err != nil {
			return domain.Idempotency{}, false, fmt.Errorf("postgres.CreateJobOnce: %w", err)
		}
		return first, false, nil
	}
	if err != nil {
		return domain.Idempotency{}, false, fmt.Errorf("postgres.CreateJobOnce: %w", translate(err))
	}
	if len(events) > 0 {
		s.signal()
	}
	return rec, true, nil
}

// idempotency reads the record of an account's key.
func (s *Store) idempotency(ctx context.Context, account domain.AccountID, key string) (domain.Idempotency, error) {
	r := domain.Idempotency{AccountID: account, Key: key}
	var resp string
	var at int64
	err := s.pool.QueryRow(ctx, `SELECT fingerprint, doc_id, response, created_at FROM idempotency_keys WHERE account_id = $1 AND key = $2`,
		string(account), key).Scan(&r.Fingerprint, &r.DocID, &resp, &at)
	if err != nil {
		return domain.Idempotency{}, translate(err)
	}
	r.Response, r.CreatedAt = []byte(resp), fromMs(at)
	return r, nil
}
