package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// The user's columns and row mapping are shared with the other store.
var userCols = sqlstore.UserCols

var (
	userSelect = sqlstore.Select("users", userCols)
	userInsert = sqlstore.SQLite.Insert("users", userCols)
	userUpdate = sqlstore.SQLite.Update("users", userCols)
)

// toUserRow lists u's values in userCols order. No invitation expiry is NULL.
func toUserRow(u domain.User) []any { return sqlstore.UserRow(u) }

func toDomainUser(sc scanner) (domain.User, error) {
	u, err := sqlstore.ScanUser(sc)
	return u, translate(err)
}

// SignUp saves the account and its first user in one transaction: a taken
// email (or account or user ID) is domain.ErrConflict and saves neither.
func (s *Store) SignUp(ctx context.Context, a domain.Account, owner domain.User) error {
	if owner.AccountID != a.ID {
		return fmt.Errorf("sqlite.SignUp: user %s names account %q, not the new %s", owner.ID, owner.AccountID, a.ID)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, accountInsert, toAccountRow(a)...); err != nil {
			return fmt.Errorf("account %s: %w", a.ID, translate(err))
		}
		if _, err := tx.ExecContext(ctx, userInsert, toUserRow(owner)...); err != nil {
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
		_, err := tx.ExecContext(ctx, userInsert, toUserRow(u)...)
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
		u, err := toDomainUser(tx.QueryRowContext(ctx, userSelect+" WHERE id = ?", id))
		if err != nil {
			return fmt.Errorf("user %s: %w", id, err)
		}
		acct := u.AccountID
		if err := fn(&u); err != nil {
			fnErr = err
			return err
		}
		u.ID, u.AccountID = id, acct
		_, err = tx.ExecContext(ctx, userUpdate, keyLast(toUserRow(u))...)
		return translate(err)
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("sqlite.UpdateUser: %w", err)
	}
	return nil
}
