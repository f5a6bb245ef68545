package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/domain"
)

const analysisSelect = `SELECT id, doc_id, account_id, checklist_id, checklist_version, checklist_name, status, error, results, created_at FROM analyses`

func toDomainAnalysis(row pgx.Row) (domain.Analysis, error) {
	var a domain.Analysis
	var results string
	var created int64
	if err := row.Scan(&a.ID, &a.DocID, &a.AccountID, &a.ChecklistID, &a.ChecklistVersion, &a.ChecklistName,
		&a.Status, &a.Error, &results, &created); err != nil {
		return domain.Analysis{}, translate(err)
	}
	if err := json.Unmarshal([]byte(results), &a.Results); err != nil {
		return domain.Analysis{}, fmt.Errorf("analysis %s: decode results: %w", a.ID, err)
	}
	a.CreatedAt = fromMs(created)
	return a, nil
}

// SaveAnalysis saves the analysis and its events in one transaction; a
// second analysis of one job is domain.ErrConflict (doc_id is UNIQUE).
func (s *Store) SaveAnalysis(ctx context.Context, a domain.Analysis, events []domain.Event) error {
	if a.Results == nil {
		a.Results = map[string]domain.QuestionResult{}
	}
	results, err := json.Marshal(a.Results)
	if err != nil {
		return fmt.Errorf("postgres.SaveAnalysis: encode results: %w", err)
	}
	if err := domain.ValidateEvents(events); err != nil {
		return fmt.Errorf("postgres.SaveAnalysis: %w", err)
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// A job deleted while its analysis ran keeps no analysis: the share
		// lock waits for a DeleteJob in progress, whose tombstone is then seen.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM jobs WHERE id = $1 FOR SHARE`, string(a.DocID)); err != nil {
			return translate(err)
		}
		var deleted bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM job_tombstones WHERE doc_id = $1)`,
			string(a.DocID)).Scan(&deleted); err != nil {
			return translate(err)
		}
		if deleted {
			return fmt.Errorf("job deleted: %w", domain.ErrNotFound)
		}
		b := &pgx.Batch{}
		b.Queue(`INSERT INTO analyses (id, doc_id, account_id, checklist_id, checklist_version,
			checklist_name, status, error, results, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			a.ID, string(a.DocID), string(a.AccountID), a.ChecklistID, a.ChecklistVersion, a.ChecklistName,
			a.Status, a.Error, string(results), toMs(a.CreatedAt))
		queueEvents(b, events)
		return translate(tx.SendBatch(ctx, b).Close())
	})
	if err != nil {
		return fmt.Errorf("postgres.SaveAnalysis: analysis of %s: %w", a.DocID, err)
	}
	if len(events) > 0 {
		s.signal()
	}
	return nil
}

// GetAnalysis returns an analysis by ID.
func (s *Store) GetAnalysis(ctx context.Context, id string) (domain.Analysis, error) {
	a, err := toDomainAnalysis(s.pool.QueryRow(ctx, analysisSelect+` WHERE id = $1`, id))
	if err != nil {
		return domain.Analysis{}, fmt.Errorf("postgres.GetAnalysis: %s: %w", id, err)
	}
	return a, nil
}

// AnalysisByDoc returns the job's analysis.
func (s *Store) AnalysisByDoc(ctx context.Context, doc domain.DocID) (domain.Analysis, error) {
	a, err := toDomainAnalysis(s.pool.QueryRow(ctx, analysisSelect+` WHERE doc_id = $1`, string(doc)))
	if err != nil {
		return domain.Analysis{}, fmt.Errorf("postgres.AnalysisByDoc: %s: %w", doc, err)
	}
	return a, nil
}

// ListAnalyses returns the account's analyses of the checklist (every
// version) created in [from, to), oldest first (ties by ID).
func (s *Store) ListAnalyses(ctx context.Context, account domain.AccountID, checklistID string, from, to time.Time) ([]domain.Analysis, error) {
	rows, err := s.pool.Query(ctx, analysisSelect+` WHERE account_id = $1 AND checklist_id = $2
		AND created_at >= $3 AND created_at < $4 ORDER BY created_at, id`,
		string(account), checklistID, toMs(from), toMs(to))
	if err != nil {
		return nil, fmt.Errorf("postgres.ListAnalyses: %w", translate(err))
	}
	defer rows.Close()
	out := []domain.Analysis{}
	for rows.Next() {
		a, err := toDomainAnalysis(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres.ListAnalyses: %w", translate(err))
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres.ListAnalyses: %w", translate(err))
	}
	return out, nil
}
