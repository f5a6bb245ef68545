package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// DeleteJob removes the job and everything written about it, keeping its
// tombstone, in one write transaction.
func (s *Store) DeleteJob(ctx context.Context, id domain.DocID, fn func(*domain.Job, *domain.Account) (domain.Tombstone, []domain.Event, error)) (domain.Job, error) {
	var fnErr error
	var old domain.Job
	var wrote bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		j, a, err := loadJob(ctx, tx, id)
		if err != nil {
			return err
		}
		old = j
		tomb, events, err := fn(&j, &a)
		if err != nil {
			fnErr = err
			return err
		}
		a.ID = old.AccountID
		if _, err := tx.ExecContext(ctx, accountUpdate, keyLast(toAccountRow(a))...); err != nil {
			return translate(err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_tombstones (doc_id, account_id, type, status, created_at,
			updated_at, deleted_at, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			string(old.ID), string(old.AccountID), string(tomb.Type), string(tomb.Status), toMs(tomb.CreatedAt),
			toMs(tomb.UpdatedAt), toMs(tomb.DeletedAt), tomb.Reason); err != nil {
			return translate(err)
		}
		for _, q := range []string{
			`DELETE FROM analyses WHERE doc_id = ?`,
			`DELETE FROM deliveries WHERE doc_id = ?`,
			`DELETE FROM outbox WHERE doc_id = ?`,
			`DELETE FROM job_history WHERE doc_id = ?`,
			`DELETE FROM jobs WHERE id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, q, string(old.ID)); err != nil {
				return translate(err)
			}
		}
		wrote = len(events) > 0
		return insertEvents(ctx, tx, events)
	})
	if fnErr != nil {
		return domain.Job{}, fnErr
	}
	if err != nil {
		return domain.Job{}, fmt.Errorf("sqlite.DeleteJob: %w", err)
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
	err := s.db.QueryRowContext(ctx, `SELECT doc_id, account_id, type, status, created_at, updated_at, deleted_at, reason
		FROM job_tombstones WHERE doc_id = ?`, string(id)).
		Scan(&t.DocID, &t.AccountID, &t.Type, &t.Status, &created, &updated, &deleted, &t.Reason)
	if err != nil {
		return domain.Tombstone{}, fmt.Errorf("sqlite.GetTombstone: %s: %w", id, translate(err))
	}
	t.CreatedAt, t.UpdatedAt, t.DeletedAt = fromMs(created), fromMs(updated), fromMs(deleted)
	return t, nil
}

// SetRetentionDays sets the account's retention rule; 0 removes it.
func (s *Store) SetRetentionDays(ctx context.Context, account domain.AccountID, days int) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM accounts WHERE id = ?`, string(account)).Scan(&one); err != nil {
			return fmt.Errorf("account %s: %w", account, translate(err))
		}
		if days <= 0 {
			_, err := tx.ExecContext(ctx, `DELETE FROM account_retention WHERE account_id = ?`, string(account))
			return translate(err)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO account_retention (account_id, days) VALUES (?, ?)
			ON CONFLICT (account_id) DO UPDATE SET days = excluded.days`, string(account), days)
		return translate(err)
	})
	if err != nil {
		return fmt.Errorf("sqlite.SetRetentionDays: %w", err)
	}
	return nil
}

// RetentionDays returns the account's retention rule, 0 when none is set.
func (s *Store) RetentionDays(ctx context.Context, account domain.AccountID) (int, error) {
	var days int
	err := s.db.QueryRowContext(ctx, `SELECT days FROM account_retention WHERE account_id = ?`, string(account)).Scan(&days)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("sqlite.RetentionDays: %w", translate(err))
	}
	return days, nil
}

// ExpiredJobs lists jobs older than their account's retention, oldest first.
func (s *Store) ExpiredJobs(ctx context.Context, now time.Time, limit int) ([]domain.Job, error) {
	rows, err := s.db.QueryContext(ctx, jobSelect+`
		WHERE account_id IN (SELECT account_id FROM account_retention)
		  AND created_at < ? - (SELECT days FROM account_retention r WHERE r.account_id = jobs.account_id) * 86400000
		ORDER BY created_at, id
		LIMIT ?`, toMs(now), limit)
	out, err := scanJobs(rows, err)
	if err != nil {
		return nil, fmt.Errorf("sqlite.ExpiredJobs: %w", err)
	}
	return out, nil
}

// scanJobs reads every job of a query's rows (err is the query's) and
// closes them.
func scanJobs(rows *sql.Rows, err error) ([]domain.Job, error) {
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
