package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// OutboxBacklog implements ports.OutboxBacklog. Sent records are deleted,
// so every row is unsent; the oldest is the lowest seq.
func (s *Store) OutboxBacklog(ctx context.Context) (int, time.Time, error) {
	var n int
	var oldest sql.NullInt64
	err := s.db.QueryRowContext(ctx,
		`SELECT count(*), (SELECT created_at FROM outbox ORDER BY seq LIMIT 1) FROM outbox`).Scan(&n, &oldest)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("sqlite.OutboxBacklog: %w", err)
	}
	if !oldest.Valid {
		return 0, time.Time{}, nil
	}
	return n, fromMs(oldest.Int64), nil
}

// Ping reports whether the database answers (readiness).
func (s *Store) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite.Ping: %w", err)
	}
	return nil
}
