package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
)

// queryAll runs a query on pool and reads every row with scan, an empty
// slice when there are none (pgx.CollectRows, which closes the rows); its
// errors are translated.
func queryAll[T any](ctx context.Context, pool *pgxpool.Pool, scan func(sqlstore.Scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := pool.Query(ctx, query, args...)
	var out []T
	if err == nil {
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (T, error) { return scan(r) })
	}
	return out, translate(err)
}

// reader is the pool as sqlstore.Reads use it.
type reader struct{ pool *pgxpool.Pool }

func (r reader) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Scanner {
	return r.pool.QueryRow(ctx, query, args...)
}

func (r reader) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, func(), error) {
	rows, err := r.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	return rows, rows.Close, nil
}

// txn is a transaction as sqlstore.Tx; its errors are translated.
type txn struct{ pgx.Tx }

func (t txn) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Scanner {
	return translated{t.Tx.QueryRow(ctx, query, args...)}
}

func (t txn) Exec(ctx context.Context, query string, args ...any) error {
	_, err := t.Tx.Exec(ctx, query, args...)
	return translate(err)
}

// translated is a row whose Scan errors are translated.
type translated struct{ pgx.Row }

func (r translated) Scan(dest ...any) error { return translate(r.Row.Scan(dest...)) }
