package clickhouse

import (
	"context"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
)

// docTables are the tables holding rows of a job, each with a doc_id column.
var docTables = []string{"checklist_results", "analyses", "job_status_events", "review_results", "reviews"}

// withoutDeleted drops the events of jobs deleted before (deleted_docs) or
// in this batch (deleting), so a redelivered event never brings back rows
// of a deleted job.
func (s *Store) withoutDeleted(ctx context.Context, events, deleting []domain.Event) ([]domain.Event, error) {
	if len(events) == 0 {
		return nil, nil
	}
	gone := map[domain.DocID]bool{}
	for _, ev := range deleting {
		gone[ev.DocID] = true
	}
	docs := make([]string, 0, len(events))
	for _, ev := range events {
		docs = append(docs, string(ev.DocID))
	}
	rows, err := s.conn.Query(ctx, `SELECT DISTINCT doc_id FROM deleted_docs WHERE has(?, doc_id)`, docs)
	if err != nil {
		return nil, fmt.Errorf("clickhouse.Write: deleted docs: %w", err)
	}
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			rows.Close()
			return nil, fmt.Errorf("clickhouse.Write: deleted docs: %w", err)
		}
		gone[domain.DocID(d)] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("clickhouse.Write: deleted docs: %w", err)
	}
	kept := events[:0:0]
	for _, ev := range events {
		if !gone[ev.DocID] {
			kept = append(kept, ev)
		}
	}
	return kept, nil
}

// forget records the deleted jobs and drops their rows from every table.
// The drop is a ClickHouse mutation: it completes in the background, and
// repeating it (a redelivered job.deleted) is harmless.
func (s *Store) forget(ctx context.Context, deleted []domain.Event) error {
	b, err := s.conn.PrepareBatch(ctx, `INSERT INTO deleted_docs (doc_id, account_id, deleted_at)`)
	if err != nil {
		return fmt.Errorf("clickhouse.Write: deleted docs: %w", err)
	}
	docs := make([]string, 0, len(deleted))
	for _, ev := range deleted {
		at, _ := splitMs(ev.OccurredAt)
		if err := b.Append(string(ev.DocID), string(ev.AccountID), at); err != nil {
			b.Abort()
			return fmt.Errorf("clickhouse.Write: deleted docs: %w", err)
		}
		docs = append(docs, string(ev.DocID))
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("clickhouse.Write: deleted docs: %w", err)
	}
	for _, table := range docTables {
		if err := s.conn.Exec(ctx, `ALTER TABLE `+table+` DELETE WHERE has(?, doc_id)`, docs); err != nil {
			return fmt.Errorf("clickhouse.Write: drop rows of deleted jobs from %s: %w", table, err)
		}
	}
	return nil
}
