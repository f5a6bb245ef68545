package postgres

import (
	"context"
	"fmt"
	"time"
)

// OutboxBacklog implements ports.OutboxBacklog. Sent records are deleted,
// so every row is unsent; the oldest is the lowest seq.
func (s *Store) OutboxBacklog(ctx context.Context) (int, time.Time, error) {
	var n int
	var oldest *int64
	err := s.pool.QueryRow(ctx,
		`SELECT count(*), (SELECT created_at FROM outbox ORDER BY seq LIMIT 1) FROM outbox`).Scan(&n, &oldest)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("postgres.OutboxBacklog: %w", err)
	}
	if oldest == nil {
		return 0, time.Time{}, nil
	}
	return n, fromMs(*oldest), nil
}

// Ping reports whether the database answers (readiness).
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres.Ping: %w", err)
	}
	return nil
}
