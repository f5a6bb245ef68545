package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
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
		if _, err := tx.ExecContext(ctx, shared.Account.Update, keyLast(sqlstore.AccountRow(a))...); err != nil {
			return translate(err)
		}
		tomb.DocID, tomb.AccountID = old.ID, old.AccountID
		if _, err := tx.ExecContext(ctx, shared.Deletion.InsertTombstone, sqlstore.TombstoneRow(tomb)...); err != nil {
			return translate(err)
		}
		for _, q := range shared.Deletion.DeleteJob {
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

// SetRetentionDays sets the account's retention rule; 0 removes it.
func (s *Store) SetRetentionDays(ctx context.Context, account domain.AccountID, days int) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, shared.Deletion.AccountExists, string(account)).Scan(&one); err != nil {
			return fmt.Errorf("account %s: %w", account, translate(err))
		}
		if days <= 0 {
			_, err := tx.ExecContext(ctx, shared.Deletion.DeleteRetention, string(account))
			return translate(err)
		}
		_, err := tx.ExecContext(ctx, shared.Deletion.SetRetention, string(account), days)
		return translate(err)
	})
	if err != nil {
		return fmt.Errorf("sqlite.SetRetentionDays: %w", err)
	}
	return nil
}
