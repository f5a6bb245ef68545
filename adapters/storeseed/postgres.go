package storeseed

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/adapters/postgres"
)

// Postgres makes sure the database named in dbURL exists (created through
// the server's maintenance database when missing), holds exactly the
// store spec describes, and returns how long seeding took (0 when it was
// already seeded: a million jobs are seeded once and reused). The schema
// is postgres.Open's; the jobs' secondary indexes are dropped during the
// COPY and built again after it (faster than growing them row by row),
// then the tables are vacuumed and analysed, as autovacuum would have.
func Postgres(ctx context.Context, dbURL string, spec Spec) (time.Duration, error) {
	spec = spec.norm()
	if err := createDatabase(ctx, dbURL); err != nil {
		return 0, err
	}
	st, err := postgres.Open(ctx, dbURL) // migrates
	if err != nil {
		return 0, err
	}
	_ = st.Close()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return 0, fmt.Errorf("storeseed: %w", err)
	}
	defer conn.Close(ctx)
	if done, err := pgSeeded(ctx, conn, spec); err != nil || done {
		return 0, err
	}
	start := time.Now()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("storeseed: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `TRUNCATE accounts, api_keys, jobs, job_history, recognized_pieces, analyses, idempotency_keys, account_retention, users CASCADE`); err != nil {
		return 0, fmt.Errorf("storeseed: %w", err)
	}
	var indexes []string
	rows, _ := tx.Query(ctx, `SELECT i.indexdef FROM pg_indexes i
		WHERE i.schemaname = current_schema() AND i.tablename IN ('jobs', 'job_history')
		AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`)
	if indexes, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return 0, fmt.Errorf("storeseed: indexes: %w", err)
	}
	for _, def := range indexes {
		name := strings.Fields(def[strings.Index(def, "INDEX ")+len("INDEX "):])[0]
		if _, err := tx.Exec(ctx, `DROP INDEX `+name); err != nil {
			return 0, fmt.Errorf("storeseed: %w", err)
		}
	}
	copyRows := func(table string, cols []string, n int, row func(i int) ([]any, error)) error {
		i := 0
		_, err := tx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromFunc(func() ([]any, error) {
			if i == n {
				return nil, nil
			}
			i++
			return row(i - 1)
		}))
		if err != nil {
			return fmt.Errorf("storeseed: copy %s: %w", table, err)
		}
		return nil
	}
	err = errors.Join(
		copyRows("accounts", accountCols, spec.Accounts, func(a int) ([]any, error) { return account(a), nil }),
		copyRows("api_keys", keyCols, spec.Accounts*spec.KeysPerAccount, func(i int) ([]any, error) {
			return keyRow(i/spec.KeysPerAccount, i%spec.KeysPerAccount), nil
		}),
		copyRows("jobs", sqlstore.JobWriteCols, spec.Jobs, func(n int) ([]any, error) { return sqlstore.JobRow(Job(n, spec.Accounts)) }),
	)
	if err != nil {
		return 0, err
	}
	var pending [][]any
	err = copyRows("job_history", historyCols, spec.Jobs*3, func(i int) ([]any, error) {
		if len(pending) == 0 {
			pending = history(Job(i/3, spec.Accounts))
		}
		r := pending[0]
		pending = pending[1:]
		return r, nil
	})
	if err != nil {
		return 0, err
	}
	for _, def := range indexes {
		if _, err := tx.Exec(ctx, def); err != nil {
			return 0, fmt.Errorf("storeseed: %s: %w", def, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("storeseed: %w", err)
	}
	// account_retention too: the TRUNCATE forgot the statistics its
	// migration gave it (0031).
	for _, t := range []string{"accounts", "api_keys", "jobs", "job_history", "account_retention"} {
		if _, err := conn.Exec(ctx, `VACUUM ANALYZE `+t); err != nil {
			return 0, fmt.Errorf("storeseed: vacuum %s: %w", t, err)
		}
	}
	return time.Since(start), nil
}

// pgSeeded reports whether the database already holds spec's store: its
// accounts and keys, its last job and no job past it.
func pgSeeded(ctx context.Context, conn *pgx.Conn, spec Spec) (bool, error) {
	var accounts, keys int
	var last, past bool
	err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM accounts), (SELECT count(*) FROM api_keys),
		EXISTS (SELECT 1 FROM jobs WHERE id = $1), EXISTS (SELECT 1 FROM jobs WHERE id = $2)`,
		string(JobID(spec.Jobs-1)), string(JobID(spec.Jobs))).Scan(&accounts, &keys, &last, &past)
	if err != nil {
		return false, fmt.Errorf("storeseed: %w", err)
	}
	return accounts == spec.Accounts && keys == spec.Accounts*spec.KeysPerAccount && last && !past, nil
}

// createDatabase creates dbURL's database unless it exists.
func createDatabase(ctx context.Context, dbURL string) error {
	u, err := url.Parse(dbURL)
	if err != nil {
		return fmt.Errorf("storeseed: %w", err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	if name == "" || name == "postgres" {
		return nil
	}
	u.Path = "/postgres"
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		return fmt.Errorf("storeseed: %w", err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil || exists {
		return err
	}
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("storeseed: create database %s: %w", name, err)
	}
	return nil
}

// DropPostgres drops dbURL's database (the benchmark's, when done).
func DropPostgres(ctx context.Context, dbURL string) error {
	u, err := url.Parse(dbURL)
	if err != nil {
		return fmt.Errorf("storeseed: %w", err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		return fmt.Errorf("storeseed: %w", err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `DROP DATABASE IF EXISTS `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`)
	return err
}

// ResetPostgres removes what a benchmark run added to a seeded database
// (jobs created after the last seeded one, their history, the outbox,
// deliveries, rate counters, idempotency keys), so every run starts from
// the same store.
func ResetPostgres(ctx context.Context, dbURL string, spec Spec) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("storeseed: %w", err)
	}
	defer conn.Close(ctx)
	for _, q := range resetStatements {
		if _, err := conn.Exec(ctx, q, JobCreated(spec.Jobs-1).UnixMilli()); err != nil {
			return fmt.Errorf("storeseed: reset: %w", err)
		}
	}
	return nil
}

// resetStatements take the last seeded job's creation time as their one
// argument (those that need none compare it with itself).
var resetStatements = []string{
	`DELETE FROM job_history WHERE doc_id IN (SELECT id FROM jobs WHERE created_at > $1)`,
	`DELETE FROM recognized_pieces WHERE doc_id IN (SELECT id FROM jobs WHERE created_at > $1)`,
	`DELETE FROM jobs WHERE created_at > $1`,
	`DELETE FROM outbox WHERE $1::bigint IS NOT NULL`,
	`DELETE FROM deliveries WHERE $1::bigint IS NOT NULL`,
	`DELETE FROM rate_counters WHERE $1::bigint IS NOT NULL`,
	`DELETE FROM idempotency_keys WHERE $1::bigint IS NOT NULL`,
	`DELETE FROM job_tombstones WHERE $1::bigint IS NOT NULL`,
}
