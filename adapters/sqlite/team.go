package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
)

// DeleteUser removes one of the account's users and their sessions.
func (s *Store) DeleteUser(ctx context.Context, account domain.AccountID, id string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, shared.Team.DeleteUserSessions, id, string(account)); err != nil {
			return translate(err)
		}
		res, err := tx.ExecContext(ctx, shared.Team.DeleteUser, id, string(account))
		if err != nil {
			return translate(err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return fmt.Errorf("user %s: %w", id, domain.ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite.DeleteUser: %w", err)
	}
	return nil
}

// DeleteUserSessions removes the user's sessions but keep.
func (s *Store) DeleteUserSessions(ctx context.Context, userID, keep string) (int, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, shared.Team.DeleteOtherSessions, userID, keep)
		if err != nil {
			return translate(err)
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite.DeleteUserSessions: %w", err)
	}
	return int(n), nil
}
