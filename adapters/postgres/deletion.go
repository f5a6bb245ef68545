package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
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
		b.Queue(shared.Account.Update, keyLast(sqlstore.AccountRow(a))...)
		tomb.DocID, tomb.AccountID = old.ID, old.AccountID
		b.Queue(shared.Deletion.InsertTombstone, sqlstore.TombstoneRow(tomb)...)
		for _, q := range shared.Deletion.DeleteJob {
			b.Queue(q, string(old.ID))
		}
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

// SetRetentionDays sets the account's retention rule; 0 removes it.
func (s *Store) SetRetentionDays(ctx context.Context, account domain.AccountID, days int) error {
	var err error
	if days <= 0 {
		var one int
		err = s.pool.QueryRow(ctx, shared.Deletion.AccountExists, string(account)).Scan(&one)
		if err == nil {
			_, err = s.pool.Exec(ctx, shared.Deletion.DeleteRetention, string(account))
		}
	} else {
		// The foreign key refuses an account that does not exist.
		_, err = s.pool.Exec(ctx, shared.Deletion.SetRetention, string(account), days)
	}
	if err != nil {
		return fmt.Errorf("postgres.SetRetentionDays: account %s: %w", account, translate(err))
	}
	return nil
}
