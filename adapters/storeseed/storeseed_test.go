package storeseed_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/postgres"
	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/adapters/sqlite"
	"github.com/hyscribe/hyscribe/adapters/storeseed"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// The harness's own check (not a timing): what it seeds is what the
// benchmark assumes it is, read back through the store, on both stores;
// a second seeding reuses the store, and Reset removes what a run added.

var spec = storeseed.Spec{Jobs: 2000, Accounts: 20, KeysPerAccount: 2}

type seededStore interface {
	ports.AccountStore
	ports.JobStore
	ports.JobPager
	Close() error
}

func check(t *testing.T, st seededStore) {
	t.Helper()
	ctx := context.Background()
	for _, n := range []int{0, 1, 999, 1999} {
		j, err := st.GetJob(ctx, storeseed.JobID(n))
		if err != nil {
			t.Fatalf("job %d: %v", n, err)
		}
		want := storeseed.Job(n, spec.Accounts)
		if j.AccountID != want.AccountID || !j.CreatedAt.Equal(storeseed.JobCreated(n)) || j.Status != want.Status || j.Transcription != want.Transcription {
			t.Errorf("job %d read back as %s %s %s, want %s %s %s", n, j.AccountID, j.CreatedAt, j.Status, want.AccountID, storeseed.JobCreated(n), want.Status)
		}
	}
	if _, err := st.GetJob(ctx, storeseed.JobID(spec.Jobs)); err == nil {
		t.Errorf("job %d exists, beyond the %d seeded", spec.Jobs, spec.Jobs)
	}
	raw, _ := storeseed.Key(7, 1)
	k, a, err := st.APIKeyByHash(ctx, domain.HashAPIKey(raw))
	if err != nil || a.ID != storeseed.AccountID(7) || a.Plan != domain.PlanBusiness || !k.Active() {
		t.Errorf("key 7/1: %+v of %+v, %v; want an active key of the Business account %s", k, a, err, storeseed.AccountID(7))
	}
	page, err := st.PageJobs(ctx, ports.JobQuery{Account: storeseed.AccountID(7), Limit: 1000})
	if err != nil || len(page) != spec.Jobs/spec.Accounts || page[0].ID != storeseed.JobID(spec.Jobs-spec.Accounts+7) {
		t.Errorf("account 7 lists %d jobs (%v), newest first; want %d", len(page), err, spec.Jobs/spec.Accounts)
	}
}

func TestSeedPostgres(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	took, err := storeseed.Postgres(ctx, url, spec)
	if err != nil || took == 0 {
		t.Fatalf("seeding: %v, %v", took, err)
	}
	if again, err := storeseed.Postgres(ctx, url, spec); err != nil || again != 0 {
		t.Fatalf("seeding again: %v, %v; want the store reused", again, err)
	}
	st, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	check(t, st)
	added, evs := domain.NewJob("added-by-a-run", storeseed.AccountID(1), domain.CreateRequest{Type: domain.TypeSingleVoice}, time.Now(), time.Hour)
	if err := st.CreateJob(ctx, added, evs); err != nil {
		t.Fatal(err)
	}
	if err := storeseed.ResetPostgres(ctx, url, spec); err != nil {
		t.Fatal(err)
	}
	if _, err := st.GetJob(ctx, added.ID); err == nil {
		t.Error("Reset left a job a run created")
	}
	check(t, st)
}

func TestSeedSQLite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hyscribe.db")
	took, err := storeseed.SQLite(ctx, path, spec)
	if err != nil || took == 0 {
		t.Fatalf("seeding: %v, %v", took, err)
	}
	if again, err := storeseed.SQLite(ctx, path, spec); err != nil || again != 0 {
		t.Fatalf("seeding again: %v, %v; want the store reused", again, err)
	}
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	check(t, st)
	added, evs := domain.NewJob("added-by-a-run", storeseed.AccountID(1), domain.CreateRequest{Type: domain.TypeSingleVoice}, time.Now(), time.Hour)
	if err := st.CreateJob(ctx, added, evs); err != nil {
		t.Fatal(err)
	}
	if err := storeseed.ResetSQLite(ctx, path, spec); err != nil {
		t.Fatal(err)
	}
	if _, err := st.GetJob(ctx, added.ID); err == nil {
		t.Error("Reset left a job a run created")
	}
	check(t, st)
}
