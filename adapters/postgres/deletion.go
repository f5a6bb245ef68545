package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/domain"
)

// DeleteJob locks the job and its account, applies fn, and removes the job
// and everything written about it, keeping its tombstone, in one
// transaction. A stage updating the job at the same moment waits for the
// lock and then finds no job.
func (s *Store) DeleteJob(ctx context.Context, id domain.DocID, fn func(*domain.Job, *domain.Account) (domain.Tombstone, []domain.Event, error)) (domain.Job, error) {
	var fnErr error
	var old domain.Job
	var wrote bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		j, a, err := lockJob(ctx, tx, id)
		if err != nil {
			return err
		}
		old = j
		tomb, events, err := fn(&j, &a)
		if err != nil {
			fnErr = err
			return err
		}
		if err := domain.ValidateEvents(events); err != nil {
			return err
		}
		a.ID = old.AccountID
		b := &pgx.Batch{}
		b.Queue(accountUpdate, keyLast(toAccountRow(a))...)
		b.Queue(`INSERT INTO job_tombstones (doc_id, account_id, type, status, created_at, updated_at, deleted_at, reason)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			string(old.ID), string(old.AccountID), string(tomb.Type), string(tomb.Status), toMs(tomb.CreatedAt),
			toMs(tomb.UpdatedAt), toMs(tomb.DeletedAt), tomb.Reason)
		b.Queue(`DELETE FROM analyses WHERE doc_id = $1`, string(old.ID))
		b.Queue(`DELETE FROM deliveries WHERE doc_id = $1`, string(old.ID))
		b.Queue(`DELETE FROM outbox WHERE doc_id = $1`, string(old.ID))
		b.Queue(`DELETE FROM job_history WHERE doc_id = $1`, string(old.ID))
		b.Queue(`DELETE FROM jobs WHERE id = $1`, string(old.ID))
		queueEvents(b, events)
		wrote = len(events) > 0
		return translate(tx.SendBatch(ctx, b).Close())
	})
	if fnErr != nil {
		return domain.Job{}, fnErr
	}
	if err != nil {
		return domain.Job{}, fmt.Errorf("postgres.DeleteJob: %w", translate(err))
	}
	if wrote {
		s.signal()
	}
	return old, nil
}

// GetTombstone returns a deleted job's tombstone.
func (s *Store) GetTombstone(ctx context.Context, id domain.DocID) (domain.Tombstone, error) {
	var t domain.Tombstone
	var created, updated, deleted int64
	err := s.pool.QueryRow(ctx, `SELECT doc_id, account_id, type, status, created_at, updated_at, deleted_at, reason
		FROM job_tombstones WHERE doc_id = $1`, string(id)).
		Scan(&t.DocID, &t.AccountID, &t.Type, &t.Status, &created, &updated, &deleted, &t.Reason)
	if err != nil {
		return domain.Tombstone{}, fmt.Errorf("postgres.GetTombstone: %s: %w", id, translate(err))
	}
	t.CreatedAt, t.UpdatedAt, t.DeletedAt = fromMs(created), fromMs(updated), fromMs(deleted)
	return t, nil
}

// SetRetentionDays sets the account's retention rule; 0 removes it.
func (s *Store) SetRetentionDays(ctx context.Context, account domain.AccountID, days int) error {
	var err error
	if days <= 0 {
		var one int
		err = s.pool.QueryRow(ctx, `SELECT 1 FROM accounts WHERE id = $1`, string(account)).Scan(&one)
		if err == nil {
			_, err = s.pool.Exec(ctx, `DELETE FROM account_retention WHERE account_id = $1`, string(account))
		}
	} else {
		// The foreign key refuses an account that does not exist.
		_, err = s.pool.Exec(ctx, `INSERT INTO account_retention (account_id, days) VALUES ($1, $2)
			ON CONFLICT (account_id) DO UPDATE SET days = excluded.days`, string(account), days)
	}
	if err != nil {
		return fmt.Errorf("postgres.SetRetentionDays: account %s: %w", account, translate(err))
	}
	return nil
}

// RetentionDays returns the account's retention rule, 0 when none is set.
func (s *Store) RetentionDays(ctx context.Context, account domain.AccountID) (int, error) {
	var days int
	err := s.pool.QueryRow(ctx, `SELECT days FROM account_retention WHERE account_id = $1`, string(account)).Scan(&days)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("postgres.RetentionDays: %w", translate(err))
	}
	return days, nil
}

// ExpiredJobs lists jobs older than their account's retention, oldest first.
func (s *Store) ExpiredJobs(ctx context.Context, now time.Time, limit int) ([]domain.Job, error) {
	rows, err := s.pool.Query(ctx, jobSelect+`
		WHERE account_id IN (SELECT account_id FROM account_retention)
		  AND created_at < $1 - (SELECT days FROM account_retention r WHERE r.account_id = jobs.account_id)::bigint * 86400000
		ORDER BY created_at, id
		LIMIT $2`, toMs(now), limit)
	out, err := scanJobs(rows, err)
	if err != nil {
		return nil, fmt.Errorf("postgres.ExpiredJobs: %w", translate(err))
	}
	return out, nil
}

// scanJobs reads every job of a query's rows (err is the query's) and
// closes them.
func scanJobs(rows pgx.Rows, err error) ([]domain.Job, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []domain.Job
	for rows.Next() {
		j, err := toDomainJob(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, rows.Err()
}
