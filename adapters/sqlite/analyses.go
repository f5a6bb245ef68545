package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// The analysis's columns and row mapping are shared with the other store.
var analysisSelect = sqlstore.Select("analyses", sqlstore.AnalysisCols)

func toDomainAnalysis(sc scanner) (domain.Analysis, error) {
	a, err := sqlstore.ScanAnalysis(sc)
	return a, translate(err)
}

// SaveAnalysis saves the analysis and its events in one transaction; a
// second analysis of one job is domain.ErrConflict (doc_id is UNIQUE).
func (s *Store) SaveAnalysis(ctx context.Context, a domain.Analysis, events []domain.Event) error {
	row, err := sqlstore.AnalysisRow(a)
	if err != nil {
		return fmt.Errorf("sqlite.SaveAnalysis: %w", err)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		// A job deleted while its analysis ran keeps no analysis.
		res, err := tx.ExecContext(ctx, sqlstore.SQLite.InsertUnlessDeleted("analyses", sqlstore.AnalysisCols),
			append(row, string(a.DocID))...)
		if err != nil {
			return translate(err)
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return fmt.Errorf("job deleted: %w", domain.ErrNotFound)
		}
		return insertEvents(ctx, tx, events)
	})
	if err != nil {
		return fmt.Errorf("sqlite.SaveAnalysis: analysis of %s: %w", a.DocID, err)
	}
	if len(events) > 0 {
		s.signal()
	}
	return nil
}

// GetAnalysis returns an analysis by ID.
func (s *Store) GetAnalysis(ctx context.Context, id string) (domain.Analysis, error) {
	a, err := toDomainAnalysis(s.db.QueryRowContext(ctx, analysisSelect+` WHERE id = ?`, id))
	if err != nil {
		return domain.Analysis{}, fmt.Errorf("sqlite.GetAnalysis: %s: %w", id, err)
	}
	return a, nil
}

// AnalysisByDoc returns the job's analysis.
func (s *Store) AnalysisByDoc(ctx context.Context, doc domain.DocID) (domain.Analysis, error) {
	a, err := toDomainAnalysis(s.db.QueryRowContext(ctx, analysisSelect+` WHERE doc_id = ?`, string(doc)))
	if err != nil {
		return domain.Analysis{}, fmt.Errorf("sqlite.AnalysisByDoc: %s: %w", doc, err)
	}
	return a, nil
}

// ListAnalyses returns the account's analyses of the checklist (every
// version) created in [from, to), oldest first (ties by ID).
func (s *Store) ListAnalyses(ctx context.Context, account domain.AccountID, checklistID string, from, to time.Time) ([]domain.Analysis, error) {
	rows, err := s.db.QueryContext(ctx, analysisSelect+` WHERE account_id = ? AND checklist_id = ?
		AND created_at >= ? AND created_at < ? ORDER BY created_at, id`,
		string(account), checklistID, toMs(from), toMs(to))
	if err != nil {
		return nil, fmt.Errorf("sqlite.ListAnalyses: %w", translate(err))
	}
	defer rows.Close()
	out := []domain.Analysis{}
	for rows.Next() {
		a, err := toDomainAnalysis(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite.ListAnalyses: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite.ListAnalyses: %w", err)
	}
	return out, nil
}
