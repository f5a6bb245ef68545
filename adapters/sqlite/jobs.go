package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

var ()

func toDomainJob(sc scanner) (domain.Job, error) {
	j, err := sqlstore.ScanJob(sc)
	return j, translate(err)
}

// CreateJob saves a new job and its events in one transaction.
// domain.ErrConflict if the ID exists, domain.ErrNotFound if its account
// does not.
func (s *Store) CreateJob(ctx context.Context, j domain.Job, events []domain.Event) error {
	row, err := sqlstore.JobRow(j)
	if err != nil {
		return fmt.Errorf("sqlite.CreateJob: %w", err)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, shared.Job.Insert, row...); err != nil {
			return translate(err)
		}
		return insertEvents(ctx, tx, events)
	})
	if err != nil {
		return fmt.Errorf("sqlite.CreateJob: %w", err)
	}
	if len(events) > 0 {
		s.signal()
	}
	return nil
}

// GetJob returns a job or domain.ErrNotFound.
func (s *Store) GetJob(ctx context.Context, id domain.DocID) (domain.Job, error) {
	j, err := toDomainJob(s.getJob.QueryRowContext(ctx, string(id)))
	if err != nil {
		return domain.Job{}, fmt.Errorf("sqlite.GetJob: job %s: %w", id, err)
	}
	return j, nil
}

// GetJobAndAccount reads the job, then its account: two local reads
// (ports.ReadJobAndAccount).
func (s *Store) GetJobAndAccount(ctx context.Context, id domain.DocID) (domain.Job, domain.Account, error) {
	return ports.ReadJobAndAccount(ctx, s, s, id)
}

// UpdateJob loads the job and its account, applies fn and saves both with
// fn's events, all in one write transaction. Write transactions are
// serialised, so fn always sees the latest committed state. fn runs while
// the write lock is held: it must be quick and must not call the store.
func (s *Store) UpdateJob(ctx context.Context, id domain.DocID, fn func(*domain.Job, *domain.Account) ([]domain.Event, error)) error {
	var fnErr error
	var wrote bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		j, a, err := loadJob(ctx, tx, id)
		if err != nil {
			return err
		}
		jobID, acctID := j.ID, j.AccountID
		events, err := fn(&j, &a)
		if err != nil {
			fnErr = err
			return err
		}
		// The rows keep their keys whatever fn did to the IDs.
		j.ID, j.AccountID, a.ID = jobID, acctID, acctID
		row, err := sqlstore.JobRow(j)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, shared.Job.Update, keyLast(row)...); err != nil {
			return translate(err)
		}
		if _, err := tx.ExecContext(ctx, shared.Account.Update, keyLast(sqlstore.AccountRow(a))...); err != nil {
			return translate(err)
		}
		wrote = len(events) > 0
		return insertEvents(ctx, tx, events)
	})
	if fnErr != nil {
		return fnErr // unchanged, as the contract says
	}
	if err != nil {
		return fmt.Errorf("sqlite.UpdateJob: %w", err)
	}
	if wrote {
		s.signal()
	}
	return nil
}

// StaleJobs lists jobs whose upload window closed at or before now, and
// processing or converting jobs last updated before stuckBefore, oldest
// (created) first.
func (s *Store) StaleJobs(ctx context.Context, now, stuckBefore time.Time, limit int) ([]domain.Job, error) {
	rows, err := s.db.QueryContext(ctx, shared.Job.Select+`
		WHERE (status = 'uploading' AND upload_expires_at <= ?)
		   OR (status IN ('processing', 'converting') AND updated_at < ?)
		ORDER BY created_at, id
		LIMIT ?`, toMs(now), toMs(stuckBefore), limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite.StaleJobs: %w", err)
	}
	defer rows.Close()
	var out []domain.Job
	for rows.Next() {
		j, err := sqlstore.ScanStaleJob(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite.StaleJobs: %w", err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite.StaleJobs: %w", err)
	}
	return out, nil
}

// insertEvents appends events to the outbox in order, inside tx. The
// payload is the envelope a relay publishes; its topic is kept beside it
// because the envelope does not carry it.
var outboxInsert = sqlstore.SQLite.Insert("outbox", sqlstore.OutboxCols)

func insertEvents(ctx context.Context, tx *sql.Tx, events []domain.Event) error {
	if len(events) == 0 {
		return nil
	}
	if err := domain.ValidateEvents(events); err != nil {
		return err
	}
	now := time.Now()
	for _, e := range events {
		if _, err := tx.ExecContext(ctx, outboxInsert, sqlstore.OutboxRow(e, now)...); err != nil {
			return translate(err)
		}
	}
	return recordHistory(ctx, tx, events)
}
