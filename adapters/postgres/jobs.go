package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

var (
	// jobAndAccountForUpdate reads a job and its account and locks both
	// rows until the transaction ends (DeleteJob). NO KEY UPDATE: no key
	// changes, so inserts that merely reference the account (a new job, a
	// new key) need not wait.
	jobAndAccountForUpdate = "SELECT j." + strings.Join(sqlstore.JobCols, ", j.") + ", a." + strings.Join(sqlstore.AccountCols, ", a.") + `
		FROM jobs j JOIN accounts a ON a.id = j.account_id
		WHERE j.id = $1
		FOR NO KEY UPDATE`
	// jobsForUpdate reads jobs and their accounts and locks the jobs' rows
	// only, in ID order (UpdateJob's group commit).
	jobsForUpdate = "SELECT j." + strings.Join(sqlstore.JobCols, ", j.") + ", a." + strings.Join(sqlstore.AccountCols, ", a.") + `
		FROM jobs j JOIN accounts a ON a.id = j.account_id
		WHERE j.id = ANY($1)
		ORDER BY j.id
		FOR NO KEY UPDATE OF j`
	// accountsForUpdate locks accounts in ID order.
	accountsForUpdate = shared.Account.Select + " WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE"
)

func toDomainJob(row pgx.Row) (domain.Job, error) {
	j, err := sqlstore.ScanJob(row)
	return j, translate(err)
}

// CreateJob saves a new job and its events in one transaction.
// domain.ErrConflict if the ID exists, domain.ErrNotFound if its account
// does not.
func (s *Store) CreateJob(ctx context.Context, j domain.Job, events []domain.Event) error {
	row, err := sqlstore.JobRow(j)
	if err != nil {
		return fmt.Errorf("postgres.CreateJob: %w", translate(err))
	}
	if err := domain.ValidateEvents(events); err != nil {
		return fmt.Errorf("postgres.CreateJob: %w", translate(err))
	}
	// One round trip: a batch runs in one implicit transaction.
	b := &pgx.Batch{}
	b.Queue(shared.Job.Insert, row...)
	queueEvents(b, events)
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("postgres.CreateJob: %w", translate(err))
	}
	if len(events) > 0 {
		s.signal()
	}
	return nil
}

// GetJob returns a job or domain.ErrNotFound.
func (s *Store) GetJob(ctx context.Context, id domain.DocID) (domain.Job, error) {
	j, err := toDomainJob(s.pool.QueryRow(ctx, shared.Job.Select+" WHERE id = $1", string(id)))
	if err != nil {
		return domain.Job{}, fmt.Errorf("postgres.GetJob: job %s: %w", id, err)
	}
	return j, nil
}

// GetJobAndAccount reads the job and its account in one round trip (a
// batch of two reads, the account found through the job's row).
func (s *Store) GetJobAndAccount(ctx context.Context, id domain.DocID) (domain.Job, domain.Account, error) {
	b := &pgx.Batch{}
	b.Queue(shared.Job.Select+" WHERE id = $1", string(id))
	b.Queue(shared.Account.Select+" WHERE id = (SELECT account_id FROM jobs WHERE id = $1)", string(id))
	br := s.pool.SendBatch(ctx, b)
	defer br.Close() //nolint:errcheck // both reads' errors come from their Scan; Close would repeat one
	j, err := toDomainJob(br.QueryRow())
	if err != nil {
		return domain.Job{}, domain.Account{}, fmt.Errorf("postgres.GetJobAndAccount: job %s: %w", id, err)
	}
	a, err := toDomainAccount(br.QueryRow())
	if err != nil {
		return domain.Job{}, domain.Account{}, fmt.Errorf("postgres.GetJobAndAccount: account of job %s: %w", id, err)
	}
	return j, a, nil
}

// StaleJobs lists jobs whose upload window closed at or before now, and
// processing or converting jobs last updated before stuckBefore, oldest
// (created) first.
func (s *Store) StaleJobs(ctx context.Context, now, stuckBefore time.Time, limit int) ([]domain.Job, error) {
	rows, err := s.pool.Query(ctx, shared.Job.Select+`
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
