// Package pgtest gives each test its own empty Postgres schema, so tests
// that need Postgres run in parallel and leave nothing behind. The server
// is the one HYSCRIBE_TEST_DATABASE_URL names (the Makefile sets it), else
// the local one .ci/deps.sh sets up (127.0.0.1:5432, user postgres, trust),
// else a throwaway cluster this package starts with Postgres' own initdb
// and postgres: a test that needs Postgres never skips for want of one
// where Postgres is installed (and fails under CI where it is not).
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/internal/testenv"
)

// EnvURL names the variable with the test server's URL.
const EnvURL = "HYSCRIBE_TEST_DATABASE_URL"

// LocalURL is the server .ci/deps.sh sets up, tried when EnvURL is unset.
const LocalURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// URL creates a new schema and returns a URL whose connections use it
// (search_path), dropping the schema with everything in it when t ends.
func URL(t testing.TB) string {
	t.Helper()
	base := Server(t)
	b := make([]byte, 8)
	rand.Read(b)
	schema := "test_" + hex.EncodeToString(b)

	if err := execSQL(base, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := execSQL(base, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("pgtest: drop schema %s: %v", schema, err)
		}
	})

	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("pgtest: %s is not a URL: %v", base, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Server returns the URL of the server the tests use (see the package
// comment), starting a throwaway cluster for the test process if need be;
// the package then needs TestMain through testenv.Main.
func Server(t testing.TB) string {
	t.Helper()
	return server.URL(t)
}

var server = &testenv.Server{
	Env:     EnvURL,
	Local:   LocalURL,
	Answers: func(u string) error { return execSQL(u, "SELECT 1") },
	Start: func(t testing.TB) (string, func(), error) {
		r, err := findCluster(t).start(t) // findCluster stops t through testenv.Missing without Postgres
		return r.url, r.stop, err
	},
}

// execSQL runs one statement on a connection of its own.
func execSQL(dbURL, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}
