package postgres

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// Polls that arrive while earlier ones are with Postgres are counted and
// read together: one round trip, one upsert of their counters and one
// read of their jobs, however many they are. A statement's fixed cost
// (receiving it, starting and committing a transaction, answering) is
// most of what a poll costs Postgres, so under load this divides it by
// the batch's size; a poll that finds no batch in flight goes at once, as
// a batch of one.
//
// Counts stay exact across processes: a batch adds to each counter in one
// upsert the number of its polls that hit it and gets the new total back,
// so the polls of one key in one batch get the consecutive counts that end
// there, in the order they arrived, exactly as if each had added its one.
// Counters are locked in (key, window) order in every batch, so batches of
// different processes touching the same keys queue and never deadlock.
//
// One batch in flight gave the least Postgres CPU a poll and the most
// polls a second on the 2-core machine (BenchmarkHitAndGetJob: 15–16.5 µs
// a poll against 25.5–28 with two and 35–37 with four; see
// docs/performance.md); the waiting polls make the next batch larger.
const (
	pollBatchesInFlight = 1   // batches with Postgres at once, per store
	pollBatchMax        = 128 // polls in one batch
	pollBatchTimeout    = 30 * time.Second
)

type pollReq struct {
	key    string
	window int64 // unix ms
	id     domain.DocID
	done   chan struct{}
	n      int
	job    domain.Job
	err    error
}

// HitAndGetJob is Hit and GetJob in one round trip (ports.PollCounter),
// batched with the other polls waiting at the time. If ctx ends while the
// poll waits it returns ctx's error, and the poll may still be counted.
func (s *Store) HitAndGetJob(ctx context.Context, key string, window time.Time, id domain.DocID) (int, domain.Job, error) {
	r := &pollReq{key: key, window: toMs(window), id: id, done: make(chan struct{})}
	if batch := s.polls.Add(r); batch != nil {
		s.polls.SendAll(batch, s.sendPolls)
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		return 0, domain.Job{}, fmt.Errorf("postgres.HitAndGetJob: %w", ctx.Err())
	}
	if r.err != nil {
		return r.n, domain.Job{}, fmt.Errorf("postgres.HitAndGetJob: %w", r.err)
	}
	return r.n, r.job, nil
}

// pollUpsert adds n to each (key, window_start) counter, in that order,
// and returns the totals; pollJobs reads the batch's jobs.
var (
	pollUpsert = `INSERT INTO rate_counters AS r (key, window_start, count)
		SELECT k, w, n FROM unnest($1::text[], $2::bigint[], $3::int[]) AS v(k, w, n) ORDER BY k, w
		ON CONFLICT (key, window_start) DO UPDATE SET count = r.count + excluded.count
		RETURNING key, window_start, count`
	pollJobs = shared.Job.Select + ` WHERE id = ANY($1)`
)

type counterKey struct {
	key    string
	window int64
}

// sendPolls counts and reads a batch in one round trip (one implicit
// transaction) and answers each of its polls.
func (s *Store) sendPolls(batch []*pollReq) {
	s.pollsSent.Add(1)
	hits := map[counterKey]int{}
	ids := map[domain.DocID]bool{}
	var newest int64
	for _, r := range batch {
		hits[counterKey{r.key, r.window}]++
		ids[r.id] = true
		newest = max(newest, r.window)
	}
	counters := make([]counterKey, 0, len(hits))
	for c := range hits {
		counters = append(counters, c)
	}
	slices.SortFunc(counters, func(a, b counterKey) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.window, b.window))
	})
	keys, windows, ns := make([]string, len(counters)), make([]int64, len(counters)), make([]int32, len(counters))
	for i, c := range counters {
		keys[i], windows[i], ns[i] = c.key, c.window, int32(hits[c])
	}
	docs := make([]string, 0, len(ids))
	for id := range ids {
		docs = append(docs, string(id))
	}

	ctx, cancel := context.WithTimeout(context.Background(), pollBatchTimeout)
	defer cancel()
	s.pruneRates(ctx, newest)
	totals := make(map[counterKey]int, len(counters))
	jobs := make(map[domain.DocID]domain.Job, len(docs))
	decodeErrs := map[domain.DocID]error{}
	b := &pgx.Batch{}
	b.Queue(pollUpsert, keys, windows, ns).Query(func(rows pgx.Rows) error {
		var c counterKey
		var n int
		_, err := pgx.ForEachRow(rows, []any{&c.key, &c.window, &n}, func() error {
			totals[c] = n
			return nil
		})
		return err
	})
	b.Queue(pollJobs, docs).Query(func(rows pgx.Rows) error {
		var r sqlstore.JobScan
		_, err := pgx.ForEachRow(rows, r.Dest(), func() error {
			j, err := r.Job()
			if err != nil {
				decodeErrs[r.ID()] = err
				return nil
			}
			jobs[j.ID] = j
			return nil
		})
		return err
	})
	err := s.pool.SendBatch(ctx, b).Close()
	if err != nil {
		err = translate(err)
	}

	// The polls of one counter take its last hits[c] counts, in order.
	next := make(map[counterKey]int, len(totals))
	for c, total := range totals {
		next[c] = total - hits[c] + 1
	}
	for _, r := range batch {
		c := counterKey{r.key, r.window}
		n, counted := next[c]
		job, found := jobs[r.id]
		switch {
		case err != nil:
			r.err = err
		case !counted:
			r.err = fmt.Errorf("counter %s not returned", c.key)
		case decodeErrs[r.id] != nil:
			r.n, r.err = n, decodeErrs[r.id]
		case !found:
			r.n, r.err = n, fmt.Errorf("job %s: %w", r.id, domain.ErrNotFound)
		default:
			r.n, r.job = n, job
		}
		next[c] = n + 1
		close(r.done)
	}
}
