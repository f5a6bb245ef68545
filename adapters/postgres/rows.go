package postgres

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
)

// queryAll runs a query on pool and reads every row with scan (see
// sqlstore.Collect); its errors are translated.
func queryAll[T any](ctx context.Context, pool *pgxpool.Pool, scan func(sqlstore.Scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := pool.Query(ctx, query, args...)
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
