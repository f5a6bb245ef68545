package sqlite

import (
	"context"
	"database/sql"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// ReviewAnalysis applies fn to the job's analysis and review and saves the
// review and its events in one write transaction (ports.ReviewStore).
func (s *Store) ReviewAnalysis(ctx context.Context, doc domain.DocID, fn func(domain.Analysis, *domain.Review) (*domain.Review, []domain.Event, error)) error {
	var fnErr error
	var sent bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		events, err := sqlstore.SQLite.ModifyReview(ctx, txn{tx}, "", doc, fn, &fnErr)
		if err != nil {
			return err
		}
		sent = len(events) > 0
		return insertEvents(ctx, tx, events)
	})
	if err = sqlstore.Outcome("sqlite.ReviewAnalysis", fnErr, err, translate); err == nil && sent {
		s.signal()
	}
	return err
}
