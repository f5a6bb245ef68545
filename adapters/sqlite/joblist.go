package sqlite

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hyscribe/hyscribe/adapters/internal/webquery"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// ListJobs returns one page of the account's jobs matching q, newest first
// (ties by ID), and how many match in all: two queries on the index
// jobs_account_created. Search is a substring of the stored search_text
// (see webquery), never SQLite's ASCII-only lower(), found through the
// trigram index jobs_search.
func (s *Store) ListJobs(ctx context.Context, q ports.JobQuery) ([]domain.Job, int, error) {
	if q.Account == "" {
		return nil, 0, errors.New("sqlite.ListJobs: no account")
	}
	where := []string{"account_id = ?"}
	args := []any{string(q.Account)}
	filter := func(cond string, arg any) {
		where = append(where, cond)
		args = append(args, arg)
	}
	if q.Status != "" {
		filter("status = ?", string(q.Status))
	}
	if q.Type != "" {
		filter("type = ?", string(q.Type))
	}
	if q.ChecklistID != "" {
		filter("checklist_id = ?", q.ChecklistID)
	}
	if !q.From.IsZero() {
		filter("created_at >= ?", toMs(q.From))
	}
	if !q.To.IsZero() {
		filter("created_at < ?", toMs(q.To))
	}
	if q.Search != "" {
		if term := strings.ToLower(q.Search); !strings.ContainsAny(term, `%_\`) {
			// The trigram index (migration 4) answers a LIKE whose whole
			// pattern is one parameter without ESCAPE; with either it
			// would read every row.
			filter(`rowid IN (SELECT rowid FROM jobs_search WHERE search_text LIKE ?)`, "%"+term+"%")
		} else {
			filter(`search_text LIKE '%' || ? || '%' ESCAPE '\'`, webquery.Contains(q.Search))
		}
	}
	cond := " WHERE " + strings.Join(where, " AND ")

	var total int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM jobs"+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("sqlite.ListJobs: %w", translate(err))
	}
	limit, offset := webquery.Page(q)
	rows, err := s.db.QueryContext(ctx, jobSelect+cond+" ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?",
		append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite.ListJobs: %w", translate(err))
	}
	defer rows.Close()
	out := []domain.Job{}
	for rows.Next() {
		j, err := toDomainJob(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("sqlite.ListJobs: %w", err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("sqlite.ListJobs: %w", err)
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
