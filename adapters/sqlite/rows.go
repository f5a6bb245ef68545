package sqlite

import (
	"context"
	"database/sql"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
)

// queryAll runs a query on db and reads every row with scan (see
// sqlstore.Collect); its errors are translated.
func queryAll[T any](ctx context.Context, db *sql.DB, scan func(sqlstore.Scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	out, err := sqlstore.Collect(rows, scan)
	if err != nil {
		return nil, translate(err)
	}
	return out, nil
}

// reader is the database as sqlstore.Reads use it.
type reader struct{ db *sql.DB }

func (r reader) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Scanner {
	return r.db.QueryRowContext(ctx, query, args...)
}

func (r reader) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, func(), error) {
	rows, err := r.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	return rows, func() { _ = rows.Close() }, nil
}

// txn is a write transaction as sqlstore.Tx; its errors are translated.
type txn struct{ *sql.Tx }

func (t txn) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Scanner {
	row := t.QueryRowContext(ctx, query, args...)
	return scanFunc(func(dest ...any) error { return translate(row.Scan(dest...)) })
}

func (t txn) Exec(ctx context.Context, query string, args ...any) error {
	_, err := t.ExecContext(ctx, query, args...)
	return translate(err)
}

// scanFunc is a Scan as a sqlstore.Scanner.
type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }
