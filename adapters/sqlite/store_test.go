package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/internal/migrations"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports/porttest"
)

// openTemp opens a store on a new file of its own, closed at the end of t.
func openTemp(t testing.TB) *Store {
	t.Helper()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "hyscribe.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func TestStoreContract(t *testing.T) {
	porttest.Store(t, func(t *testing.T) porttest.Stores { return openTemp(t) })
}

// A second Store on the same file stands in for a second process (the CLI
// while `serve` runs): its own connections, its own write semaphore, so the
// two meet only in SQLite's locks.
func TestTwoHandlesShareOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	serve, cli := openPath(t, path), openPath(t, path)
	ctx := t.Context()

	acct := domain.Account{ID: "acc", Name: "Acme", Plan: domain.PlanBusiness, BalanceMs: 60_000, CreatedAt: t0}
	if err := cli.CreateAccount(ctx, acct); err != nil {
		t.Fatal(err)
	}
	if _, err := serve.GetAccount(ctx, acct.ID); err != nil {
		t.Fatalf("serve does not see the account the CLI created: %v", err)
	}

	const n = 16
	j, evs := domain.NewJob("doc-1", acct.ID, domain.CreateRequest{Type: domain.TypeSingleVoice}, t0, time.Hour)
	if err := serve.CreateJob(ctx, j, evs); err != nil {
		t.Fatal(err)
	}
	errs := make([]error, 2*n)
	counts := make([]int, 2*n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 2 * n {
		s := serve
		if i%2 == 1 {
			s = cli
		}
		wg.Go(func() {
			<-start
			errs[i] = s.UpdateJob(ctx, j.ID, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
				return j.ReceiveUpload(t0.Add(time.Second), fmt.Sprint("blob-", i), 1)
			})
			var err error
			if counts[i], err = s.Hit(ctx, "key", domain.RateWindow(t0)); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	wins := 0
	for i, err := range errs {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, domain.ErrInvalidTransition):
			t.Fatalf("goroutine %d: %v", i, err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d goroutines won the transition across two handles, want 1", wins)
	}
	slices.Sort(counts)
	for i, c := range counts {
		if c != i+1 {
			t.Fatalf("hits through two handles counted %v, want 1..%d", counts, 2*n)
		}
	}
}

func TestConcurrentOpenMigratesOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fresh.db")
	const n = 6
	stores := make([]*Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { stores[i], errs[i] = Open(t.Context(), path) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open %d: %v", i, err)
		}
		t.Cleanup(func() { stores[i].Close() })
	}
	ms, err := migrations.Load(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	var applied int
	if err := stores[0].db.QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&applied); err != nil {
		t.Fatal(err)
	}
	if applied != len(ms) {
		t.Fatalf("schema_migrations has %d rows, want %d", applied, len(ms))
	}
}

func TestReopenKeepsDataAndSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reopen.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	acct := domain.Account{ID: "acc", Name: "Acme", Plan: domain.PlanFree, CreatedAt: t0}
	if err := s.CreateAccount(t.Context(), acct); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openPath(t, path)
	got, err := s.GetAccount(t.Context(), acct.ID)
	if err != nil || got.Name != acct.Name {
		t.Fatalf("after reopening: %+v, %v", got, err)
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "newer.db")
	s := openPath(t, path)
	if _, err := s.db.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	if s2, err := Open(t.Context(), path); err == nil {
		s2.Close()
		t.Fatal("Open accepted a schema newer than the binary")
	} else if !strings.Contains(err.Error(), "newer than this binary") {
		t.Fatalf("Open: %v", err)
	}
}

func TestConnectionSettings(t *testing.T) {
	s := openTemp(t)
	for pragma, want := range map[string]string{
		"journal_mode": "wal", "foreign_keys": "1", "busy_timeout": fmt.Sprint(busyTimeout.Milliseconds()), "synchronous": "1",
	} {
		var got string
		if err := s.db.QueryRow("PRAGMA " + pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
}

func TestPathsNeedNoEscaping(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data dir #1")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "hy?scribe%20.db")
	openPath(t, path)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not created at the exact path: %v", err)
	}
}

func TestTimesAreUTCMilliseconds(t *testing.T) {
	s := openTemp(t)
	at := time.Date(2025, 1, 2, 3, 4, 5, 678_912_345, time.FixedZone("AMT", 4*3600))
	acct := domain.Account{ID: "acc", Name: "Acme", Plan: domain.PlanFree, CreatedAt: at}
	if err := s.CreateAccount(t.Context(), acct); err != nil {
		t.Fatal(err)
	}
	var stored int64
	if err := s.db.QueryRow(`SELECT created_at FROM accounts`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != at.UnixMilli() {
		t.Fatalf("stored %d, want unix ms %d", stored, at.UnixMilli())
	}
	got, err := s.GetAccount(t.Context(), acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := at.Truncate(time.Millisecond).UTC(); got.CreatedAt != want {
		t.Fatalf("read back %v, want %v", got.CreatedAt, want)
	}
}

func openPath(t testing.TB, path string) *Store {
	t.Helper()
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var t0 = time.Date(2025, 3, 14, 9, 26, 53, 589_000_000, time.UTC)

func TestHitDropsOldWindows(t *testing.T) {
	s := openTemp(t)
	w := domain.RateWindow(t0)
	for _, at := range []time.Time{w.Add(-10 * time.Minute), w.Add(-4 * time.Minute), w} {
		if _, err := s.Hit(t.Context(), "key", at); err != nil {
			t.Fatal(err)
		}
	}
	var windows int
	if err := s.db.QueryRow(`SELECT count(*) FROM rate_counters`).Scan(&windows); err != nil {
		t.Fatal(err)
	}
	if windows != 2 {
		t.Fatalf("%d windows kept, want 2: the one 10 minutes old dropped", windows)
	}
}

func TestDeletionContract(t *testing.T) {
	porttest.Deletion(t, func(t *testing.T) porttest.DeletionStores { return openTemp(t) })
}
