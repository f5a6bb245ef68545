package app_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/app/apptest"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// countingHasher counts the expensive calls, the ones timing would reveal.
type countingHasher struct{ hashes, verifies atomic.Int32 }

func (h *countingHasher) Hash(p string) (string, error) { h.hashes.Add(1); return "hash:" + p, nil }
func (h *countingHasher) Verify(hash, p string) (bool, error) {
	h.verifies.Add(1)
	return hash == "hash:"+p, nil
}

// TestSignUpDoesTheSameWorkForATakenEmail checks what makes the timing
// equal: a taken email is hashed like a new one, and answered without an
// error and without a session.
func TestSignUpDoesTheSameWorkForATakenEmail(t *testing.T) {
	st := apptest.NewStore()
	h := &countingHasher{}
	clock := ports.SystemClock{}
	signUp := app.NewSignUp(st, st, h, app.NewRateLimit(st, clock), clock)
	ctx := context.Background()
	req := app.SignUpRequest{AccountName: "Org", Email: "a@example.am", Password: "a long enough password", ClientIP: "10.0.0.1"}
	before := h.hashes.Load()
	in, err := signUp.Handle(ctx, req)
	if err != nil || in.Token == "" {
		t.Fatalf("new email: %+v, %v", in, err)
	}
	newWork := h.hashes.Load() - before
	before = h.hashes.Load()
	req.Email = "A@example.am"
	again, err := signUp.Handle(ctx, req)
	if err != nil || again.Token != "" {
		t.Fatalf("taken email: %+v, %v; want no error and no session", again, err)
	}
	if takenWork := h.hashes.Load() - before; takenWork != newWork || newWork != 1 {
		t.Fatalf("hashes: %d for a new email, %d for a taken one; want one each", newWork, takenWork)
	}
	for i := range app.SignUpPerIP - 2 {
		req.Email = "n" + string(rune('a'+i)) + "@example.am"
		if _, err := signUp.Handle(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	before = h.hashes.Load()
	if _, err := signUp.Handle(ctx, req); !errors.Is(err, domain.ErrRateLimited) || h.hashes.Load() != before {
		t.Fatalf("sign-up past the limit: %v, %d hashes; want ErrRateLimited before any hashing", err, h.hashes.Load()-before)
	}
}

// TestOrganisationNameCountsCharacters: the limit the form states, 200
// characters, holds for Armenian letters (two bytes each) too.
func TestOrganisationNameCountsCharacters(t *testing.T) {
	st := apptest.NewStore()
	clock := ports.SystemClock{}
	signUp := app.NewSignUp(st, st, &countingHasher{}, app.NewRateLimit(st, clock), clock)
	long := strings.Repeat("Ա", 200)
	if _, err := signUp.Handle(context.Background(), app.SignUpRequest{AccountName: long, Email: "a@example.am", Password: "a long enough password", ClientIP: "10.0.0.1"}); err != nil {
		t.Fatalf("200 Armenian letters (400 bytes): %v", err)
	}
	_, err := signUp.Handle(context.Background(), app.SignUpRequest{AccountName: long + "Բ", Email: "b@example.am", Password: "a long enough password", ClientIP: "10.0.0.1"})
	var ve *domain.ValidationError
	if !errors.As(err, &ve) || ve.Code != "invalid_name" {
		t.Fatalf("201 characters: %v, want invalid_name", err)
	}
}
