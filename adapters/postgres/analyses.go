package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

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
		b.Queue(sqlstore.SetListScore, sqlstore.ListScore(a), string(a.DocID))
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
