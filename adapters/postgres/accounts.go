package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

func toDomainAccount(row pgx.Row) (domain.Account, error) {
	a, err := sqlstore.ScanAccount(row)
	return a, translate(err)
}

// CreateAccount saves a new account. domain.ErrConflict if the ID exists.
func (s *Store) CreateAccount(ctx context.Context, a domain.Account) error {
	if _, err := s.pool.Exec(ctx, shared.Account.Insert, sqlstore.AccountRow(a)...); err != nil {
		return fmt.Errorf("postgres.CreateAccount: %w", translate(err))
	}
	return nil
}

// UpdateAccount locks the account, applies fn and saves it in one
// transaction. When fn fails nothing is saved and its error is returned
// unchanged.
func (s *Store) UpdateAccount(ctx context.Context, id domain.AccountID, fn func(*domain.Account) error) error {
	var fnErr error
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return sqlstore.Postgres.ModifyAccount(ctx, txn{tx}, " FOR NO KEY UPDATE", id, fn, &fnErr)
	})
	return sqlstore.Outcome("postgres.UpdateAccount", fnErr, err, translate)
}

var keyCols = "k." + strings.Join(sqlstore.APIKeyCols, ", k.")

// AddAPIKey saves a key. domain.ErrNotFound if the account does not exist,
// domain.ErrConflict if the key's ID or hash is taken.
func (s *Store) AddAPIKey(ctx context.Context, k domain.APIKey) error {
	_, err := s.pool.Exec(ctx, sqlstore.Postgres.Insert("api_keys", sqlstore.APIKeyCols), sqlstore.APIKeyRow(k)...)
	if err != nil {
		return fmt.Errorf("postgres.AddAPIKey: %w", translate(err))
	}
	return nil
}

// APIKeyByHash returns the key with that hash, revoked or not, with its account.
func (s *Store) APIKeyByHash(ctx context.Context, hash string) (domain.APIKey, domain.Account, error) {
	var k sqlstore.APIKeyScan
	var a sqlstore.AccountScan
	dest := append(k.Dest(), a.Dest()...)
	err := s.pool.QueryRow(ctx, "SELECT "+keyCols+", a."+strings.Join(sqlstore.AccountCols, ", a.")+`
		FROM api_keys k JOIN accounts a ON a.id = k.account_id
		WHERE k.hash = $1`, hash).Scan(dest...)
	if err != nil {
		return domain.APIKey{}, domain.Account{}, fmt.Errorf("postgres.APIKeyByHash: %w", translate(err))
	}
	return k.Key(), a.Account(), nil
}

// TouchAPIKey sets the key's last-used time. It never moves it back (two
// processes' clocks may disagree), and an unknown key is no error:
// last-used is informative only.
func (s *Store) TouchAPIKey(ctx context.Context, id string, at time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE api_keys SET last_used_at = $1
		WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)`, toMs(at), id)
	if err != nil {
		return fmt.Errorf("postgres.TouchAPIKey: %w", translate(err))
	}
	return nil
}

// ListAPIKeys returns the account's keys, newest first; keys created in the
// same millisecond come last-added first.
func (s *Store) ListAPIKeys(ctx context.Context, account domain.AccountID) ([]domain.APIKey, error) {
	out, err := queryAll(ctx, s.pool, sqlstore.ScanAPIKey, "SELECT "+keyCols+` FROM api_keys k
		WHERE k.account_id = $1 ORDER BY k.created_at DESC, k.ord DESC`, string(account))
	if err != nil {
		return nil, fmt.Errorf("postgres.ListAPIKeys: %w", err)
	}
	return out, nil
}

// RevokeAPIKey revokes one of the account's keys; domain.ErrNotFound if the
// account has no such key. Revoking again keeps the first revocation time.
func (s *Store) RevokeAPIKey(ctx context.Context, account domain.AccountID, id string, at time.Time) error {
	tag, err := s.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1)
		WHERE id = $2 AND account_id = $3`, toMs(at), id, string(account))
	if err == nil {
		err = oneRow(tag, "key "+id)
	}
	if err != nil {
		return fmt.Errorf("postgres.RevokeAPIKey: %w", translate(err))
	}
	return nil
}

// oneRow turns a statement that matched nothing into domain.ErrNotFound.
func oneRow(tag pgconn.CommandTag, what string) error {
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%s: %w", what, domain.ErrNotFound)
	}
	return nil
}
