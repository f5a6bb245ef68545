package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

func toDomainAccount(sc scanner) (domain.Account, error) {
	a, err := sqlstore.ScanAccount(sc)
	return a, translate(err)
}

// CreateAccount saves a new account. domain.ErrConflict if the ID exists.
func (s *Store) CreateAccount(ctx context.Context, a domain.Account) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, shared.Account.Insert, sqlstore.AccountRow(a)...)
		return translate(err)
	})
	if err != nil {
		return fmt.Errorf("sqlite.CreateAccount: %w", err)
	}
	return nil
}

// UpdateAccount applies fn to the account in one write transaction. When fn
// fails nothing is saved and its error is returned unchanged.
func (s *Store) UpdateAccount(ctx context.Context, id domain.AccountID, fn func(*domain.Account) error) error {
	var fnErr error
	err := s.write(ctx, func(tx *sql.Tx) error {
		return sqlstore.SQLite.ModifyAccount(ctx, txn{tx}, "", id, fn, &fnErr)
	})
	return sqlstore.Outcome("sqlite.UpdateAccount", fnErr, err, nil)
}

var keyCols = "k." + strings.Join(sqlstore.APIKeyCols, ", k.")

// AddAPIKey saves a key. domain.ErrNotFound if the account does not exist,
// domain.ErrConflict if the key's ID or hash is taken.
func (s *Store) AddAPIKey(ctx context.Context, k domain.APIKey) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, sqlstore.SQLite.Insert("api_keys", sqlstore.APIKeyCols), sqlstore.APIKeyRow(k)...)
		return translate(err)
	})
	if err != nil {
		return fmt.Errorf("sqlite.AddAPIKey: %w", err)
	}
	return nil
}

// keyByHashSelect is APIKeyByHash's statement (prepared at Open).
var keyByHashSelect = "SELECT " + keyCols + ", a." + strings.Join(sqlstore.AccountCols, ", a.") + `
	FROM api_keys k JOIN accounts a ON a.id = k.account_id
	WHERE k.hash = ?`

// APIKeyByHash returns the key with that hash, revoked or not, with its account.
func (s *Store) APIKeyByHash(ctx context.Context, hash string) (domain.APIKey, domain.Account, error) {
	var k sqlstore.APIKeyScan
	var a sqlstore.AccountScan
	dest := append(k.Dest(), a.Dest()...)
	err := s.keyByHash.QueryRowContext(ctx, hash).Scan(dest...)
	if err != nil {
		return domain.APIKey{}, domain.Account{}, fmt.Errorf("sqlite.APIKeyByHash: %w", translate(err))
	}
	return k.Key(), a.Account(), nil
}

// TouchAPIKey sets the key's last-used time. It never moves it back (two
// processes' clocks may disagree), and an unknown key is no error:
// last-used is informative only.
func (s *Store) TouchAPIKey(ctx context.Context, id string, at time.Time) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE api_keys SET last_used_at = ?1
			WHERE id = ?2 AND (last_used_at IS NULL OR last_used_at < ?1)`, toMs(at), id)
		return translate(err)
	})
	if err != nil {
		return fmt.Errorf("sqlite.TouchAPIKey: %w", err)
	}
	return nil
}

// ListAPIKeys returns the account's keys, newest first; keys created in the
// same millisecond come last-added first.
func (s *Store) ListAPIKeys(ctx context.Context, account domain.AccountID) ([]domain.APIKey, error) {
	out, err := queryAll(ctx, s.db, sqlstore.ScanAPIKey, "SELECT "+keyCols+` FROM api_keys k
		WHERE k.account_id = ? ORDER BY k.created_at DESC, k.rowid DESC`, string(account))
	if err != nil {
		return nil, fmt.Errorf("sqlite.ListAPIKeys: %w", err)
	}
	return out, nil
}

// RevokeAPIKey revokes one of the account's keys; domain.ErrNotFound if the
// account has no such key. Revoking again keeps the first revocation time.
func (s *Store) RevokeAPIKey(ctx context.Context, account domain.AccountID, id string, at time.Time) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?)
			WHERE id = ? AND account_id = ?`, toMs(at), id, string(account))
		if err != nil {
			return translate(err)
		}
		return oneRow(res, "key "+id)
	})
	if err != nil {
		return fmt.Errorf("sqlite.RevokeAPIKey: %w", err)
	}
	return nil
}

// oneRow turns an UPDATE that matched nothing into domain.ErrNotFound.
func oneRow(res sql.Result, what string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", what, domain.ErrNotFound)
	}
	return nil
}
