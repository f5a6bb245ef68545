package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/adapters/internal/webquery"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// ListJobs returns one page of the account's jobs matching q in q.Sort's
// order, and how many match in all (whatever the page), in one statement
// (the count an InitPlan beside the page) whose order an index gives
// (sqlstore.HistoryOrder: keyset pages, never an OFFSET past the rows of
// earlier pages). Search is a substring of the stored search_text (see
// webquery), never lower(), whose result depends on the database's
// locale; see searchJobs.
func (s *Store) ListJobs(ctx context.Context, q ports.JobQuery) ([]ports.ListedJob, int, error) {
	a := sqlstore.Postgres.NewArgs()
	where, err := sqlstore.Postgres.JobFilter(q, a)
	if err != nil {
		return nil, 0, fmt.Errorf("postgres.ListJobs: %w", err)
	}
	param := a.Add
	limit, offset := webquery.Page(q)
	if q.Search == "" {
		cond := " FROM jobs WHERE " + strings.Join(where, " AND ")
		countArgs := a.Values[:len(a.Values):len(a.Values)]
		keyset, order := sqlstore.HistoryOrder(q, a)
		pageCond := cond
		if keyset != "" {
			pageCond += " AND " + keyset
		}
		page := "SELECT " + sqlstore.Postgres.ListedCols() + ", '', (SELECT count(*)" + cond + ")" + pageCond + order +
			" LIMIT " + param(limit) + " OFFSET " + param(offset)
		jobs, total, err := readListed(s.pool.Query(ctx, page, a.Values...))
		if err == nil && len(jobs) == 0 {
			// Past the last page no row carries the total.
			err = s.pool.QueryRow(ctx, "SELECT count(*)"+cond, countArgs...).Scan(&total)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("postgres.ListJobs: %w", translate(err))
		}
		if q.Back {
			slices.Reverse(jobs)
		}
		return jobs, total, nil
	}
	// The matches come from the trigram index alone (see searchJobs), are
	// kept to the account's and its filters once (m), and give the count
	// and the page; only the page's rows read their excerpt.
	with := `WITH hits AS MATERIALIZED (SELECT id FROM jobs WHERE search_text LIKE '%' || ` + param(webquery.Contains(q.Search)) + ` || '%' ESCAPE '\'), ` +
		"m AS MATERIALIZED (SELECT id, created_at, list_score, list_duration FROM jobs WHERE " + strings.Join(where, " AND ") + " AND id IN (SELECT id FROM hits)) "
	count := with + "SELECT count(*) FROM m"
	countArgs := a.Values[:len(a.Values):len(a.Values)]
	keyset, order := sqlstore.HistoryOrder(q, a)
	inM := ""
	if keyset != "" {
		inM = " WHERE " + keyset
	}
	folded, beyond := webquery.Excerpt(q.Search)
	excerpt := "left(transcription, strpos(substr(search_text, " + webquery.FoldedTitleLength + " + 2), " + param(folded) + ") + " + param(beyond) + ")"
	page := with + "SELECT " + sqlstore.Postgres.ListedCols() + ", " + excerpt + ", (SELECT count(*) FROM m) FROM jobs WHERE id IN (SELECT id FROM m" + inM + order +
		" LIMIT " + param(limit) + " OFFSET " + param(offset) + ")" + order
	jobs, total, err := s.searchJobs(ctx, page, a.Values, count, countArgs)
	if q.Back {
		slices.Reverse(jobs)
	}
	return jobs, total, err
}

// readListed reads ListJobs's rows: a listed job, its excerpt and the
// total. Errors are the database's, not yet translated.
func readListed(rows pgx.Rows, err error) ([]ports.ListedJob, int, error) {
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var total int
	out, err := sqlstore.Collect(rows, sqlstore.ScanListedTotal(&total))
	return out, total, err
}

// AnalysesByDocs returns the analyses of those of docs that are the
// account's and have one, keyed by docId.
func (s *Store) AnalysesByDocs(ctx context.Context, account domain.AccountID, docs []domain.DocID) (map[domain.DocID]domain.Analysis, error) {
	out := make(map[domain.DocID]domain.Analysis, len(docs))
	if len(docs) == 0 {
		return out, nil
	}
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = string(d)
	}
	list, err := queryAll(ctx, s.pool, sqlstore.ScanAnalysis, shared.Analysis.Select+` WHERE account_id = $1 AND doc_id = ANY($2)`, string(account), ids)
	if err != nil {
		return nil, fmt.Errorf("postgres.AnalysesByDocs: %w", err)
	}
	for _, a := range list {
		out[a.DocID] = a
	}
	return out, nil
}

// searchJobs runs a search's page query (its rows carry the total) in a
// read-only transaction that keeps the planner off sequential scans, so the
// hits come from the trigram index jobs_search_trgm: its cost model prices
// a LIKE on a long transcript like a comparison of two integers, and so
// prefers testing every row of the account (200 ms at 10,000 recordings) to
// the index (3 ms). BEGIN, the setting, the query and COMMIT go in one
// round trip (a batch); a page past the last match has no row to carry the
// total, and asks count the same way. A failed batch leaves its
// transaction open, and the pool closes such a connection when it is
// released.
func (s *Store) searchJobs(ctx context.Context, page string, args []any, count string, countArgs []any) ([]ports.ListedJob, int, error) {
	var jobs []ports.ListedJob
	var total int
	err := s.readOnly(ctx, page, args, func(rows pgx.Rows, err error) error {
		jobs, total, err = readListed(rows, err)
		return err
	})
	if err == nil && len(jobs) == 0 {
		err = s.readOnly(ctx, count, countArgs, func(rows pgx.Rows, err error) error {
			if err != nil {
				return err
			}
			_, err = pgx.ForEachRow(rows, []any{&total}, func() error { return nil })
			return err
		})
	}
	if err != nil {
		return nil, 0, fmt.Errorf("postgres.ListJobs: %w", translate(err))
	}
	return jobs, total, nil
}

// readOnly runs query with enable_seqscan off and planned for its own
// arguments in a read-only transaction, all in one batch, and gives its
// rows to read. Statements are prepared once per connection, and a
// generic plan of a history search cannot know its words; every other
// statement keeps Postgres's default (plan_cache_mode auto: a statement
// whose plan does not depend on its arguments, such as a poll's, is
// planned once per connection, not on every run).
func (s *Store) readOnly(ctx context.Context, query string, args []any, read func(pgx.Rows, error) error) error {
	b := &pgx.Batch{}
	b.Queue("BEGIN READ ONLY")
	b.Queue("SET LOCAL enable_seqscan = off")
	b.Queue("SET LOCAL plan_cache_mode = force_custom_plan")
	b.Queue(query, args...)
	b.Queue("COMMIT")
	br := s.pool.SendBatch(ctx, b)
	_, err := br.Exec()
	for i := 0; i < 2 && err == nil; i++ {
		_, err = br.Exec()
	}
	if err == nil {
		rows, qerr := br.Query()
		err = read(rows, qerr)
	}
	if err == nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}
