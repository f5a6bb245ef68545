package storeseed

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the driver the SQLite store uses

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/adapters/sqlite"
)

// SQLite is Postgres for the embedded store's file at path: created and
// migrated by sqlite.Open, then filled in one transaction of multi-row
// INSERTs (the search index's triggers fire as they do for every job).
func SQLite(ctx context.Context, path string, spec Spec) (time.Duration, error) {
	spec = spec.norm()
	st, err := sqlite.Open(ctx, path) // migrates
	if err != nil {
		return 0, err
	}
	_ = st.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)&_pragma=foreign_keys(0)")
	if err != nil {
		return 0, fmt.Errorf("storeseed: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var accounts, keys int
	var last, past bool
	err = db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM accounts), (SELECT count(*) FROM api_keys),
		EXISTS (SELECT 1 FROM jobs WHERE id = ?1), EXISTS (SELECT 1 FROM jobs WHERE id = ?2)`,
		string(JobID(spec.Jobs-1)), string(JobID(spec.Jobs))).Scan(&accounts, &keys, &last, &past)
	if err != nil {
		return 0, fmt.Errorf("storeseed: %w", err)
	}
	if accounts == spec.Accounts && keys == spec.Accounts*spec.KeysPerAccount && last && !past {
		return 0, nil
	}
	start := time.Now()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("storeseed: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	for _, t := range []string{"job_history", "recognized_pieces", "analyses", "idempotency_keys", "account_retention", "users", "jobs", "api_keys", "accounts"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t); err != nil { //nolint:gosec // t is one of the constant table names above
			return 0, fmt.Errorf("storeseed: %w", err)
		}
	}
	insert := func(table string, cols []string, n int, row func(i int) ([]any, error)) error {
		const per = 100
		full := insertSQL(table, cols, per)
		stmt, err := tx.PrepareContext(ctx, full)
		if err != nil {
			return fmt.Errorf("storeseed: %s: %w", table, err)
		}
		defer stmt.Close()
		args := make([]any, 0, per*len(cols))
		for i := 0; i < n; i++ {
			r, err := row(i)
			if err != nil {
				return err
			}
			args = append(args, r...)
			if len(args) < cap(args) && i < n-1 {
				continue
			}
			q := stmt
			if len(args) < cap(args) { // the last, short batch
				q, err = tx.PrepareContext(ctx, insertSQL(table, cols, len(args)/len(cols)))
				if err != nil {
					return fmt.Errorf("storeseed: %s: %w", table, err)
				}
				defer q.Close()
			}
			if _, err := q.ExecContext(ctx, args...); err != nil {
				return fmt.Errorf("storeseed: %s: %w", table, err)
			}
			args = args[:0]
		}
		return nil
	}
	if err := insert("accounts", accountCols, spec.Accounts, func(a int) ([]any, error) { return account(a), nil }); err != nil {
		return 0, err
	}
	if err := insert("api_keys", keyCols, spec.Accounts*spec.KeysPerAccount, func(i int) ([]any, error) {
		return keyRow(i/spec.KeysPerAccount, i%spec.KeysPerAccount), nil
	}); err != nil {
		return 0, err
	}
	if err := insert("jobs", sqlstore.JobWriteCols, spec.Jobs, func(n int) ([]any, error) { return sqlstore.JobRow(Job(n, spec.Accounts)) }); err != nil {
		return 0, err
	}
	var pending [][]any
	if err := insert("job_history", historyCols, spec.Jobs*3, func(i int) ([]any, error) {
		if len(pending) == 0 {
			pending = history(Job(i/3, spec.Accounts))
		}
		r := pending[0]
		pending = pending[1:]
		return r, nil
	}); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("storeseed: %w", err)
	}
	if _, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return 0, fmt.Errorf("storeseed: %w", err)
	}
	return time.Since(start), nil
}

// ResetSQLite is ResetPostgres for the SQLite file at path.
func ResetSQLite(ctx context.Context, path string, spec Spec) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("storeseed: %w", err)
	}
	defer db.Close()
	for _, q := range resetStatements {
		q = strings.ReplaceAll(strings.ReplaceAll(q, "$1::bigint", "?1"), "$1", "?1")
		if _, err := db.ExecContext(ctx, q, JobCreated(spec.Jobs-1).UnixMilli()); err != nil {
			return fmt.Errorf("storeseed: reset: %w", err)
		}
	}
	_, err = db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}

// insertSQL is an INSERT of rows rows into table. table and cols are this
// package's constants; every value is a bound parameter.
func insertSQL(table string, cols []string, rows int) string {
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", len(cols)), ",") + ")"
	return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES " + strings.TrimSuffix(strings.Repeat(one+",", rows), ",")
}
