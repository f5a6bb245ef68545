package postgres

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/internal/migrations"
	"github.com/hyscribe/hyscribe/adapters/internal/webquery"
	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/testenv"
	"github.com/hyscribe/hyscribe/ports"
	"github.com/hyscribe/hyscribe/ports/porttest"
)

// TestUpgradeRefoldsSearchText: jobs written before migration 8 hold the
// old search text (lower-cased title and transcription); after the upgrade
// they are found by either spelling of "ev" and by metadata values.
func TestUpgradeRefoldsSearchText(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	s := openURL(t, url)
	acct := domain.Account{ID: "acc", Name: "Acme", Plan: domain.PlanBusiness, CreatedAt: t0}
	if err := s.CreateAccount(ctx, acct); err != nil {
		t.Fatal(err)
	}
	j, evs := domain.NewJob("doc", acct.ID, domain.CreateRequest{Type: domain.TypeSingleVoice, Metadata: json.RawMessage(`{"crm":"B-77"}`)}, t0, domain.UploadWindow)
	if err := s.CreateJob(ctx, j, evs); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `UPDATE jobs SET status = 'transcribed', title = 'Երևան', search_text = lower('Երևան' || chr(10) || transcription)`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM schema_migrations WHERE version = $1`, searchMigration(t)); err != nil {
		t.Fatal(err)
	}
	if _, n, _ := s.ListJobs(ctx, ports.JobQuery{Account: acct.ID, Search: "B-77"}); n != 0 {
		t.Fatal("the old search text already has the metadata: the test proves nothing")
	}
	s.Close()
	s = openURL(t, url)
	for _, q := range []string{"ԵՐԵՎԱՆ", "երեւան", "B-77"} {
		if _, n, err := s.ListJobs(ctx, ports.JobQuery{Account: acct.ID, Search: q}); err != nil || n != 1 {
			t.Errorf("search %q after the upgrade: %d jobs, %v", q, n, err)
		}
	}
}

// searchMigration is the version of the migration that refolds search_text.
func searchMigration(t *testing.T) int {
	ms, err := migrations.Load(migrationFiles, "migrations")
	v := migrations.Marked(ms, webquery.BackfillMarker)
	if err != nil || v <= 3 {
		t.Fatalf("no migration after 3 refolds search_text (%v)", err)
	}
	return v
}

// BenchmarkSearch10k is a history search over 10,000 recordings, planned
// with the statistics autovacuum would have gathered.
func BenchmarkSearch10k(b *testing.B) {
	s := openTest(b)
	porttest.BenchmarkSearch(b, s, 10_000, func() {
		if _, err := s.pool.Exec(b.Context(), `ANALYZE jobs`); err != nil {
			b.Fatal(err)
		}
	})
}

// TestSearchIndexPendingListIsSmall: the trigram index merges its pending
// list at 256 kB (migration 10), also in a database upgraded from before
// it, so that a search never reads megabytes of recent rows.
func TestSearchIndexPendingListIsSmall(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	s := openURL(t, url)
	limit := func() string {
		t.Helper()
		var opts []string
		err := s.pool.QueryRow(ctx, `SELECT coalesce(c.reloptions, '{}') FROM pg_class c
			WHERE c.relname = 'jobs_search_trgm' AND c.relnamespace = current_schema()::regnamespace`).Scan(&opts)
		if err != nil {
			testenv.Missing(t, "no trigram index (Postgres' pg_trgm extension, in Debian's postgresql package, unavailable?): %v", err)
		}
		return strings.Join(opts, ",")
	}
	if got := limit(); got != "gin_pending_list_limit=256" {
		t.Fatalf("index options %q, want gin_pending_list_limit=256", got)
	}
	// A database of migration 9: the index with its default limit.
	if _, err := s.pool.Exec(ctx, `ALTER INDEX jobs_search_trgm RESET (gin_pending_list_limit)`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM schema_migrations WHERE version = 10`); err != nil {
		t.Fatal(err)
	}
	if got := limit(); got != "" {
		t.Fatalf("index options after the reset %q: the test proves nothing", got)
	}
	s.Close()
	s = openURL(t, url)
	if got := limit(); got != "gin_pending_list_limit=256" {
		t.Fatalf("index options after the upgrade %q, want gin_pending_list_limit=256", got)
	}
}

// BenchmarkHistoryPaging100k is the history's first and a deep page in
// every order over 100,000 calls, with the table's statistics gathered
// (docs/performance.md, History paging).
func BenchmarkHistoryPaging100k(b *testing.B) {
	s := openTest(b)
	porttest.BenchmarkHistoryPaging(b, s, 100_000, func() {
		if _, err := s.pool.Exec(b.Context(), `ANALYZE jobs`); err != nil {
			b.Fatal(err)
		}
	})
}
