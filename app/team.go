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

// ResetLifetime is how long a password reset link may be used.
const ResetLifetime = 24 * time.Hour

// Team holds what owners do with their account's people in the web
// application (invite, change roles, remove), what everyone does with their
// own password, and the one-time reset links owners and operators hand out.
// Links are shown to copy; nothing is e-mailed.
type Team struct {
	people *People
	team   ports.TeamStore
}

// NewTeam builds the use cases on People's stores.
func NewTeam(people *People, team ports.TeamStore) *Team {
	need("people", people)
	need("team", team)
	return &Team{people: people, team: team}
}

// Members returns the account's people, oldest first.
func (uc *Team) Members(ctx context.Context, account domain.AccountID) ([]domain.User, error) {
	us, err := uc.team.ListUsers(ctx, account)
	if err != nil {
		return nil, fmt.Errorf("team: %w", err)
	}
	return us, nil
}

// InvitesPerAccount is how many invitations an account may make a minute
// (docs/security.md): anyone may sign up and invite.
const (
	InvitesPerAccount = 10
	scopeInvite       = "invite-account"
)

// Invite adds a person to the account and returns the invitation token.
// An invitation reserves no address, and an address with a person in
// another account is invited exactly like an unknown one: the answer never
// tells whether an address has an account. Only an address already in
// this account is refused. Too many invitations a minute are
// domain.ErrRateLimited.
func (uc *Team) Invite(ctx context.Context, account domain.AccountID, email string, role domain.Role) (domain.User, string, error) {
	if err := uc.people.limit.Allow(ctx, scopeInvite, string(account), InvitesPerAccount); err != nil {
		return domain.User{}, "", err
	}
	u, token, err := uc.people.Invite(ctx, account, email, role)
	if errors.Is(err, domain.ErrConflict) {
		return domain.User{}, "", domain.Invalid("email_taken", "%s is already in this team", strings.ToLower(strings.TrimSpace(email)))
	}
	return u, token, err
}

// errLastOwner keeps every account with someone who can manage it.
var errLastOwner = domain.Invalid("last_owner", "an account needs at least one owner: make someone else an owner first")

// SetRole changes the role of one of the account's people. The last owner
// stays an owner.
func (uc *Team) SetRole(ctx context.Context, account domain.AccountID, userID string, role domain.Role) error {
	if !role.Valid() {
		return domain.Invalid("invalid_role", "role must be \"owner\" or \"member\", not %q", role)
	}
	u, err := uc.member(ctx, account, userID)
	if err != nil {
		return err
	}
	if u.Role == domain.RoleOwner && role != domain.RoleOwner {
		if err := uc.anotherOwner(ctx, account, userID); err != nil {
			return err
		}
	}
	return uc.people.users.UpdateUser(ctx, u.ID, func(x *domain.User) error {
		if x.Role != role {
			x.EndResetLink()
		}
		x.Role = role
		return nil
	})
}

// Remove deletes one of the account's people and signs them out. The last
// owner cannot be removed.
func (uc *Team) Remove(ctx context.Context, account domain.AccountID, userID string) error {
	u, err := uc.member(ctx, account, userID)
	if err != nil {
		return err
	}
	if u.Role == domain.RoleOwner {
		if err := uc.anotherOwner(ctx, account, userID); err != nil {
			return err
		}
	}
	// The row goes, and with it any reset link of the person.
	return uc.team.DeleteUser(ctx, account, userID)
}

// member returns one of the account's users; another account's is
// domain.ErrNotFound, like a missing one.
func (uc *Team) member(ctx context.Context, account domain.AccountID, userID string) (domain.User, error) {
	if userID == "" {
		return domain.User{}, domain.ErrNotFound
	}
	u, err := uc.people.users.FindUser(ctx, ports.UserKey{ID: userID})
	if err == nil && u.AccountID != account {
		err = domain.ErrNotFound
	}
	return u, err
}

// memberByEmail returns the account's user with that (normalised) email.
func (uc *Team) memberByEmail(ctx context.Context, account domain.AccountID, email string) (domain.User, error) {
	us, err := uc.team.ListUsers(ctx, account)
	if err != nil {
		return domain.User{}, fmt.Errorf("team: %w", err)
	}
	for _, u := range us {
		if u.Email == email {
			return u, nil
		}
	}
	return domain.User{}, domain.ErrNotFound
}

func (uc *Team) anotherOwner(ctx context.Context, account domain.AccountID, userID string) error {
	us, err := uc.team.ListUsers(ctx, account)
	if err != nil {
		return fmt.Errorf("team: %w", err)
	}
	for _, o := range us {
		if o.ID != userID && o.Role == domain.RoleOwner && !o.Invited() {
			return nil
		}
	}
	return errLastOwner
}

// ChangePassword sets the visitor's new password once the current one is
// right, and signs out every other session of theirs.
func (uc *Team) ChangePassword(ctx context.Context, v Visitor, current, next string) error {
	if len(current) > domain.MaxPasswordLen {
		return errWrongPassword
	}
	ok, err := uc.people.hasher.Verify(v.User.PasswordHash, current)
	if err != nil {
		return fmt.Errorf("change password: %w", err)
	}
	if !ok {
		return errWrongPassword
	}
	if err := uc.setPassword(ctx, v.User.ID, next, ""); err != nil {
		return err
	}
	if _, err := uc.team.DeleteUserSessions(ctx, v.User.ID, v.Session.ID); err != nil {
		return fmt.Errorf("change password: %w", err)
	}
	return nil
}

var errWrongPassword = domain.Invalid("wrong_password", "the current password is wrong")

// setPassword hashes and saves a new password; a non-empty resetHash must
// still be the user's pending link (so a link works once). Any reset link
// of the person ends with the change (domain.User.EndResetLink).
func (uc *Team) setPassword(ctx context.Context, userID, password, resetHash string) error {
	if err := domain.ValidatePassword(password); err != nil {
		return err
	}
	hash, err := uc.people.hasher.Hash(password)
	if err != nil {
		return fmt.Errorf("set password: %w", err)
	}
	now := uc.people.clock.Now()
	return uc.people.users.UpdateUser(ctx, userID, func(x *domain.User) error {
		if resetHash != "" {
			if x.InviteHash != resetHash || !now.Before(x.InviteExpiresAt) {
				return domain.ErrNotFound // used or expired meanwhile
			}
		}
		x.PasswordHash = hash
		x.EndResetLink()
		return nil
	})
}

// ResetLink issues a one-time password reset token for the person with
// that email in the account (an empty account: any account, for
// operators). It replaces any earlier link. For a person who has not yet
// accepted their invitation it renews the invitation instead; invited
// reports which, so the caller builds the right address.
func (uc *Team) ResetLink(ctx context.Context, account domain.AccountID, email string) (u domain.User, token string, invited bool, err error) {
	norm, err := domain.NormalizeEmail(email)
	if err != nil {
		return domain.User{}, "", false, err
	}
	u, err = uc.people.users.FindUser(ctx, ports.UserKey{Email: norm})
	if err == nil && account != "" && u.AccountID != account {
		// The address may have a person elsewhere and an invitation here.
		u, err = uc.memberByEmail(ctx, account, norm)
	}
	if err != nil {
		return domain.User{}, "", false, err
	}
	token = randomToken()
	now := uc.people.clock.Now()
	life := ResetLifetime
	if u.Invited() {
		life = domain.InviteLifetime
	}
	err = uc.people.users.UpdateUser(ctx, u.ID, func(x *domain.User) error {
		x.InviteHash, x.InviteExpiresAt = domain.HashToken(token), now.Add(life)
		u = *x
		return nil
	})
	if err != nil {
		return domain.User{}, "", false, fmt.Errorf("reset link: %w", err)
	}
	return u, token, u.Invited(), nil
}

// PasswordReset returns the person a pending reset token is for; an
// unknown, used or expired one (or an invitation) is domain.ErrNotFound.
func (uc *Team) PasswordReset(ctx context.Context, token string) (domain.User, error) {
	if token == "" {
		return domain.User{}, domain.ErrNotFound
	}
	u, err := uc.people.users.FindUser(ctx, ports.UserKey{InviteHash: domain.HashToken(token)})
	if err != nil {
		return domain.User{}, err
	}
	if u.Invited() || !uc.people.clock.Now().Before(u.InviteExpiresAt) {
		return domain.User{}, domain.ErrNotFound
	}
	return u, nil
}

// ResetPassword sets a new password with a reset token (it works once),
// signs out every session of the person and starts a new one.
func (uc *Team) ResetPassword(ctx context.Context, token, password string) (SignedIn, error) {
	u, err := uc.PasswordReset(ctx, token)
	if err != nil {
		return SignedIn{}, err
	}
	if err := uc.setPassword(ctx, u.ID, password, domain.HashToken(token)); err != nil {
		return SignedIn{}, err
	}
	if _, err := uc.team.DeleteUserSessions(ctx, u.ID, ""); err != nil {
		return SignedIn{}, fmt.Errorf("reset password: %w", err)
	}
	return uc.people.startSession(ctx, u)
}

// Invitation returns the pending invitation of token with the account it
// is to, so the page can name the organisation.
func (uc *Team) Invitation(ctx context.Context, token string) (domain.User, domain.Account, error) {
	u, err := uc.people.Invitation(ctx, token)
	if err != nil {
		return domain.User{}, domain.Account{}, err
	}
	a, err := uc.people.accounts.GetAccount(ctx, u.AccountID)
	if err != nil {
		return domain.User{}, domain.Account{}, fmt.Errorf("invitation: %w", err)
	}
	return u, a, nil
}
