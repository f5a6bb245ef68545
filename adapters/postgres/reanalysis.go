package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// ReplaceAnalysis overwrites the job's analysis a.ID with a and saves its
// events in one transaction (ports.AnalysisReplacer); the call's review
// goes stale.
func (s *Store) ReplaceAnalysis(ctx context.Context, a domain.Analysis, events []domain.Event) error {
	row, err := sqlstore.AnalysisRow(a)
	if err != nil {
		return fmt.Errorf("postgres.ReplaceAnalysis: %w", err)
	}
	if err := domain.ValidateEvents(events); err != nil {
		return fmt.Errorf("postgres.ReplaceAnalysis: %w", err)
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, sqlstore.Postgres.ReplaceAnalysisSQL(),
			append(sqlstore.KeyLast(row), string(a.DocID))...)
		if err != nil {
			return translate(err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("no analysis %s of job %s: %w", a.ID, a.DocID, domain.ErrNotFound)
		}
		b := &pgx.Batch{}
		b.Queue(sqlstore.SetListScore, sqlstore.ListScore(a), string(a.DocID))
		queueEvents(b, events)
		return translate(tx.SendBatch(ctx, b).Close())
	})
	if err != nil {
		return fmt.Errorf("postgres.ReplaceAnalysis: %w", err)
	}
	if len(events) > 0 {
		s.signal()
	}
	return nil
}
