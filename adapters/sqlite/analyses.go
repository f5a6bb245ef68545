package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

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
		if _, err := tx.ExecContext(ctx, sqlstore.SetListScore, sqlstore.ListScore(a), string(a.DocID)); err != nil {
			return translate(err)
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
