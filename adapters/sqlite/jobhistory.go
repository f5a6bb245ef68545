package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// recordHistory appends events to job_history inside tx (insertEvents
// calls it beside the outbox).
func recordHistory(ctx context.Context, tx *sql.Tx, events []domain.Event) error {
	for _, e := range events {
		status, errMsg, _ := e.StatusChange()
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO job_history (doc_id, event_id, topic, type, status, error, note, occurred_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			string(e.DocID), e.ID, e.Topic, e.Type, string(status), errMsg, e.HistoryNote(), toMs(e.OccurredAt)); err != nil {
			return translate(err)
		}
	}
	return nil
}

// JobHistory implements ports.JobHistory.
func (s *Store) JobHistory(ctx context.Context, doc domain.DocID) ([]ports.JobEvent, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT event_id, topic, type, status, error, note, occurred_at FROM job_history WHERE doc_id = ? ORDER BY seq`, string(doc))
	if err != nil {
		return nil, fmt.Errorf("sqlite.JobHistory: %w", err)
	}
	defer rows.Close()
	var out []ports.JobEvent
	for rows.Next() {
		var e ports.JobEvent
		var status string
		var at int64
		if err := rows.Scan(&e.EventID, &e.Topic, &e.Type, &status, &e.Error, &e.Note, &at); err != nil {
			return nil, fmt.Errorf("sqlite.JobHistory: %w", err)
		}
		e.Status, e.At = domain.Status(status), fromMs(at)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite.JobHistory: %w", err)
	}
	return out, nil
}
