package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// "Forgot password?" limits: requests per minute per client address and
// per e-mail address, so the form can neither flood someone's inbox nor
// be used to probe many addresses quickly.
const (
	ForgotPerIP    = 10
	ForgotPerEmail = 3
	scopeForgotIP  = "forgot-ip"
	scopeForgotEm  = "forgot-email"
)

// ForgotPassword e-mails a one-time reset link to the person with an
// address. An address with only invitations gets a neutral letter
// (Letters.NoPassword) and no invitation is renewed: the newest pending
// invitation of any account would otherwise be renewed, so a stranger who
// invited the address could put its organisation's name into that
// person's recovery letter. An invitation is renewed by whoever sent it.
type ForgotPassword struct {
	users    ports.UserStore
	accounts ports.AccountStore
	limit    *RateLimit
	clock    ports.Clock
}

// NewForgotPassword builds the use case.
func NewForgotPassword(users ports.UserStore, accounts ports.AccountStore, limit *RateLimit, clock ports.Clock) *ForgotPassword {
	need("users", users)
	need("accounts", accounts)
	need("limit", limit)
	need("clock", clock)
	return &ForgotPassword{users: users, accounts: accounts, limit: limit, clock: clock}
}

// Handle runs the use case (ForgotPassword): the letter is in the person's
// language, or lang when they have none yet. It answers the same for a
// known and an unknown address: nil, with the e-mail sent in the
// background, so neither the answer nor its time tells which addresses
// have users. A malformed address is a validation error; too many
// requests are domain.ErrRateLimited. Without e-mail it does nothing.
func (uc *ForgotPassword) Handle(ctx context.Context, letters *Letters, email, clientIP, lang string) error {
	norm, err := domain.NormalizeEmail(email)
	if err != nil {
		return err
	}
	if err := uc.limit.Allow(ctx, scopeForgotIP, clientIP, ForgotPerIP); err != nil {
		return err
	}
	if err := uc.limit.Allow(ctx, scopeForgotEm, norm, ForgotPerEmail); err != nil {
		return err
	}
	if !letters.Enabled() {
		return nil
	}
	go func() {
		bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := uc.mailReset(bg, letters, norm, lang); err != nil {
			letters.log.Warn("forgot password: no e-mail sent", "err", err)
		}
	}()
	return nil
}

func (uc *ForgotPassword) mailReset(ctx context.Context, letters *Letters, email, lang string) error {
	found, err := uc.users.FindUser(ctx, ports.UserKey{Email: email})
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return nil // nobody: nothing to send, and nothing to say
	case err != nil:
		return fmt.Errorf("forgot password: %w", err)
	case found.Invited(): // a person comes first: only invitations have this address
		if found.Lang != "" {
			lang = found.Lang
		}
		return letters.NoPassword(ctx, email, lang)
	}
	// Any account's person (account ""), so no team list is needed.
	u, token, invited, err := issueResetLink(ctx, uc.users, nil, uc.clock, "", email)
	if err != nil {
		return fmt.Errorf("forgot password: %w", err)
	}
	if u.Lang == "" {
		u.Lang = lang
	}
	a, err := uc.accounts.GetAccount(ctx, u.AccountID)
	if err != nil {
		return fmt.Errorf("forgot password: %w", err)
	}
	return letters.Reset(ctx, u, a.Name, token, invited)
}

// SetLanguage records the language a person reads the web application
// and its e-mail in ("hy" or "en"; anything else is Armenian).
type SetLanguage struct {
	users ports.UserStore
}

// NewSetLanguage builds the use case.
func NewSetLanguage(users ports.UserStore) *SetLanguage {
	need("users", users)
	return &SetLanguage{users: users}
}

// Handle runs the use case (SetLanguage).
func (uc *SetLanguage) Handle(ctx context.Context, userID, lang string) error {
	lang = letterLang(strings.TrimSpace(lang))
	err := uc.users.UpdateUser(ctx, userID, func(u *domain.User) error {
		if u.Lang == lang {
			return errUnchanged
		}
		u.Lang = lang
		return nil
	})
	if errors.Is(err, errUnchanged) {
		return nil
	}
	return err
}

var errUnchanged = errors.New("unchanged")
