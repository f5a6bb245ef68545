package sqlite

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/adapters/internal/webquery"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// listedCols are the columns of a listed job (sqlstore.ListedScan); the
// duration is read as its JSON text.
var listedCols = sqlstore.ListedCols("audio -> '$.duration'")

// ListJobs returns one page of the account's jobs matching q, newest first
// (ties by ID), and how many match in all, in one statement on the index
// jobs_account_created. Search is a substring of the stored search_text
// (see webquery), never SQLite's ASCII-only lower(): found in the trigram
// index job_search when the search is long enough (searchPhrase), else by
// a scan; the matches are found once (the CTE m) for the count and the
// page, and only the page's rows read their transcription's excerpt.
func (s *Store) ListJobs(ctx context.Context, q ports.JobQuery) ([]ports.ListedJob, int, error) {
	if q.Account == "" {
		return nil, 0, errors.New("sqlite.ListJobs: no account")
	}
	var args []any
	param := func(v any) string {
		args = append(args, v)
		return "?" + strconv.Itoa(len(args))
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
	if !q.After.IsZero() {
		ms := param(q.After.CreatedAt.UnixMilli())
		where = append(where, "(created_at < "+ms+" OR created_at = "+ms+" AND id < "+param(string(q.After.ID))+")")
	}
	if phrase, ok := searchPhrase(q.Search); ok {
		// The index names the few jobs with the words; the unary + keeps
		// SQLite from walking the account's every job (and its text) on
		// jobs_account_created instead.
		where[0] = "+" + where[0]
		where = append(where, "search_id IN (SELECT rowid FROM job_search WHERE job_search MATCH "+param(phrase)+")")
	} else if q.Search != "" {
		where = append(where, `search_text LIKE '%' || `+param(webquery.Contains(q.Search))+` || '%' ESCAPE '\'`)
	}
	countArgs := args[:len(args):len(args)]
	limit, offset := webquery.Page(q)
	order := " ORDER BY created_at DESC, id DESC"
	var query, count string
	if q.Search == "" {
		cond := " FROM jobs WHERE " + strings.Join(where, " AND ")
		count = "SELECT count(*)" + cond
		query = "SELECT " + listedCols + ", '', (" + count + ")" + cond + order
	} else {
		folded, beyond := webquery.Excerpt(q.Search)
		with := "WITH m AS MATERIALIZED (SELECT rowid AS r, created_at, id FROM jobs WHERE " + strings.Join(where, " AND ") + ") "
		count = with + "SELECT count(*) FROM m"
		excerpt := "substr(transcription, 1, instr(substr(search_text, " + webquery.FoldedTitleLength + " + 2), " +
			param(folded) + ") + " + param(beyond) + ")"
		query = with + "SELECT " + listedCols + ", " + excerpt + ", (SELECT count(*) FROM m) FROM jobs WHERE rowid IN (SELECT r FROM m" + order
	}
	query += " LIMIT " + param(limit) + " OFFSET " + param(offset)
	if q.Search != "" {
		query += ")" + order
	}
	jobs, total, err := s.listJobs(ctx, query, args)
	if err == nil && len(jobs) == 0 && offset > 0 {
		// Past the last page no row carries the total.
		err = s.db.QueryRowContext(ctx, count, countArgs...).Scan(&total)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite.ListJobs: %w", translate(err))
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
	out := []ports.ListedJob{}
	var total int
	for rows.Next() {
		var r sqlstore.ListedScan
		if err := rows.Scan(append(r.Dest(), &r.Excerpt, &total)...); err != nil {
			return nil, 0, err
		}
		l, err := r.Listed()
		if err != nil {
			return nil, 0, err
		}
		out = append(out, l)
	}
	return out, total, rows.Err()
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
	rows, err := s.db.QueryContext(ctx, analysisSelect+` WHERE account_id = ? AND doc_id IN (`+placeholders(len(docs))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite.AnalysesByDocs: %w", translate(err))
	}
	defer rows.Close()
	for rows.Next() {
		a, err := toDomainAnalysis(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite.AnalysesByDocs: %w", err)
		}
		out[a.DocID] = a
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite.AnalysesByDocs: %w", err)
	}
	return out, nil
}
