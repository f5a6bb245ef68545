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
