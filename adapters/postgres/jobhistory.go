package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// queueHistory appends events to job_history in the batch (queueEvents
// calls it beside the outbox).
func queueHistory(b *pgx.Batch, events []domain.Event) {
	for _, e := range events {
		status, errMsg, _ := e.StatusChange()
		b.Queue(`INSERT INTO job_history (doc_id, event_id, topic, type, status, error, note, occurred_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			string(e.DocID), e.ID, e.Topic, e.Type, string(status), errMsg, e.HistoryNote(), toMs(e.OccurredAt))
	}
}

// JobHistory implements ports.JobHistory.
func (s *Store) JobHistory(ctx context.Context, doc domain.DocID) ([]ports.JobEvent, error) {
	rows, err := s.pool.Query(ctx,
		`SELECT event_id, topic, type, status, error, note, occurred_at FROM job_history WHERE doc_id = $1 ORDER BY seq`, string(doc))
	if err != nil {
		return nil, fmt.Errorf("postgres.JobHistory: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ports.JobEvent, error) {
		var e ports.JobEvent
		var status string
		var at int64
		err := r.Scan(&e.EventID, &e.Topic, &e.Type, &status, &e.Error, &e.Note, &at)
		e.Status, e.At = domain.Status(status), fromMs(at)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres.JobHistory: %w", err)
	}
	return out, nil
}
