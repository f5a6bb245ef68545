package postgres

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
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
	provA := app.NewProvision(a, a, clock)
	provA.Revoked = authA.Forget
	acct, raw, err := provA.CreateAccount(t.Context(), "Acme", domain.PlanBusiness, 600)
	if err != nil {
		t.Fatal(err)
	}
	header := "Bearer " + raw
	for name, auth := range map[string]*app.Authenticate{"A": authA, "B": authB} {
		if _, err := auth.Handle(t.Context(), header); err != nil {
			t.Fatalf("replica %s before revocation: %v", name, err)
		}
	}
	keys, err := provA.ListAPIKeys(t.Context(), acct.ID)
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys %v, %v", keys, err)
	}
	clock.Set(t0.Add(time.Second))
	if err := provA.RevokeAPIKey(t.Context(), acct.ID, keys[0].ID); err != nil {
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
	prov := app.NewProvision(stores[0], stores[0], clock)
	acct, raw, err := prov.CreateAccount(t.Context(), "Acme", domain.PlanBusiness, 600)
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := prov.CreateAccount(t.Context(), "Other", domain.PlanBusiness, 600)
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
		polls[i] = app.NewPoll(app.NewRateLimit(s, clock), app.NewGetJob(s), s)
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
