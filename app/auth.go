package app

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Principal is the caller an API key identifies.
type Principal struct {
	Account domain.Account
	Key     domain.APIKey
}

// Authenticate resolves an Authorization header to the account that owns the
// key. Every failure is domain.ErrUnauthorized with a reason for the caller;
// the key itself never appears in an error.
type Authenticate struct {
	accounts ports.AccountStore
	clock    ports.Clock
	touched  sync.Map // key ID → time.Time of the last TouchAPIKey, to write at most once a minute

	// KeyTTL is how long a key read from the store is trusted without
	// asking it again (0: every request asks). A key revoked on another
	// replica stops working here within KeyTTL; see keycache.go.
	KeyTTL time.Duration
	cache  keyCache
	batch  touchBatch
	// touches writes a batch of last-used times at once (nil: one
	// TouchAPIKey per key); see WithKeyTouches.
	touches ports.APIKeyToucher
}

// AuthOption gives Authenticate an optional capability of the store.
type AuthOption func(*Authenticate)

// WithKeyTouches has Run write the collected last-used times in one call
// (docs/performance.md) instead of one TouchAPIKey per key.
func WithKeyTouches(t ports.APIKeyToucher) AuthOption {
	return func(uc *Authenticate) { uc.touches = t }
}

// NewAuthenticate builds the use case.
func NewAuthenticate(accounts ports.AccountStore, clock ports.Clock, opts ...AuthOption) *Authenticate {
	need("accounts", accounts)
	need("clock", clock)
	uc := &Authenticate{accounts: accounts, clock: clock}
	for _, o := range opts {
		o(uc)
	}
	return uc
}

// Handle checks the header "Bearer <API_KEY>".
func (uc *Authenticate) Handle(ctx context.Context, authorization string) (Principal, error) {
	scheme, raw, ok := strings.Cut(strings.TrimSpace(authorization), " ")
	switch {
	case authorization == "":
		return Principal{}, unauthorized("missing Authorization header: send \"Authorization: Bearer <API_KEY>\"")
	case !ok || !strings.EqualFold(scheme, "Bearer"):
		return Principal{}, unauthorized("Authorization header must be \"Bearer <API_KEY>\"")
	}
	raw = strings.TrimSpace(raw)
	if !domain.ValidAPIKeyFormat(raw) {
		return Principal{}, unauthorized("invalid API key")
	}
	hash := domain.HashAPIKey(raw)
	key, acct, err := uc.lookup(ctx, hash)
	if errors.Is(err, domain.ErrNotFound) {
		return Principal{}, unauthorized("invalid API key")
	}
	if err != nil {
		return Principal{}, fmt.Errorf("authenticate: %w", err)
	}
	// The lookup was by hash; compare again in constant time so that no
	// store's index behaviour can turn into a timing oracle.
	if subtle.ConstantTimeCompare([]byte(key.Hash), []byte(hash)) != 1 {
		return Principal{}, unauthorized("invalid API key")
	}
	if !key.Active() {
		return Principal{}, unauthorized("API key has been revoked")
	}
	uc.touch(ctx, key)
	return Principal{Account: acct, Key: key}, nil
}

func (uc *Authenticate) touch(ctx context.Context, key domain.APIKey) {
	now := uc.clock.Now()
	if last, ok := uc.touched.Load(key.ID); ok && now.Sub(last.(time.Time)) < time.Minute {
		return
	}
	uc.touched.Store(key.ID, now)
	if uc.batch.add(key.ID, now) {
		return // Run writes it with the others
	}
	_ = uc.accounts.TouchAPIKey(ctx, key.ID, now) // last-used is informative; a failure must not refuse the request
}

// RequireBusiness refuses accounts not on the Business plan (spec §5.1).
func RequireBusiness(p Principal) error {
	if p.Account.Plan != domain.PlanBusiness {
		return fmt.Errorf("API access requires a Business-plan account (this account is on %q): %w", p.Account.Plan, domain.ErrForbidden)
	}
	return nil
}

// AuthError is an authentication failure with a message for the caller.
type AuthError struct{ Msg string }

func (e *AuthError) Error() string { return e.Msg }

// Is makes errors.Is(err, domain.ErrUnauthorized) hold.
func (e *AuthError) Is(target error) bool { return target == domain.ErrUnauthorized }

func unauthorized(msg string) error { return &AuthError{Msg: msg} }
