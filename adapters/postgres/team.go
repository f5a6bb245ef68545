package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/domain"
)

// DeleteUser removes one of the account's users and their sessions.
func (s *Store) DeleteUser(ctx context.Context, account domain.AccountID, id string) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, shared.Team.DeleteUserSessions, id, string(account)); err != nil {
			return translate(err)
		}
		tag, err := tx.Exec(ctx, shared.Team.DeleteUser, id, string(account))
		if err != nil {
			return translate(err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("user %s: %w", id, domain.ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("postgres.DeleteUser: %w", err)
	}
	return nil
}

// DeleteUserSessions removes the user's sessions but keep.
func (s *Store) DeleteUserSessions(ctx context.Context, userID, keep string) (int, error) {
	tag, err := s.pool.Exec(ctx, shared.Team.DeleteOtherSessions, userID, keep)
	if err != nil {
		return 0, fmt.Errorf("postgres.DeleteUserSessions: %w", translate(err))
	}
	return int(tag.RowsAffected()), nil
}
