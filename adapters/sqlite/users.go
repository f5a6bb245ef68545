package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// SignUp saves the account and its first user in one transaction: a taken
// email (or account or user ID) is domain.ErrConflict and saves neither.
func (s *Store) SignUp(ctx context.Context, a domain.Account, owner domain.User) error {
	if owner.AccountID != a.ID {
		return fmt.Errorf("sqlite.SignUp: user %s names account %q, not the new %s", owner.ID, owner.AccountID, a.ID)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, shared.Account.Insert, sqlstore.AccountRow(a)...); err != nil {
			return fmt.Errorf("account %s: %w", a.ID, translate(err))
		}
		if _, err := tx.ExecContext(ctx, shared.User.Insert, sqlstore.UserRow(owner)...); err != nil {
			return fmt.Errorf("user %s: %w", owner.ID, translate(err))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite.SignUp: %w", err)
	}
	return nil
}

// CreateUser saves a user of an existing account: domain.ErrNotFound if the
// account is missing, domain.ErrConflict if the ID, email or invitation
// hash is taken.
func (s *Store) CreateUser(ctx context.Context, u domain.User) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, shared.User.Insert, sqlstore.UserRow(u)...)
		return translate(err)
	})
	if err != nil {
		return fmt.Errorf("sqlite.CreateUser: user %s: %w", u.ID, err)
	}
	return nil
}

// UpdateUser applies fn to the user in one write transaction; the user
// keeps its ID and account whatever fn does. When fn fails nothing is saved
// and its error is returned unchanged.
func (s *Store) UpdateUser(ctx context.Context, id string, fn func(*domain.User) error) error {
	var fnErr error
	err := s.write(ctx, func(tx *sql.Tx) error {
		return sqlstore.SQLite.ModifyUser(ctx, txn{tx}, "", id, fn, &fnErr)
	})
	return sqlstore.Outcome("sqlite.UpdateUser", fnErr, err, nil)
}
