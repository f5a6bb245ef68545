package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// notifyChannel carries "the outbox was written" between processes: writes
// of events send pg_notify on it inside their transaction, so Postgres
// delivers it at commit (and never for a rollback), and every store that
// listens signals its OutboxWritten. A relay in another process then
// publishes at once instead of at its next poll. Notifications are
// database-wide, so stores in other schemas of the database may wake for
// nothing, which the contract allows.
const notifyChannel = "hyscribe_outbox"

// listen keeps one connection LISTENing on notifyChannel until ctx ends,
// reconnecting after errors, and signals OutboxWritten for each
// notification. It holds a connection of its own, outside the pool, so it is
// started only once somebody (a relay) asks for OutboxWritten.
func (s *Store) listen(ctx context.Context) {
	defer close(s.listenDone)
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := s.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		s.logger.Warn("postgres: outbox listener lost its connection; reconnecting", "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 10*time.Second)
	}
}

func (s *Store) listenOnce(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return err
	}
	// Commits may have happened while this connection was not listening.
	s.signal()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		s.signal()
	}
}
