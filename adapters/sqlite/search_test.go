package sqlite

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/internal/migrations"
	"github.com/hyscribe/hyscribe/adapters/internal/webquery"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
	"github.com/hyscribe/hyscribe/ports/porttest"
)

// TestUpgradeRefoldsSearchText: jobs written before migration 8 hold the
// old search text (Go's lower-cased title and transcription); after the upgrade
// they are found by either spelling of "ev" and by metadata values.
func TestUpgradeRefoldsSearchText(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	acct := domain.Account{ID: "acc", Name: "Acme", Plan: domain.PlanBusiness, CreatedAt: t0}
	if err = s.CreateAccount(ctx, acct); err != nil {
		t.Fatal(err)
	}
	j, evs := domain.NewJob("doc", acct.ID, domain.CreateRequest{Type: domain.TypeSingleVoice, Metadata: json.RawMessage(`{"crm":"B-77"}`)}, t0, domain.UploadWindow)
	if err := s.CreateJob(ctx, j, evs); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE jobs SET status = 'transcribed', title = 'Երևան', search_text = 'երևան' || char(10) || transcription`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM schema_migrations WHERE version = ?`, searchMigration(t)); err != nil {
		t.Fatal(err)
	}
	if _, n, _ := s.ListJobs(ctx, ports.JobQuery{Account: acct.ID, Search: "B-77"}); n != 0 {
		t.Fatal("the old search text already has the metadata: the test proves nothing")
	}
	s.Close()
	if s, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
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

// BenchmarkSearch10k is a history search over 10,000 recordings.
func BenchmarkSearch10k(b *testing.B) { porttest.BenchmarkSearch(b, openTemp(b), 10_000, nil) }

// BenchmarkHistoryPaging100k is the history's first and a deep page in
// every order over 100,000 calls (docs/performance.md, History paging).
func BenchmarkHistoryPaging100k(b *testing.B) {
	porttest.BenchmarkHistoryPaging(b, openTemp(b), 100_000, nil)
}
