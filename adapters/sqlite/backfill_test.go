package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/internal/migrations"
	"github.com/hyscribe/hyscribe/ports"
)

// TestUpgradeMakesOldJobsSearchable opens a database made by the previous
// schema (migrations 1 and 2) holding a job with an Armenian capitalised
// title: after the upgrade a lower-case search finds it.
func TestUpgradeMakesOldJobsSearchable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations.Load(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`)
	for _, m := range ms {
		if m.Version > 2 {
			break
		}
		exec(m.SQL)
		exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 0)`, m.Version, m.Name)
	}
	now := time.Now().UnixMilli()
	exec(`INSERT INTO accounts (id, name, plan, balance_ms, created_at) VALUES ('a', 'A', 'business', 0, ?)`, now)
	exec(`INSERT INTO jobs (id, account_id, type, status, created_at, updated_at, upload_expires_at, title, transcription)
		VALUES ('j', 'a', 'single_voice', 'transcribed', ?, ?, ?, 'Պատվերի Առաքում', 'Բարեւ Ձեզ')`, now, now, now)
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{"պատվերի առաքում", "բարեւ ձեզ"} {
		jobs, n, err := s.ListJobs(ctx, ports.JobQuery{Account: "a", Search: q})
		if err != nil || n != 1 || len(jobs) != 1 {
			t.Errorf("search %q after the upgrade: %d jobs, %v", q, n, err)
		}
	}
}
