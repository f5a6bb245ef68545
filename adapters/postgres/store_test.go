package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/internal/migrations"
	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports/porttest"
)

// openTest opens a store on a new schema of its own, closed at the end of t.
func openTest(t testing.TB) *Store {
	t.Helper()
	return openURL(t, pgtest.URL(t))
}

func openURL(t testing.TB, url string) *Store {
	t.Helper()
	s, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStoreContract(t *testing.T) {
	porttest.Store(t, func(t *testing.T) porttest.Stores { return openTest(t) })
}

var t0 = time.Date(2025, 3, 14, 9, 26, 53, 589_000_000, time.UTC)

func TestConcurrentOpenMigratesOnce(t *testing.T) {
	url := pgtest.URL(t)
	const n = 6
	stores := make([]*Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { stores[i], errs[i] = Open(t.Context(), url) })
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
	if err := stores[0].pool.QueryRow(t.Context(), `SELECT count(*) FROM schema_migrations`).Scan(&applied); err != nil {
		t.Fatal(err)
	}
	if applied != len(ms) {
		t.Fatalf("schema_migrations has %d rows, want %d", applied, len(ms))
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	url := pgtest.URL(t)
	s := openURL(t, url)
	if _, err := s.pool.Exec(t.Context(), `INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	if s2, err := Open(t.Context(), url); err == nil {
		s2.Close()
		t.Fatal("Open accepted a schema newer than the binary")
	} else if !strings.Contains(err.Error(), "newer than this binary") {
		t.Fatalf("Open: %v", err)
	}
}

func TestMetadataIsKeptByteForByte(t *testing.T) {
	s := openTest(t)
	acct := domain.Account{ID: "acc", Name: "Acme", Plan: domain.PlanBusiness, CreatedAt: t0}
	if err := s.CreateAccount(t.Context(), acct); err != nil {
		t.Fatal(err)
	}
	// Key order jsonb would change (it sorts keys, shortest first), and
	// duplicate keys it would drop.
	meta := `{"zeta":1,"a":{"y":2,"b":3},"a":"again"}`
	j, evs := domain.NewJob("doc-1", acct.ID, domain.CreateRequest{Type: domain.TypeSingleVoice, Metadata: []byte(meta)}, t0, time.Hour)
	if err := s.CreateJob(t.Context(), j, evs); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetJob(t.Context(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Metadata) != meta {
		t.Fatalf("metadata %s, want %s", got.Metadata, meta)
	}
}

func TestHitDropsOldWindows(t *testing.T) {
	s := openTest(t)
	w := domain.RateWindow(t0)
	for _, at := range []time.Time{w.Add(-10 * time.Minute), w.Add(-4 * time.Minute), w} {
		if _, err := s.Hit(t.Context(), "key", at); err != nil {
			t.Fatal(err)
		}
	}
	var windows int
	if err := s.pool.QueryRow(t.Context(), `SELECT count(*) FROM rate_counters`).Scan(&windows); err != nil {
		t.Fatal(err)
	}
	if windows != 2 {
		t.Fatalf("%d windows kept, want 2: the one 10 minutes old dropped", windows)
	}
}

// BenchmarkHit is the rate limiter's cost on every API request: one upsert
// round trip.
func BenchmarkHit(b *testing.B) {
	s := openTest(b)
	w := domain.RateWindow(t0)
	i := 0
	for b.Loop() {
		if _, err := s.Hit(b.Context(), "key-"+strconv.Itoa(i%100), w); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkHitParallel is many requests of one key at once: they queue on
// the counter's row lock.
func BenchmarkHitParallel(b *testing.B) {
	s := openTest(b)
	w := domain.RateWindow(t0)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Hit(b.Context(), "key", w); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkUpdateJob is one pipeline step: lock job and account, save the
// job and one outbox event.
func BenchmarkUpdateJob(b *testing.B) {
	s := openTest(b)
	ctx := b.Context()
	acct := domain.Account{ID: "acc", Name: "Acme", Plan: domain.PlanBusiness, BalanceMs: 1 << 40, CreatedAt: t0}
	if err := s.CreateAccount(ctx, acct); err != nil {
		b.Fatal(err)
	}
	j, evs := domain.NewJob("doc-1", acct.ID, domain.CreateRequest{Type: domain.TypeSingleVoice}, t0, time.Hour)
	if _, err := j.ReceiveUpload(t0, "blob", 1); err != nil {
		b.Fatal(err)
	}
	if err := s.CreateJob(ctx, j, evs); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		err := s.UpdateJob(ctx, j.ID, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
			return j.Redrive(t0.Add(time.Minute))
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// A relay in another process (here: another Store on the same schema)
// hears of commits through LISTEN/NOTIFY instead of waiting for its poll.
func TestOutboxWrittenAcrossProcesses(t *testing.T) {
	url := pgtest.URL(t)
	writer, relay := openURL(t, url), openURL(t, url)
	ch := relay.OutboxWritten()
	select { // the listener signals once it listens
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("the outbox listener did not start")
	}
	acct := domain.Account{ID: "acc", Name: "Acme", Plan: domain.PlanBusiness, CreatedAt: t0}
	if err := writer.CreateAccount(t.Context(), acct); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		drainSignals(ch)
		j, evs := domain.NewJob(domain.DocID(fmt.Sprint("doc-", time.Now().UnixNano())), acct.ID,
			domain.CreateRequest{Type: domain.TypeSingleVoice}, t0, time.Hour)
		if err := writer.CreateJob(t.Context(), j, evs); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatal("a commit in another process did not signal OutboxWritten")
		}
	}
}

func drainSignals(ch <-chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// TestUnreachableDatabaseIsUnavailable cuts the connection to Postgres
// under an open store: every call fails with domain.ErrUnavailable (the
// HTTP adapter's 503), not an unclassified error, and the same store works
// again once the database is reachable, without being reopened.
func TestUnreachableDatabaseIsUnavailable(t *testing.T) {
	proxy, url := pgtest.NewProxy(t, pgtest.URL(t))
	s := openURL(t, url)
	ctx := context.Background()
	a := domain.Account{ID: "acct-down", Name: "down", Plan: domain.PlanBusiness, CreatedAt: t0}
	if err := s.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}

	proxy.Cut()
	calls := map[string]func() error{
		"GetAccount": func() error { _, err := s.GetAccount(ctx, a.ID); return err },
		"GetJob":     func() error { _, err := s.GetJob(ctx, "job-down"); return err },
		"Hit":        func() error { _, err := s.Hit(ctx, "k", t0); return err },
		"APIKeyByHash": func() error {
			_, _, err := s.APIKeyByHash(ctx, "h")
			return err
		},
		"UpdateAccount": func() error {
			return s.UpdateAccount(ctx, a.ID, func(*domain.Account) error { return nil })
		},
		"ClaimOutbox": func() error { _, err := s.ClaimOutbox(ctx, t0, time.Second, 10); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, domain.ErrUnavailable) {
			t.Errorf("%s while the database is unreachable: %v, want ErrUnavailable", name, err)
		}
	}

	proxy.Restore()
	if _, err := s.GetAccount(ctx, a.ID); err != nil {
		t.Fatalf("GetAccount after the database came back: %v", err)
	}
	if _, err := s.GetJob(ctx, "job-down"); !errors.Is(err, domain.ErrNotFound) || errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("GetJob of a missing job after the database came back: %v, want ErrNotFound", err)
	}
}

func TestDeletionContract(t *testing.T) {
	porttest.Deletion(t, func(t *testing.T) porttest.DeletionStores { return openTest(t) })
}
