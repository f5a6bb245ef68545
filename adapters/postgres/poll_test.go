package postgres

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
	"github.com/hyscribe/hyscribe/ports/porttest"
)

// handClock is a ports.Clock the test moves.
type handClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *handClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *handClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// TestKeyCacheRevocationAcrossReplicas: two API processes on one database
// cache a key; it is revoked through one of them. That one refuses it at
// once, the other while its cached copy is younger than KeyTTL still
// accepts it, and from KeyTTL on refuses it too.
func TestKeyCacheRevocationAcrossReplicas(t *testing.T) {
	url := pgtest.URL(t)
	const ttl = 5 * time.Second
	clock := &handClock{now: t0}
	a, b := openURL(t, url), openURL(t, url)
	authA, authB := app.NewAuthenticate(a, clock), app.NewAuthenticate(b, clock)
	authA.KeyTTL, authB.KeyTTL = ttl, ttl
	revokeA := app.NewRevokeAPIKey(a, clock)
	revokeA.Revoked = authA.Forget
	acct, raw, err := app.NewCreateAccount(a, clock).Handle(t.Context(), "Acme", domain.PlanBusiness, 600)
	if err != nil {
		t.Fatal(err)
	}
	header := "Bearer " + raw
	for name, auth := range map[string]*app.Authenticate{"A": authA, "B": authB} {
		if _, err := auth.Handle(t.Context(), header); err != nil {
			t.Fatalf("replica %s before revocation: %v", name, err)
		}
	}
	keys, err := app.NewListAPIKeys(a).Handle(t.Context(), acct.ID)
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys %v, %v", keys, err)
	}
	clock.Set(t0.Add(time.Second))
	if err := revokeA.Handle(t.Context(), acct.ID, domain.RoleOwner, keys[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := authA.Handle(t.Context(), header); !errors.Is(err, domain.ErrUnauthorized) {
		t.Fatalf("replica A, where the key was revoked, answered %v; want ErrUnauthorized at once", err)
	}
	// B read the key at t0: its copy is trusted until t0+ttl.
	clock.Set(t0.Add(ttl - time.Millisecond))
	if _, err := authB.Handle(t.Context(), header); err != nil {
		t.Fatalf("replica B within the TTL of its copy: %v (the cache is not in use)", err)
	}
	clock.Set(t0.Add(ttl))
	if _, err := authB.Handle(t.Context(), header); !errors.Is(err, domain.ErrUnauthorized) {
		t.Fatalf("replica B at the TTL answered %v; want ErrUnauthorized", err)
	}
}

// TestPollLimitAcrossReplicas: polls spread over two API processes on one
// database, each counting and reading the job in one statement: 60 are
// answered, the 61st is refused whichever replica it reaches, and the job
// of another account stays a 404 for the poller.
func TestPollLimitAcrossReplicas(t *testing.T) {
	url := pgtest.URL(t)
	clock := &handClock{now: domain.RateWindow(t0).Add(time.Second)}
	stores := []*Store{openURL(t, url), openURL(t, url)}
	createAccount := app.NewCreateAccount(stores[0], clock)
	acct, raw, err := createAccount.Handle(t.Context(), "Acme", domain.PlanBusiness, 600)
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := createAccount.Handle(t.Context(), "Other", domain.PlanBusiness, 600)
	if err != nil {
		t.Fatal(err)
	}
	mine, theirs := domain.DocID("doc-mine-000001"), domain.DocID("doc-theirs-0001")
	for id, owner := range map[domain.DocID]domain.AccountID{mine: acct.ID, theirs: other.ID} {
		j, evs := domain.NewJob(id, owner, domain.CreateRequest{Type: domain.TypeSingleVoice}, t0, domain.UploadWindow)
		if err := stores[0].CreateJob(t.Context(), j, evs); err != nil {
			t.Fatal(err)
		}
	}
	polls := make([]*app.Poll, len(stores))
	for i, s := range stores {
		polls[i] = app.NewPoll(app.NewRateLimit(s, clock), app.NewGetJob(s, s, s, s, s, s), s)
	}
	p, err := app.NewAuthenticate(stores[0], clock).Handle(t.Context(), "Bearer "+raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := polls[1].Handle(t.Context(), "poll", p, string(theirs), 60); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another account's job: %v, want ErrNotFound", err)
	}
	for i := 2; i <= 60; i++ {
		v, err := polls[i%2].Handle(t.Context(), "poll", p, string(mine), 60)
		if err != nil {
			t.Fatalf("poll %d: %v", i, err)
		}
		if v.Status != domain.StatusUploading {
			t.Fatalf("poll %d: status %q", i, v.Status)
		}
	}
	for i := range stores {
		_, err := polls[i].Handle(t.Context(), "poll", p, string(mine), 60)
		var rl *app.RateLimitError
		if !errors.As(err, &rl) || rl.RetryAfter != 59 {
			t.Fatalf("61st poll on replica %d: %v, want a RateLimitError with Retry-After 59", i, err)
		}
	}
}

func TestTouchAPIKeys(t *testing.T) { porttest.KeyTouches(t, openTest(t)) }

// BenchmarkHitAndGetJob is the store's side of a poll: the counter upsert
// and the job read in one statement, 2,000 keys rotated in one window,
// eight goroutines. pg-µs/op is the Postgres server's CPU per poll (its
// processes read from /proc when the server runs on this machine), the
// cost the 2-core figures of docs/performance.md turn on.
func BenchmarkHitAndGetJob(b *testing.B) {
	const name = "hyscribe_bench_poll"
	url := pgtest.WithApplicationName(b, pgtest.URL(b), name)
	s := openURL(b, url)
	acct, _, err := app.NewCreateAccount(s, &handClock{now: t0}).Handle(b.Context(), "Bench", domain.PlanBusiness, 600)
	if err != nil {
		b.Fatal(err)
	}
	id := domain.DocID("doc-bench-00001")
	j, evs := domain.NewJob(id, acct.ID, domain.CreateRequest{Type: domain.TypeSingleVoice}, t0, domain.UploadWindow)
	if err := s.CreateJob(b.Context(), j, evs); err != nil {
		b.Fatal(err)
	}
	keys := make([]string, 2000)
	for i := range keys {
		keys[i] = fmt.Sprintf("poll:key-%04d", i)
	}
	window := domain.RateWindow(t0)
	var next atomic.Int64
	cpu0, ok := pgtest.ServerCPU(b, url, name)
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, err := s.HitAndGetJob(b.Context(), keys[next.Add(1)%int64(len(keys))], window, id); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/float64(s.pollsSent.Load()), "polls/batch")
	if cpu1, ok1 := pgtest.ServerCPU(b, url, name); ok && ok1 {
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(b.N), "pg-µs/op")
	}
}

// TestPollPlannedOnce: a poll's statements (their plans the same whatever
// the keys and jobs) are planned once per connection and then run on that
// generic plan, while a history search is still planned for its own
// words on every run. Read from pg_prepared_statements of the store's one
// connection.
func TestPollPlannedOnce(t *testing.T) {
	s := openURL(t, pgtest.URL(t)+"&pool_max_conns=1")
	ctx := t.Context()
	acct, _, err := app.NewCreateAccount(s, &handClock{now: t0}).Handle(ctx, "Acme", domain.PlanBusiness, 600)
	if err != nil {
		t.Fatal(err)
	}
	id := domain.DocID("doc-plan-000001")
	j, evs := domain.NewJob(id, acct.ID, domain.CreateRequest{Type: domain.TypeSingleVoice}, t0, domain.UploadWindow)
	if err := s.CreateJob(ctx, j, evs); err != nil {
		t.Fatal(err)
	}
	const runs = 12
	for i := range runs {
		if _, _, err := s.HitAndGetJob(ctx, fmt.Sprintf("poll:key-%d", i), domain.RateWindow(t0), id); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.ListJobs(ctx, ports.JobQuery{Account: acct.ID, Search: fmt.Sprintf("word%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	plans := func(like string) (generic, custom int64) {
		t.Helper()
		err := s.pool.QueryRow(ctx, `SELECT coalesce(sum(generic_plans), 0)::bigint, coalesce(sum(custom_plans), 0)::bigint
			FROM pg_prepared_statements WHERE statement LIKE $1`, like).Scan(&generic, &custom)
		if err != nil {
			t.Fatal(err)
		}
		if generic+custom < runs {
			t.Fatalf("statements like %q ran %d times, want %d: not found", like, generic+custom, runs)
		}
		return generic, custom
	}
	// Postgres plans a statement for its arguments five times before it
	// compares the generic plan with those.
	for _, like := range []string{"%INSERT INTO rate_counters%unnest%", "%FROM jobs WHERE id = ANY%"} {
		if generic, custom := plans(like); custom > 5 {
			t.Errorf("poll's %q: %d runs planned for their arguments, %d on the generic plan; want at most 5 planned", like, custom, generic)
		}
	}
	if generic, _ := plans("%search_text LIKE%"); generic != 0 {
		t.Errorf("history search: %d runs on a generic plan, want every run planned for its words", generic)
	}
}

// TestConcurrentPollsExactAcrossReplicas: 300 polls at once, of one key
// and then spread over 16 keys, over two API processes on one database,
// each batching the polls that arrive together (one upsert adding a
// batch's hits): every count of a key from 1 to its number of polls is
// given exactly once, so the limiter's 61st is refused whichever replica
// and batch it falls in; batches of the two replicas touching the same
// keys all succeed (that they cannot deadlock rests on the key order of
// pollUpsert, which this test does not prove: opposite orders did not
// deadlock here either); a poll of a job that does not exist is counted and
// answers ErrNotFound; and polls were batched (fewer round trips than
// polls).
func TestConcurrentPollsExactAcrossReplicas(t *testing.T) {
	for _, keys := range []int{1, 16} {
		t.Run(fmt.Sprintf("%d keys", keys), func(t *testing.T) { concurrentPolls(t, keys) })
	}
}

func concurrentPolls(t *testing.T, keys int) {
	url := pgtest.URL(t)
	stores := []*Store{openURL(t, url), openURL(t, url)}
	ctx := t.Context()
	acct, _, err := app.NewCreateAccount(stores[0], &handClock{now: t0}).Handle(ctx, "Acme", domain.PlanBusiness, 600)
	if err != nil {
		t.Fatal(err)
	}
	id := domain.DocID("doc-batch-00001")
	j, evs := domain.NewJob(id, acct.ID, domain.CreateRequest{Type: domain.TypeSingleVoice}, t0, domain.UploadWindow)
	if err := stores[0].CreateJob(ctx, j, evs); err != nil {
		t.Fatal(err)
	}
	const polls = 300
	window := domain.RateWindow(t0)
	counts := make([][]int, keys)
	var mu sync.Mutex
	errs := make([]error, polls)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range polls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			doc := id
			if i%10 == 9 {
				doc = "doc-missing-001"
			}
			n, got, err := stores[i%2].HitAndGetJob(ctx, fmt.Sprintf("poll:k%d", i%keys), window, doc)
			mu.Lock()
			counts[i%keys] = append(counts[i%keys], n)
			mu.Unlock()
			switch {
			case doc != id && !errors.Is(err, domain.ErrNotFound):
				errs[i] = fmt.Errorf("missing job: %v, want ErrNotFound", err)
			case doc == id && (err != nil || got.ID != id || got.Status != domain.StatusUploading):
				errs[i] = fmt.Errorf("job %q %q, %v", got.ID, got.Status, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("poll %d: %v", i, err)
		}
	}
	for k, ns := range counts {
		slices.Sort(ns)
		for i, n := range ns {
			if n != i+1 {
				t.Fatalf("key %d: sorted counts %v: want each of 1..%d once", k, ns, len(ns))
			}
		}
	}
	sent := stores[0].pollsSent.Load() + stores[1].pollsSent.Load()
	if sent >= polls {
		t.Errorf("%d polls took %d round trips: not batched", polls, sent)
	}
	t.Logf("%d polls in %d batches", polls, sent)
	// A poll alone still goes at once and continues the count.
	if n, _, err := stores[1].HitAndGetJob(ctx, "poll:k0", window, id); err != nil || n != len(counts[0])+1 {
		t.Errorf("next poll: count %d, %v; want %d", n, err, len(counts[0])+1)
	}
}
