package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// CreateSession saves s; domain.ErrConflict if its ID exists.
func (s *Store) CreateSession(ctx context.Context, sess domain.Session) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, user_id, account_id, csrf, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?)`,
			sess.ID, sess.UserID, string(sess.AccountID), sess.CSRF, toMs(sess.CreatedAt), toMs(sess.ExpiresAt))
		return translate(err)
	})
	if err != nil {
		return fmt.Errorf("sqlite.CreateSession: %w", err)
	}
	return nil
}

// DeleteSession removes one session; an absent one is no error.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
		return translate(err)
	})
	if err != nil {
		return fmt.Errorf("sqlite.DeleteSession: %w", err)
	}
	return nil
}

// ExtendSession sets a session's end; an absent one is no error.
func (s *Store) ExtendSession(ctx context.Context, id string, expiresAt time.Time) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET expires_at = ? WHERE id = ?`, toMs(expiresAt), id)
		return translate(err)
	})
	if err != nil {
		return fmt.Errorf("sqlite.ExtendSession: %w", err)
	}
	return nil
}

// DeleteExpiredSessions removes sessions that expired at or before now and
// returns how many.
func (s *Store) DeleteExpiredSessions(ctx context.Context, now time.Time) (int, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at <= ?`, toMs(now))
		if err != nil {
			return translate(err)
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite.DeleteExpiredSessions: %w", err)
	}
	return int(n), nil
}
