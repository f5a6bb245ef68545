package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/adapters/internal/webquery"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// ListJobs returns one page of the account's jobs matching q, newest first
// (ties by ID), and how many match in all: a count and the page in one
// round trip, both on the index jobs_account_created. Search is a
// substring of the stored search_text (see webquery), never lower(), whose
// result depends on the database's locale.
func (s *Store) ListJobs(ctx context.Context, q ports.JobQuery) ([]domain.Job, int, error) {
	if q.Account == "" {
		return nil, 0, errors.New("postgres.ListJobs: no account")
	}
	var args []any
	param := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	where := []string{"account_id = " + param(string(q.Account))}
	if q.Status != "" {
		where = append(where, "status = "+param(string(q.Status)))
	}
	if q.Type != "" {
		where = append(where, "type = "+param(string(q.Type)))
	}
	if q.ChecklistID != "" {
		where = append(where, "checklist_id = "+param(q.ChecklistID))
	}
	if !q.From.IsZero() {
		where = append(where, "created_at >= "+param(toMs(q.From)))
	}
	if !q.To.IsZero() {
		where = append(where, "created_at < "+param(toMs(q.To)))
	}
	with := ""
	if q.Search != "" {
		// The matches come from the trigram index alone (see searchJobs),
		// then are kept to the account's.
		with = `WITH hits AS MATERIALIZED (SELECT id FROM jobs WHERE search_text LIKE '%' || ` + param(webquery.Contains(q.Search)) + ` || '%' ESCAPE '\') `
		where = append(where, "id IN (SELECT id FROM hits)")
	}
	cond := " WHERE " + strings.Join(where, " AND ")
	countArgs := slices.Clone(args)
	count := with + "SELECT count(*) FROM jobs" + cond
	limit, offset := webquery.Page(q)
	order := " ORDER BY created_at DESC, id DESC LIMIT " + param(limit) + " OFFSET " + param(offset)
	if q.Search != "" {
		// One evaluation of the hits gives the page and, beside each row,
		// how many match in all.
		page := with + "SELECT " + strings.Join(jobCols, ", ") + ", count(*) OVER () FROM jobs" + cond + order
		return s.searchJobs(ctx, page, args, count, countArgs)
	}
	b := &pgx.Batch{}
	b.Queue(count, countArgs...)
	b.Queue(jobSelect+cond+order, args...)
	br := s.pool.SendBatch(ctx, b)
	defer br.Close()
	jobs, total, err := readJobPage(br)
	if err != nil {
		return nil, 0, fmt.Errorf("postgres.ListJobs: %w", err)
	}
	return jobs, total, nil
}

// readJobPage reads ListJobs's batch: the count, then the page. Errors
// are the domain's (translated), not yet wrapped.
func readJobPage(br pgx.BatchResults) ([]domain.Job, int, error) {
	var total int
	if err := br.QueryRow().Scan(&total); err != nil {
		return nil, 0, translate(err)
	}
	rows, err := br.Query()
	if err != nil {
		return nil, 0, translate(err)
	}
	defer rows.Close()
	out := []domain.Job{}
	for rows.Next() {
		j, err := toDomainJob(rows)
		if err != nil {
			return nil, 0, translate(err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, translate(err)
	}
	return out, total, nil
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
	rows, err := s.pool.Query(ctx, analysisSelect+` WHERE account_id = $1 AND doc_id = ANY($2)`, string(account), ids)
	if err != nil {
		return nil, fmt.Errorf("postgres.AnalysesByDocs: %w", translate(err))
	}
	defer rows.Close()
	for rows.Next() {
		a, err := toDomainAnalysis(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres.AnalysesByDocs: %w", translate(err))
		}
		out[a.DocID] = a
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres.AnalysesByDocs: %w", translate(err))
	}
	return out, nil
}

// searchJobs runs a search's page query (its rows carry the total) in a
// read-only transaction that keeps the planner off sequential scans, so the
// hits come from the trigram index jobs_search_trgm: its cost model prices
// a LIKE on a long transcript like a comparison of two integers, and so
// prefers testing every row of the account (200 ms at 10,000 recordings) to
// the index (3 ms). The setting and the query go in one round trip; a page
// past the last match has no row to carry the total, and asks count.
func (s *Store) searchJobs(ctx context.Context, page string, args []any, count string, countArgs []any) (jobs []domain.Job, total int, err error) {
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue("SET LOCAL enable_seqscan = off")
		b.Queue(page, args...)
		br := tx.SendBatch(ctx, b)
		jobs, total, err = readSearchPage(br)
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err == nil && len(jobs) == 0 {
			err = tx.QueryRow(ctx, count, countArgs...).Scan(&total)
		}
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("postgres.ListJobs: %w", translate(err))
	}
	return jobs, total, nil
}

// readSearchPage reads searchJobs's batch: the setting, then the page,
// each row with the total.
func readSearchPage(br pgx.BatchResults) ([]domain.Job, int, error) {
	if _, err := br.Exec(); err != nil {
		return nil, 0, err
	}
	rows, err := br.Query()
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []domain.Job{}
	var total int
	for rows.Next() {
		var r sqlstore.JobScan
		if err := rows.Scan(append(r.Dest(), &total)...); err != nil {
			return nil, 0, err
		}
		j, err := r.Job()
		if err != nil {
			return nil, 0, err
		}
		out = append(out, j)
	}
	return out, total, rows.Err()
}
