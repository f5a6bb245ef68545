package sqlstore

import (
	"context"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
)

// Tx is an engine's transaction as the shared read-modify-writes use it.
// Its errors come back translated into domain errors by the store.
type Tx interface {
	// QueryRow runs a query that returns at most one row.
	QueryRow(ctx context.Context, query string, args ...any) Scanner
	// Exec runs a statement.
	Exec(ctx context.Context, query string, args ...any) error
}

// ModifyAccount is the body of ports.AccountStore.UpdateAccount inside a
// store's transaction: it reads the account, its row locked by lock (the
// engine's locking clause, "" where the transaction itself excludes other
// writers), applies fn and writes it back; the account keeps its ID. fn's
// error is kept in *fnErr (and returned, which rolls back) for the store to
// return unchanged (see Outcome).
func (d Dialect) ModifyAccount(ctx context.Context, tx Tx, lock string, id domain.AccountID, fn func(*domain.Account) error, fnErr *error) error {
	a, err := ScanAccount(tx.QueryRow(ctx, Select("accounts", AccountCols)+" WHERE id = "+d.Param(1)+lock, string(id)))
	if err != nil {
		return fmt.Errorf("account %s: %w", id, err)
	}
	if *fnErr = fn(&a); *fnErr != nil {
		return *fnErr
	}
	a.ID = id
	return tx.Exec(ctx, d.Update("accounts", AccountCols), KeyLast(AccountRow(a))...)
}

// ModifyUser is ModifyAccount for ports.UserStore.UpdateUser: the user
// keeps its ID and account whatever fn does.
func (d Dialect) ModifyUser(ctx context.Context, tx Tx, lock string, id string, fn func(*domain.User) error, fnErr *error) error {
	u, err := ScanUser(tx.QueryRow(ctx, Select("users", UserCols)+" WHERE id = "+d.Param(1)+lock, id))
	if err != nil {
		return fmt.Errorf("user %s: %w", id, err)
	}
	acct := u.AccountID
	if *fnErr = fn(&u); *fnErr != nil {
		return *fnErr
	}
	u.ID, u.AccountID = id, acct
	return tx.Exec(ctx, d.Update("users", UserCols), KeyLast(UserRow(u))...)
}

// Outcome is what an Update method named method returns after its
// transaction ended with err: fn's own error unchanged, else err (passed
// through translate, when the store gives one) under the method's name.
func Outcome(method string, fnErr, err error, translate func(error) error) error {
	switch {
	case fnErr != nil:
		return fnErr
	case err == nil:
		return nil
	case translate != nil:
		err = translate(err)
	}
	return fmt.Errorf("%s: %w", method, err)
}
