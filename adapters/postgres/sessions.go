package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// CreateSession saves s; domain.ErrConflict if its ID exists.
func (s *Store) CreateSession(ctx context.Context, sess domain.Session) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO sessions (id, user_id, account_id, csrf, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6)`,
		sess.ID, sess.UserID, string(sess.AccountID), sess.CSRF, toMs(sess.CreatedAt), toMs(sess.ExpiresAt))
	if err != nil {
		return fmt.Errorf("postgres.CreateSession: %w", translate(err))
	}
	return nil
}

// DeleteSession removes one session; an absent one is no error.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE id = $1`, id); err != nil {
		return fmt.Errorf("postgres.DeleteSession: %w", translate(err))
	}
	return nil
}

// ExtendSession sets a session's end; an absent one is no error.
func (s *Store) ExtendSession(ctx context.Context, id string, expiresAt time.Time) error {
	if _, err := s.pool.Exec(ctx, `UPDATE sessions SET expires_at = $1 WHERE id = $2`, toMs(expiresAt), id); err != nil {
		return fmt.Errorf("postgres.ExtendSession: %w", translate(err))
	}
	return nil
}

// DeleteExpiredSessions removes sessions that expired at or before now and
// returns how many.
func (s *Store) DeleteExpiredSessions(ctx context.Context, now time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE expires_at <= $1`, toMs(now))
	if err != nil {
		return 0, fmt.Errorf("postgres.DeleteExpiredSessions: %w", translate(err))
	}
	return int(tag.RowsAffected()), nil
}
