package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// SignUp saves the account and its first user in one transaction: a taken
// email (or account or user ID) is domain.ErrConflict and saves neither.
func (s *Store) SignUp(ctx context.Context, a domain.Account, owner domain.User) error {
	if owner.AccountID != a.ID {
		return fmt.Errorf("postgres.SignUp: user %s names account %q, not the new %s", owner.ID, owner.AccountID, a.ID)
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(shared.Account.Insert, sqlstore.AccountRow(a)...)
		b.Queue(shared.User.Insert, sqlstore.UserRow(owner)...)
		return translate(tx.SendBatch(ctx, b).Close())
	})
	if err != nil {
		return fmt.Errorf("postgres.SignUp: account %s, user %s: %w", a.ID, owner.ID, translate(err))
	}
	return nil
}

// CreateUser saves a user of an existing account: domain.ErrNotFound if the
// account is missing, domain.ErrConflict if the ID, email or invitation
// hash is taken.
func (s *Store) CreateUser(ctx context.Context, u domain.User) error {
	if _, err := s.pool.Exec(ctx, shared.User.Insert, sqlstore.UserRow(u)...); err != nil {
		return fmt.Errorf("postgres.CreateUser: user %s: %w", u.ID, translate(err))
	}
	return nil
}

// UpdateUser locks the user, applies fn and saves it in one transaction;
// the user keeps its ID and account whatever fn does. When fn fails nothing
// is saved and its error is returned unchanged.
func (s *Store) UpdateUser(ctx context.Context, id string, fn func(*domain.User) error) error {
	var fnErr error
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return sqlstore.Postgres.ModifyUser(ctx, txn{tx}, " FOR UPDATE", id, fn, &fnErr)
	})
	return sqlstore.Outcome("postgres.UpdateUser", fnErr, err, translate)
}
