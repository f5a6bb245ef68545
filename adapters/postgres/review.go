package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// ReviewAnalysis locks the job's analysis row, applies fn to the analysis
// and its review and saves the review and its events in one transaction
// (ports.ReviewStore).
func (s *Store) ReviewAnalysis(ctx context.Context, doc domain.DocID, fn func(domain.Analysis, *domain.Review) (*domain.Review, []domain.Event, error)) error {
	var fnErr error
	var sent bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		events, err := sqlstore.Postgres.ModifyReview(ctx, txn{tx}, " FOR NO KEY UPDATE", doc, fn, &fnErr)
		if err != nil || len(events) == 0 {
			return err
		}
		sent = true
		b := &pgx.Batch{}
		queueEvents(b, events)
		return translate(tx.SendBatch(ctx, b).Close())
	})
	if err = sqlstore.Outcome("postgres.ReviewAnalysis", fnErr, err, translate); err == nil && sent {
		s.signal()
	}
	return err
}
