package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// The analysis's columns and row mapping are shared with the other store.
var analysisSelect = sqlstore.Select("analyses", sqlstore.AnalysisCols)

func toDomainAnalysis(row pgx.Row) (domain.Analysis, error) {
	a, err := sqlstore.ScanAnalysis(row)
	return a, translate(err)
}

// SaveAnalysis saves the analysis and its events in one transaction; a
// second analysis of one job is domain.ErrConflict (doc_id is UNIQUE).
func (s *Store) SaveAnalysis(ctx context.Context, a domain.Analysis, events []domain.Event) error {
	row, err := sqlstore.AnalysisRow(a)
	if err != nil {
		return fmt.Errorf("postgres.SaveAnalysis: %w", err)
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
		b.Queue(sqlstore.Postgres.Insert("analyses", sqlstore.AnalysisCols), row...)
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
