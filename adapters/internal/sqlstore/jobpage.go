package sqlstore

import (
	"context"
	"strings"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// PageJobs returns one page of the account's jobs matching q, newest first
// (ties by ID), after q.After, without counting them (ports.JobPager: the
// API's listTranscriptions, which shows no total). The cursor is one row
// comparison, (created_at, id) < (cursor): Postgres answers it as a range
// of jobs_account_created_id (account_id, created_at, id), SQLite as the
// range created_at <= cursor of jobs_account_created, sorting only ties.
// A page far into an account's jobs reads its own rows only, not those
// before it, and nothing is counted. The web history's list is ListJobs.
func (r Reads) PageJobs(ctx context.Context, q ports.JobQuery) ([]ports.ListedJob, error) {
	query, args, err := PageJobsQuery(r.d, q)
	if err != nil {
		return nil, r.fail("PageJobs", err)
	}
	var total int
	out, err := QueryAll(ctx, r.db, ScanListedTotal(&total), query, args...)
	if err != nil {
		return nil, r.fail("PageJobs", r.translate(err))
	}
	return out, nil
}

// PageJobsQuery is PageJobs's statement in d and its arguments (the
// plan tests explain it).
func PageJobsQuery(d Dialect, q ports.JobQuery) (string, []any, error) {
	a := d.NewArgs()
	after := q.After
	q.After = domain.HistoryKey{}
	q.Sort, q.Back = domain.HistorySort(""), false
	where, err := d.JobFilter(q, a)
	if err != nil {
		return "", nil, err
	}
	if !after.IsZero() {
		where = append(where, "(created_at, id) < ("+a.Add(after.CreatedAt.UnixMilli())+", "+a.Add(string(after.ID))+")")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = domain.DefaultListLimit
	}
	query := "SELECT " + d.ListedCols() + ", '', 0 FROM jobs WHERE " + strings.Join(where, " AND ") +
		" ORDER BY created_at DESC, id DESC LIMIT " + a.Add(limit)
	return query, a.Values, nil
}
