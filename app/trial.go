package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Trial gives a sign-up's trial seconds (HYSCRIBE_TRIAL_SECONDS) once the
// address it signed up with is confirmed by e-mail, and to an address once:
// sign-ups from one address are cheap to repeat, a mailbox read is not.
// Without e-mail (no SMTP) no trial is offered at all: the sign-up gets the
// sign-up plan and seconds, and an operator grants seconds by hand.
type Trial struct {
	accounts ports.AccountStore
	letters  *Letters
	clock    ports.Clock
	// Seconds is the trial's audio; 0: no trial.
	Seconds float64
}

// NewTrial builds the use case; letters may be nil (no e-mail: no trial).
func NewTrial(accounts ports.AccountStore, letters *Letters, clock ports.Clock, seconds float64) *Trial {
	need("accounts", accounts)
	need("clock", clock)
	return &Trial{accounts: accounts, letters: letters, clock: clock, Seconds: seconds}
}

// Offered reports whether sign-ups are offered a trial: seconds are
// configured and a confirmation letter can be sent.
func (t *Trial) Offered() bool { return t != nil && t.Seconds > 0 && t.letters.Enabled() }

// offer marks a new account's trial as offered to email and returns the
// confirmation link's token (the account's ID and a secret).
func (t *Trial) offer(a *domain.Account, email string) string {
	secret := randomToken()
	a.TrialEmail, a.TrialTokenHash = email, domain.HashToken(secret)
	return string(a.ID) + "." + secret
}

// ConfirmPath is the web application's page of a trial confirmation token.
func ConfirmPath(token string) string { return "/app/confirm/" + token }

// Confirm gives the trial of the token's account: domain.ErrNotFound for a
// link that is unknown, used or older than domain.TrialLinkLife;
// domain.ErrConflict when the address already had its trial with another
// account (the offer then ends).
func (t *Trial) Confirm(ctx context.Context, token string) (domain.Account, error) {
	id, secret, ok := strings.Cut(token, ".")
	if !ok || id == "" || secret == "" || len(token) > 256 {
		return domain.Account{}, fmt.Errorf("trial: %w", domain.ErrNotFound)
	}
	ms := int64(math.Round(max(t.Seconds, 0) * 1000))
	var out domain.Account
	err := t.accounts.UpdateAccount(ctx, domain.AccountID(id), func(a *domain.Account) error {
		if err := a.GrantTrial(domain.HashToken(secret), ms, t.clock.Now()); err != nil {
			return err
		}
		out = *a
		return nil
	})
	if errors.Is(err, domain.ErrConflict) {
		// The address's trial went to another account: end this offer.
		_ = t.accounts.UpdateAccount(ctx, domain.AccountID(id), func(a *domain.Account) error {
			a.TrialTokenHash = ""
			return nil
		})
		return domain.Account{}, fmt.Errorf("trial: this address already had its trial: %w", domain.ErrConflict)
	}
	if err != nil {
		return domain.Account{}, fmt.Errorf("trial: %w", err)
	}
	return out, nil
}
