package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// ReplaceAnalysis overwrites the job's analysis a.ID with a and saves its
// events in one transaction (ports.AnalysisReplacer); the call's review
// goes stale.
func (s *Store) ReplaceAnalysis(ctx context.Context, a domain.Analysis, events []domain.Event) error {
	row, err := sqlstore.AnalysisRow(a)
	if err != nil {
		return fmt.Errorf("sqlite.ReplaceAnalysis: %w", err)
	}
	if err := domain.ValidateEvents(events); err != nil {
		return fmt.Errorf("sqlite.ReplaceAnalysis: %w", err)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, sqlstore.SQLite.ReplaceAnalysisSQL(),
			append(sqlstore.KeyLast(row), string(a.DocID))...)
		if err != nil {
			return translate(err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return fmt.Errorf("no analysis %s of job %s: %w", a.ID, a.DocID, domain.ErrNotFound)
		}
		if _, err := tx.ExecContext(ctx, sqlstore.SetListScore, sqlstore.ListScore(a), string(a.DocID)); err != nil {
			return translate(err)
		}
		return insertEvents(ctx, tx, events)
	})
	if err != nil {
		return fmt.Errorf("sqlite.ReplaceAnalysis: %w", err)
	}
	if len(events) > 0 {
		s.signal()
	}
	return nil
}
