package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/app/apptest"
	"github.com/hyscribe/hyscribe/domain"
)

type movingClock struct{ now time.Time }

func (c *movingClock) Now() time.Time { return c.now }

// TestSessionsEndWhenIdleAndAfterTheirLifetime signs in and uses the
// session on a clock the test moves: unused for longer than
// domain.SessionIdle it ends; used every few hours it lasts, but never past
// domain.SessionLifetime.
func TestSessionsEndWhenIdleAndAfterTheirLifetime(t *testing.T) {
	st := apptest.NewStore()
	clock := &movingClock{now: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)}
	hasher, limit := &countingHasher{}, app.NewRateLimit(st, clock)
	signUp, signIn, resolve := app.NewSignUp(st, st, hasher, limit, clock), app.NewSignIn(st, st, hasher, limit, clock), app.NewResolveSession(st, st, st, clock)
	ctx := context.Background()
	in, err := signUp.Handle(ctx, app.SignUpRequest{AccountName: "Org", Email: "a@example.am", Password: "a long enough password", ClientIP: "10.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	use := func(after time.Duration) error {
		clock.now = clock.now.Add(after)
		_, err := resolve.Handle(ctx, in.Token)
		return err
	}
	// Used every 11 hours: alive for a week, not longer.
	for used := time.Duration(0); used+11*time.Hour < domain.SessionLifetime; used += 11 * time.Hour {
		if err := use(11 * time.Hour); err != nil {
			t.Fatalf("a session used every 11 hours ended after %s: %v", used+11*time.Hour, err)
		}
	}
	if err := use(11 * time.Hour); !errors.Is(err, domain.ErrUnauthorized) {
		t.Fatalf("a session used past its lifetime of %s: %v, want it ended", domain.SessionLifetime, err)
	}
	// A new one left unused for longer than SessionIdle ends.
	in, err = signIn.Handle(ctx, "a@example.am", "a long enough password", "10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if err := use(domain.SessionIdle - time.Minute); err != nil {
		t.Fatalf("used within %s: %v", domain.SessionIdle, err)
	}
	if err := use(domain.SessionIdle + time.Minute); !errors.Is(err, domain.ErrUnauthorized) {
		t.Fatalf("a session unused for %s: %v, want it ended", domain.SessionIdle+time.Minute, err)
	}
}
