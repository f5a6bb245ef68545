package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// The job's columns and row mapping are shared with the SQLite store.
var (
	jobCols      = sqlstore.JobCols
	jobWriteCols = sqlstore.JobWriteCols
)

var (
	jobSelect = "SELECT " + strings.Join(jobCols, ", ") + " FROM jobs"
	jobInsert = "INSERT INTO jobs (" + strings.Join(jobWriteCols, ", ") + ") VALUES (" + placeholders(1, len(jobWriteCols)) + ")"
	jobUpdate = "UPDATE jobs SET " + updateSet(jobWriteCols) + " WHERE id = $" + fmt.Sprint(len(jobWriteCols))
	// jobAndAccountForUpdate reads a job and its account and locks both
	// rows until the transaction ends (DeleteJob). NO KEY UPDATE: no key
	// changes, so inserts that merely reference the account (a new job, a
	// new key) need not wait.
	jobAndAccountForUpdate = "SELECT j." + strings.Join(jobCols, ", j.") + ", a." + strings.Join(accountCols, ", a.") + `
		FROM jobs j JOIN accounts a ON a.id = j.account_id
		WHERE j.id = $1
		FOR NO KEY UPDATE`
	// jobForUpdate reads a job and its account and locks the job's row
	// only (UpdateJob).
	jobForUpdate = "SELECT j." + strings.Join(jobCols, ", j.") + ", a." + strings.Join(accountCols, ", a.") + `
		FROM jobs j JOIN accounts a ON a.id = j.account_id
		WHERE j.id = $1
		FOR NO KEY UPDATE OF j`
)

// toJobRow lists j's values in jobWriteCols order.
func toJobRow(j domain.Job) ([]any, error) { return sqlstore.JobRow(j) }

func toDomainJob(row pgx.Row) (domain.Job, error) {
	j, err := sqlstore.ScanJob(row)
	return j, translate(err)
}

// CreateJob saves a new job and its events in one transaction.
// domain.ErrConflict if the ID exists, domain.ErrNotFound if its account
// does not.
func (s *Store) CreateJob(ctx context.Context, j domain.Job, events []domain.Event) error {
	row, err := toJobRow(j)
	if err != nil {
		return fmt.Errorf("postgres.CreateJob: %w", translate(err))
	}
	if err := domain.ValidateEvents(events); err != nil {
		return fmt.Errorf("postgres.CreateJob: %w", translate(err))
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(jobInsert, row...)
		queueEvents(b, events)
		return translate(tx.SendBatch(ctx, b).Close())
	})
	if err != nil {
		return fmt.Errorf("postgres.CreateJob: %w", translate(err))
	}
	if len(events) > 0 {
		s.signal()
	}
	return nil
}

// GetJob returns a job or domain.ErrNotFound.
func (s *Store) GetJob(ctx context.Context, id domain.DocID) (domain.Job, error) {
	j, err := toDomainJob(s.pool.QueryRow(ctx, jobSelect+" WHERE id = $1", string(id)))
	if err != nil {
		return domain.Job{}, fmt.Errorf("postgres.GetJob: job %s: %w", id, err)
	}
	return j, nil
}

// UpdateJob loads and locks the job, applies fn and saves the job, the
// account and fn's events, all in one transaction. Concurrent updates of
// the job wait for its lock, so fn always sees the latest committed state.
// fn runs while the row is locked: it must be quick and must not call the
// store, and it may be called twice (see below).
//
// The account is read with the job but not locked: most steps leave it
// alone, and locking it would queue every transition of an account's jobs
// on one row (and write the lock to the row). A step that changes the
// account (reserving or refunding balance) locks the account row then; if
// it changed since it was read, fn runs again, on the job as loaded and
// the account as now locked, so a balance is never computed from a stale
// read.
//
// Two round trips in the common case: BEGIN with the locking read, then
// the writes with COMMIT; one more when the account changes.
func (s *Store) UpdateJob(ctx context.Context, id domain.DocID, fn func(*domain.Job, *domain.Account) ([]domain.Event, error)) error {
	wrote, err := s.updateJob(ctx, id, fn)
	var fe fnError
	if errors.As(err, &fe) {
		return fe.err // unchanged, as the contract says
	}
	if err != nil {
		return fmt.Errorf("postgres.UpdateJob: %w", translate(err))
	}
	if wrote {
		s.signal()
	}
	return nil
}

// fnError carries the error of UpdateJob's fn out of updateJob.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }

func (s *Store) updateJob(ctx context.Context, id domain.DocID, fn func(*domain.Job, *domain.Account) ([]domain.Event, error)) (wrote bool, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Release()
	defer func() {
		// Whatever went wrong after BEGIN, the transaction ends here; a
		// connection that cannot roll back is not idle, so the pool closes
		// it on Release.
		if conn.Conn().PgConn().TxStatus() != 'I' && !conn.Conn().IsClosed() {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			_, _ = conn.Exec(rctx, "ROLLBACK")
			cancel()
		}
	}()
	var r sqlstore.JobScan
	var ar sqlstore.AccountScan
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(jobForUpdate, string(id)).QueryRow(func(row pgx.Row) error {
		return row.Scan(append(r.Dest(), ar.Dest()...)...)
	})
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return false, fmt.Errorf("job %s: %w", id, translate(err))
	}
	before := ar.Account()
	j, a, events, err := applyJobFn(&r, before, fn)
	if err != nil {
		return false, err
	}
	accountChanged := a != before
	if accountChanged {
		// Lock the account and check it is still as fn saw it.
		var now sqlstore.AccountScan
		if err := conn.QueryRow(ctx, accountSelect+" WHERE id = $1 FOR NO KEY UPDATE", string(before.ID)).Scan(now.Dest()...); err != nil {
			return false, fmt.Errorf("account %s: %w", before.ID, translate(err))
		}
		if locked := now.Account(); locked != before {
			if j, a, events, err = applyJobFn(&r, locked, fn); err != nil {
				return false, err
			}
			accountChanged = a != locked
		}
	}
	if err := domain.ValidateEvents(events); err != nil {
		return false, err
	}
	row, err := toJobRow(j)
	if err != nil {
		return false, err
	}
	// One round trip for every write of the step and the commit.
	b = &pgx.Batch{}
	b.Queue(jobUpdate, keyLast(row)...)
	if accountChanged {
		b.Queue(accountUpdate, keyLast(toAccountRow(a))...)
	}
	queueEvents(b, events)
	b.Queue("COMMIT")
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return false, err
	}
	return len(events) > 0, nil
}

// applyJobFn runs UpdateJob's fn on the job as scanned and a copy of a, and
// returns what it made of them, the rows keeping their keys whatever fn did
// to the IDs. fn's own error comes back as an fnError.
func applyJobFn(r *sqlstore.JobScan, a domain.Account, fn func(*domain.Job, *domain.Account) ([]domain.Event, error)) (domain.Job, domain.Account, []domain.Event, error) {
	j, err := r.Job()
	if err != nil {
		return domain.Job{}, domain.Account{}, nil, err
	}
	jobID, acctID := j.ID, j.AccountID
	events, err := fn(&j, &a)
	if err != nil {
		return domain.Job{}, domain.Account{}, nil, fnError{err}
	}
	j.ID, j.AccountID, a.ID = jobID, acctID, acctID
	return j, a, events, nil
}

// StaleJobs lists jobs whose upload window closed at or before now, and
// processing or converting jobs last updated before stuckBefore, oldest
// (created) first.
func (s *Store) StaleJobs(ctx context.Context, now, stuckBefore time.Time, limit int) ([]domain.Job, error) {
	rows, err := s.pool.Query(ctx, jobSelect+`
		WHERE (status = 'uploading' AND upload_expires_at <= $1)
		   OR (status IN ('processing', 'converting') AND updated_at < $2)
		ORDER BY created_at, id
		LIMIT $3`, toMs(now), toMs(stuckBefore), limit)
	if err != nil {
		return nil, fmt.Errorf("postgres.StaleJobs: %w", translate(err))
	}
	defer rows.Close()
	var out []domain.Job
	for rows.Next() {
		j, err := sqlstore.ScanStaleJob(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres.StaleJobs: %w", translate(err))
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres.StaleJobs: %w", translate(err))
	}
	return out, nil
}

var outboxInsert = sqlstore.Postgres.Insert("outbox", sqlstore.OutboxCols)

// queueEvents appends events to the outbox in order, in the batch, and
// notifies listening relays. The
// payload is the envelope a relay publishes; its topic is kept beside it
// because the envelope does not carry it.
func queueEvents(b *pgx.Batch, events []domain.Event) {
	if len(events) == 0 {
		return
	}
	now := time.Now()
	for _, e := range events {
		b.Queue(outboxInsert, sqlstore.OutboxRow(e, now)...)
	}
	queueHistory(b, events)
	// Delivered at commit to the listeners of every process (see listen).
	b.Queue(`SELECT pg_notify('` + notifyChannel + `', '')`)
}
