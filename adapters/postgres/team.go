package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/webquery"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

var (
	_ ports.TeamStore   = (*Store)(nil)
	_ ports.UsageReader = (*Store)(nil)
)

// ListUsers returns the account's users, oldest first.
func (s *Store) ListUsers(ctx context.Context, account domain.AccountID) ([]domain.User, error) {
	rows, err := s.pool.Query(ctx, userSelect+" WHERE account_id = $1 ORDER BY created_at, id", string(account))
	if err != nil {
		return nil, fmt.Errorf("postgres.ListUsers: %w", translate(err))
	}
	defer rows.Close()
	out := []domain.User{}
	for rows.Next() {
		u, err := toDomainUser(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres.ListUsers: %w", err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres.ListUsers: %w", translate(err))
	}
	return out, nil
}

// DeleteUser removes one of the account's users and their sessions.
func (s *Store) DeleteUser(ctx context.Context, account domain.AccountID, id string) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM sessions WHERE user_id = $1 AND account_id = $2`, id, string(account)); err != nil {
			return translate(err)
		}
		tag, err := tx.Exec(ctx, `DELETE FROM users WHERE id = $1 AND account_id = $2`, id, string(account))
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
	tag, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE user_id = $1 AND id <> $2`, userID, keep)
	if err != nil {
		return 0, fmt.Errorf("postgres.DeleteUserSessions: %w", translate(err))
	}
	return int(tag.RowsAffected()), nil
}

// JobUsage returns the account's jobs created since from, light, oldest
// first, on the index jobs_account_created.
func (s *Store) JobUsage(ctx context.Context, account domain.AccountID, from time.Time) ([]domain.Job, error) {
	rows, err := s.pool.Query(ctx, webquery.UsageSelect+` WHERE account_id = $1 AND created_at >= $2 ORDER BY created_at, id`,
		string(account), toMs(from))
	if err != nil {
		return nil, fmt.Errorf("postgres.JobUsage: %w", translate(err))
	}
	defer rows.Close()
	out := []domain.Job{}
	for rows.Next() {
		var r webquery.UsageRow
		if err := rows.Scan(r.Dest()...); err != nil {
			return nil, fmt.Errorf("postgres.JobUsage: %w", translate(err))
		}
		j, err := r.Job(account)
		if err != nil {
			return nil, fmt.Errorf("postgres.JobUsage: %w", err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres.JobUsage: %w", translate(err))
	}
	return out, nil
}
