package postgres

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// UpdateJob's group commit. Every transition of the pipeline is one
// UpdateJob, and each must be durable before its caller goes on, so each
// used to cost a commit and its WAL flush (about 1.6 ms on this
// project's development disk, the ceiling of a serial pipeline). Calls that
// arrive while earlier ones are being committed are queued and committed
// together, in one transaction of a few round trips: one flush for many
// transitions. A call still returns only after its own changes committed
// (or with its error), so nothing a caller sees differs from a transaction
// of its own: the queue only decides how many commits carry the calls.
const (
	maxCommitters = 4   // transactions of queued updates running at once
	maxGroup      = 128 // updates in one transaction
)

type jobUpdateReq struct {
	ctx  context.Context
	id   domain.DocID
	fn   func(*domain.Job, *domain.Account) ([]domain.Event, error)
	err  error
	done chan struct{}
}

// UpdateJob loads and locks the job, applies fn and saves the job, the
// account and fn's events, all in one transaction, shared with other
// UpdateJob calls of this Store made at the same time (the group commit
// above, queued by groupcommit.Queue).
// Concurrent updates of the job wait for its lock, and calls for one job in
// one transaction apply in turn, so fn always sees the latest state. fn runs
// while the row is locked: it must be quick and must not call the store,
// and it may be called more than once (see below); the last call counts.
//
// The account is read with the job but not locked: most steps leave it
// alone, and locking it would queue every transition of an account's jobs
// on one row (and write the lock to the row). When a step changes the
// account (reserving or refunding balance) the account row is locked then;
// if it changed since it was read, the steps run again on the accounts as
// now locked, so a balance is never computed from a stale read.
func (s *Store) UpdateJob(ctx context.Context, id domain.DocID, fn func(*domain.Job, *domain.Account) ([]domain.Event, error)) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres.UpdateJob: %w", err)
	}
	req := &jobUpdateReq{ctx: ctx, id: id, fn: fn, done: make(chan struct{})}
	if group := s.updates.Add(req); group != nil {
		s.updates.SendAll(group, s.commitGroup)
	}
	select {
	case <-req.done:
		return req.err
	case <-ctx.Done():
		// The caller's deadline passed while its update waited for a
		// group or for Postgres (silent, or stopped): answer now. Like a
		// commit whose acknowledgement was lost, the update may still
		// commit, if its group is already sending; a queued one is dropped
		// when its group starts (commitGroup).
		return fmt.Errorf("postgres.UpdateJob: %w", translate(ctx.Err()))
	}
}

// commitGroup commits group in one transaction; if that fails with more
// than one update in it, each is tried in a transaction of its own, so
// that one update's failure is its own.
func (s *Store) commitGroup(group []*jobUpdateReq) {
	live := group[:0:0]
	for _, r := range group {
		if err := r.ctx.Err(); err != nil {
			r.finish(fmt.Errorf("postgres.UpdateJob: %w", err))
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	// The group's transaction runs until every caller's context is done
	// (a request's deadline, a shutdown past its grace), or the store's
	// statement timeout (Options).
	ctx, cancel := context.WithTimeout(context.WithoutCancel(live[0].ctx), s.statementTimeout)
	defer cancel()
	var gone atomic.Int32
	for _, r := range live {
		stop := context.AfterFunc(r.ctx, func() {
			if int(gone.Add(1)) == len(live) {
				cancel()
			}
		})
		defer stop()
	}
	results, wrote, err := s.updateJobs(ctx, live)
	if err != nil && len(live) > 1 {
		for _, r := range live {
			s.commitGroup([]*jobUpdateReq{r})
		}
		return
	}
	if wrote {
		s.signal()
	}
	for i, r := range live {
		switch {
		case err != nil:
			r.finish(fmt.Errorf("postgres.UpdateJob: %w", translate(err)))
		default:
			r.finish(results[i])
		}
	}
}

func (r *jobUpdateReq) finish(err error) {
	r.err = err
	close(r.done)
}

// loaded is a job of the group as read and locked, with its account as read.
type loaded struct {
	scan    sqlstore.JobScan
	account domain.Account
}

// updateJobs runs the group's updates in one transaction and returns each
// one's outcome (nil, fn's error unchanged, or why it could not apply)
// once the transaction committed, or the error that rolled it back.
func (s *Store) updateJobs(ctx context.Context, group []*jobUpdateReq) (results []error, wrote bool, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, false, err
	}
	defer conn.Release()
	defer func() {
		// Whatever went wrong after BEGIN, the transaction ends here; a
		// connection that cannot roll back is not idle, so the pool
		// closes it on Release.
		if conn.Conn().PgConn().TxStatus() != 'I' && !conn.Conn().IsClosed() {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			_, _ = conn.Exec(rctx, "ROLLBACK")
			cancel()
		}
	}()

	// One round trip: BEGIN and the locking read of every job.
	ids := make([]string, 0, len(group))
	for _, r := range group {
		ids = append(ids, string(r.id))
	}
	jobs := make(map[domain.DocID]*loaded, len(group))
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(jobsForUpdate, ids).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			l := &loaded{}
			var ar sqlstore.AccountScan
			if err := rows.Scan(append(l.scan.Dest(), ar.Dest()...)...); err != nil {
				return err
			}
			l.account = ar.Account()
			jobs[l.scan.ID()] = l
		}
		return rows.Err()
	})
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return nil, false, err
	}

	// Apply every update in turn; lock the accounts they change and apply
	// again if those moved since they were read.
	start := map[domain.AccountID]domain.Account{}
	for _, l := range jobs {
		start[l.account.ID] = l.account
	}
	locked := map[domain.AccountID]bool{}
	var out applied
	for {
		out = apply(group, jobs, start)
		var lock []string
		for id, a := range out.accounts {
			if a != start[id] && !locked[id] {
				lock = append(lock, string(id))
			}
		}
		if len(lock) == 0 {
			break
		}
		moved := false
		rows, _ := conn.Query(ctx, accountsForUpdate, lock)
		var ar sqlstore.AccountScan
		_, err := pgx.ForEachRow(rows, ar.Dest(), func() error {
			a := ar.Account()
			locked[a.ID] = true
			if a != start[a.ID] {
				start[a.ID], moved = a, true
			}
			return nil
		})
		if err != nil {
			return nil, false, err
		}
		if !moved {
			break
		}
	}

	// One round trip: every write and the commit.
	b = &pgx.Batch{}
	for _, j := range out.jobOrder {
		row, err := sqlstore.JobRow(out.jobs[j])
		if err != nil {
			return nil, false, err
		}
		b.Queue(shared.Job.Update, keyLast(row)...)
	}
	for id, a := range out.accounts {
		if a != start[id] {
			b.Queue(shared.Account.Update, keyLast(sqlstore.AccountRow(a))...)
		}
	}
	queueEvents(b, out.events)
	b.Queue("COMMIT")
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return nil, false, err
	}
	return out.results, len(out.events) > 0, nil
}

// applied is what a group's updates made of its jobs and accounts.
type applied struct {
	results  []error
	jobs     map[domain.DocID]domain.Job
	jobOrder []domain.DocID // jobs changed, in first-change order
	accounts map[domain.AccountID]domain.Account
	events   []domain.Event // in the order of the updates
}

// apply runs each update's fn on its job as left by the group's earlier
// updates (as loaded at first) and its account likewise (from start). An
// update whose fn fails changes nothing.
func apply(group []*jobUpdateReq, jobs map[domain.DocID]*loaded, start map[domain.AccountID]domain.Account) applied {
	out := applied{
		results:  make([]error, len(group)),
		jobs:     map[domain.DocID]domain.Job{},
		accounts: map[domain.AccountID]domain.Account{},
	}
	for id, a := range start {
		out.accounts[id] = a
	}
	for i, r := range group {
		l := jobs[r.id]
		if l == nil {
			out.results[i] = fmt.Errorf("postgres.UpdateJob: job %s: %w", r.id, domain.ErrNotFound)
			continue
		}
		cur, seen := out.jobs[r.id]
		if !seen {
			j, err := l.scan.Job()
			if err != nil {
				out.results[i] = fmt.Errorf("postgres.UpdateJob: job %s: %w", r.id, err)
				continue
			}
			cur = j
		}
		j, a := cloneJob(cur), out.accounts[cur.AccountID]
		jobID, acctID := j.ID, j.AccountID
		events, err := r.fn(&j, &a)
		if err == nil {
			if verr := domain.ValidateEvents(events); verr != nil {
				err = fmt.Errorf("postgres.UpdateJob: %w", verr)
			}
		}
		if err != nil {
			out.results[i] = err // fn's own error, unchanged, as the contract says
			continue
		}
		// The rows keep their keys whatever fn did to the IDs.
		j.ID, j.AccountID, a.ID = jobID, acctID, acctID
		if !seen {
			out.jobOrder = append(out.jobOrder, r.id)
		}
		out.jobs[r.id], out.accounts[acctID] = j, a
		out.events = append(out.events, events...)
	}
	return out
}

// cloneJob copies j deeply enough that an fn changing the copy in place
// leaves j as it was.
func cloneJob(j domain.Job) domain.Job {
	c := j
	if j.Audio != nil {
		a := *j.Audio
		c.Audio = &a
	}
	c.Segments = slices.Clone(j.Segments)
	c.Metadata = slices.Clone(j.Metadata)
	return c
}
