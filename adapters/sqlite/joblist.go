package sqlite

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/adapters/internal/webquery"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// ListJobs returns one page of the account's jobs matching q in q.Sort's
// order, and how many match in all (whatever the page), in one statement
// whose order an index gives (sqlstore.HistoryOrder: keyset pages, never
// an OFFSET past the rows of earlier pages). Search is a substring of the
// stored search_text (see webquery), never SQLite's ASCII-only lower():
// found in the trigram index job_search when the search is long enough
// (searchPhrase), else by a scan; the matches are found once (the CTE m)
// for the count and the page, and only the page's rows read their
// transcription's excerpt.
func (s *Store) ListJobs(ctx context.Context, q ports.JobQuery) ([]ports.ListedJob, int, error) {
	a := sqlstore.SQLite.NewArgs()
	where, err := sqlstore.SQLite.JobFilter(q, a)
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite.ListJobs: %w", err)
	}
	param := a.Add
	if phrase, ok := searchPhrase(q.Search); ok {
		// The index names the few jobs with the words; the unary + keeps
		// SQLite from walking the account's every job (and its text) on
		// jobs_account_created instead.
		where[0] = "+" + where[0]
		where = append(where, "search_id IN (SELECT rowid FROM job_search WHERE job_search MATCH "+param(phrase)+")")
	} else if q.Search != "" {
		where = append(where, `search_text LIKE '%' || `+param(webquery.Contains(q.Search))+` || '%' ESCAPE '\'`)
	}
	countArgs := a.Values[:len(a.Values):len(a.Values)]
	all := strings.Join(where, " AND ")
	keyset, order := sqlstore.HistoryOrder(q, a)
	page, inM := all, "1"
	if keyset != "" {
		page, inM = all+" AND "+keyset, keyset
	}
	limit, offset := webquery.Page(q)
	var query, count string
	if q.Search == "" {
		count = "SELECT count(*) FROM jobs WHERE " + all
		query = "SELECT " + sqlstore.SQLite.ListedCols() + ", '', (" + count + ") FROM jobs WHERE " + page + order
	} else {
		folded, beyond := webquery.Excerpt(q.Search)
		with := "WITH m AS MATERIALIZED (SELECT rowid AS r, created_at, id, list_score, list_duration FROM jobs WHERE " + all + ") "
		count = with + "SELECT count(*) FROM m"
		excerpt := "substr(transcription, 1, instr(substr(search_text, " + webquery.FoldedTitleLength + " + 2), " +
			param(folded) + ") + " + param(beyond) + ")"
		query = with + "SELECT " + sqlstore.SQLite.ListedCols() + ", " + excerpt + ", (SELECT count(*) FROM m) FROM jobs WHERE rowid IN (SELECT r FROM m WHERE " + inM + order
	}
	query += " LIMIT " + param(limit) + " OFFSET " + param(offset)
	if q.Search != "" {
		query += ")" + order
	}
	jobs, total, err := s.listJobs(ctx, query, a.Values)
	if err == nil && len(jobs) == 0 {
		// Past the last page no row carries the total.
		err = s.db.QueryRowContext(ctx, count, countArgs...).Scan(&total)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite.ListJobs: %w", translate(err))
	}
	if q.Back {
		slices.Reverse(jobs)
	}
	return jobs, total, nil
}

// listJobs reads ListJobs's rows: a listed job, its excerpt and the total.
func (s *Store) listJobs(ctx context.Context, query string, args []any) ([]ports.ListedJob, int, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
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
	args := make([]any, 0, len(docs)+1)
	args = append(args, string(account))
	for _, d := range docs {
		args = append(args, string(d))
	}
	list, err := queryAll(ctx, s.db, sqlstore.ScanAnalysis, shared.Analysis.Select+` WHERE account_id = ? AND doc_id IN (`+placeholders(len(docs))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite.AnalysesByDocs: %w", err)
	}
	for _, a := range list {
		out[a.DocID] = a
	}
	return out, nil
}
