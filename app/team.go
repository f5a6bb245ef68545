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

// The use cases below are what owners do with their account's people in
// the web application (invite, change roles, remove), what everyone does
// with their own password, and the one-time reset links owners and
// operators hand out. Links are shown to copy; nothing is e-mailed.

// ListMembers returns the account's people, oldest first.
type ListMembers struct {
	team ports.TeamStore
}

// NewListMembers builds the use case.
func NewListMembers(team ports.TeamStore) *ListMembers {
	need("team", team)
	return &ListMembers{team: team}
}

// Handle runs the use case (ListMembers).
func (uc *ListMembers) Handle(ctx context.Context, account domain.AccountID) ([]domain.User, error) {
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

// InviteMember adds a person to an owner's account and returns the
// invitation token (the team page; operators use InviteUser).
type InviteMember struct {
	users ports.UserStore
	limit *RateLimit
	clock ports.Clock
}

// NewInviteMember builds the use case.
func NewInviteMember(users ports.UserStore, limit *RateLimit, clock ports.Clock) *InviteMember {
	need("users", users)
	need("limit", limit)
	need("clock", clock)
	return &InviteMember{users: users, limit: limit, clock: clock}
}

// Handle runs the use case (InviteMember). An invitation reserves no
// address, and an address with a person in another account is invited
// exactly like an unknown one: the answer never tells whether an address
// has an account. Only an address already in this account is refused. Too
// many invitations a minute are domain.ErrRateLimited.
func (uc *InviteMember) Handle(ctx context.Context, account domain.AccountID, by domain.Role, email string, role domain.Role) (domain.User, string, error) {
	if err := mayManage(by, "invite"); err != nil {
		return domain.User{}, "", err
	}
	if err := uc.limit.Allow(ctx, scopeInvite, string(account), InvitesPerAccount); err != nil {
		return domain.User{}, "", err
	}
	u, token, err := invite(ctx, uc.users, uc.clock.Now(), account, email, role)
	if errors.Is(err, domain.ErrConflict) {
		return domain.User{}, "", domain.Invalid("email_taken", "%s is already in this team", strings.ToLower(strings.TrimSpace(email)))
	}
	return u, token, err
}

// errLastOwner keeps every account with someone who can manage it.
var errLastOwner = domain.Invalid("last_owner", "an account needs at least one owner: make someone else an owner first")

// SetRole changes the role of one of the account's people.
type SetRole struct {
	users ports.UserStore
	team  ports.TeamStore
}

// NewSetRole builds the use case.
func NewSetRole(users ports.UserStore, team ports.TeamStore) *SetRole {
	need("users", users)
	need("team", team)
	return &SetRole{users: users, team: team}
}

// Handle runs the use case (SetRole). The last owner stays an owner.
func (uc *SetRole) Handle(ctx context.Context, account domain.AccountID, by domain.Role, userID string, role domain.Role) error {
	if err := mayManage(by, "set role"); err != nil {
		return err
	}
	if !role.Valid() {
		return domain.Invalid("invalid_role", "role must be \"owner\", \"analyst\" or \"member\", not %q", role)
	}
	u, err := member(ctx, uc.users, account, userID)
	if err != nil {
		return err
	}
	if u.Role == domain.RoleOwner && role != domain.RoleOwner {
		if err := anotherOwner(ctx, uc.team, account, userID); err != nil {
			return err
		}
	}
	return uc.users.UpdateUser(ctx, u.ID, func(x *domain.User) error {
		if x.Role != role {
			x.EndResetLink()
		}
		x.Role = role
		return nil
	})
}

// RemoveMember deletes one of the account's people and signs them out.
type RemoveMember struct {
	users ports.UserStore
	team  ports.TeamStore
}

// NewRemoveMember builds the use case.
func NewRemoveMember(users ports.UserStore, team ports.TeamStore) *RemoveMember {
	need("users", users)
	need("team", team)
	return &RemoveMember{users: users, team: team}
}

// Handle runs the use case (RemoveMember). The last owner cannot be
// removed.
func (uc *RemoveMember) Handle(ctx context.Context, account domain.AccountID, by domain.Role, userID string) error {
	if err := mayManage(by, "remove member"); err != nil {
		return err
	}
	u, err := member(ctx, uc.users, account, userID)
	if err != nil {
		return err
	}
	if u.Role == domain.RoleOwner {
		if err := anotherOwner(ctx, uc.team, account, userID); err != nil {
			return err
		}
	}
	// The row goes, and with it any reset link of the person.
	return uc.team.DeleteUser(ctx, account, userID)
}

// member returns one of the account's users; another account's is
// domain.ErrNotFound, like a missing one.
func member(ctx context.Context, users ports.UserStore, account domain.AccountID, userID string) (domain.User, error) {
	if userID == "" {
		return domain.User{}, domain.ErrNotFound
	}
	u, err := users.FindUser(ctx, ports.UserKey{ID: userID})
	if err == nil && u.AccountID != account {
		err = domain.ErrNotFound
	}
	return u, err
}

// memberByEmail returns the account's user with that (normalised) email.
func memberByEmail(ctx context.Context, team ports.TeamStore, account domain.AccountID, email string) (domain.User, error) {
	us, err := team.ListUsers(ctx, account)
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

func anotherOwner(ctx context.Context, team ports.TeamStore, account domain.AccountID, userID string) error {
	us, err := team.ListUsers(ctx, account)
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
type ChangePassword struct {
	users  ports.UserStore
	team   ports.TeamStore
	hasher ports.PasswordHasher
	clock  ports.Clock
}

// NewChangePassword builds the use case.
func NewChangePassword(users ports.UserStore, team ports.TeamStore, hasher ports.PasswordHasher, clock ports.Clock) *ChangePassword {
	need("users", users)
	need("team", team)
	need("hasher", hasher)
	need("clock", clock)
	return &ChangePassword{users: users, team: team, hasher: hasher, clock: clock}
}

// Handle runs the use case (ChangePassword).
func (uc *ChangePassword) Handle(ctx context.Context, v Visitor, current, next string) error {
	if len(current) > domain.MaxPasswordLen {
		return errWrongPassword
	}
	ok, err := uc.hasher.Verify(v.User.PasswordHash, current)
	if err != nil {
		return fmt.Errorf("change password: %w", err)
	}
	if !ok {
		return errWrongPassword
	}
	if err := setPassword(ctx, uc.users, uc.hasher, uc.clock, v.User.ID, next, ""); err != nil {
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
// of the person ends with the change (domain.User.EndResetLink). It is the
// work ChangePassword and ResetPassword share.
func setPassword(ctx context.Context, users ports.UserStore, hasher ports.PasswordHasher, clock ports.Clock, userID, password, resetHash string) error {
	if err := domain.ValidatePassword(password); err != nil {
		return err
	}
	hash, err := hasher.Hash(password)
	if err != nil {
		return fmt.Errorf("set password: %w", err)
	}
	now := clock.Now()
	return users.UpdateUser(ctx, userID, func(x *domain.User) error {
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

// ResetLink issues a one-time password reset token for a person (owners
// on the team page, operators with `hyscribe user reset-link`).
type ResetLink struct {
	users ports.UserStore
	team  ports.TeamStore
	clock ports.Clock
}

// NewResetLink builds the use case.
func NewResetLink(users ports.UserStore, team ports.TeamStore, clock ports.Clock) *ResetLink {
	need("users", users)
	need("team", team)
	need("clock", clock)
	return &ResetLink{users: users, team: team, clock: clock}
}

// Handle runs the use case (ResetLink) for the person with that email in
// the account (an empty account: any account, for operators). It replaces
// any earlier link. For a person who has not yet accepted their invitation
// it renews the invitation instead; invited reports which, so the caller
// builds the right address.
func (uc *ResetLink) Handle(ctx context.Context, account domain.AccountID, by domain.Role, email string) (u domain.User, token string, invited bool, err error) {
	if err := mayManage(by, "reset link"); err != nil {
		return domain.User{}, "", false, err
	}
	return issueResetLink(ctx, uc.users, uc.team, uc.clock, account, email)
}

// issueResetLink is ResetLink's work, which ForgotPassword shares; team is
// read only for a non-empty account and may be nil without one.
func issueResetLink(ctx context.Context, users ports.UserStore, team ports.TeamStore, clock ports.Clock, account domain.AccountID, email string) (u domain.User, token string, invited bool, err error) {
	norm, err := domain.NormalizeEmail(email)
	if err != nil {
		return domain.User{}, "", false, err
	}
	u, err = users.FindUser(ctx, ports.UserKey{Email: norm})
	if err == nil && account != "" && u.AccountID != account {
		// The address may have a person elsewhere and an invitation here.
		u, err = memberByEmail(ctx, team, account, norm)
	}
	if err != nil {
		return domain.User{}, "", false, err
	}
	token = randomToken()
	now := clock.Now()
	life := ResetLifetime
	if u.Invited() {
		life = domain.InviteLifetime
	}
	err = users.UpdateUser(ctx, u.ID, func(x *domain.User) error {
		x.InviteHash, x.InviteExpiresAt = domain.HashToken(token), now.Add(life)
		u = *x
		return nil
	})
	if err != nil {
		return domain.User{}, "", false, fmt.Errorf("reset link: %w", err)
	}
	return u, token, u.Invited(), nil
}

// GetPasswordReset returns the person a pending reset token is for.
type GetPasswordReset struct {
	users ports.UserStore
	clock ports.Clock
}

// NewGetPasswordReset builds the use case.
func NewGetPasswordReset(users ports.UserStore, clock ports.Clock) *GetPasswordReset {
	need("users", users)
	need("clock", clock)
	return &GetPasswordReset{users: users, clock: clock}
}

// Handle runs the use case (GetPasswordReset); an unknown, used or expired
// token (or an invitation) is domain.ErrNotFound.
func (uc *GetPasswordReset) Handle(ctx context.Context, token string) (domain.User, error) {
	return pendingReset(ctx, uc.users, uc.clock, token)
}

// pendingReset is GetPasswordReset's work, which ResetPassword shares.
func pendingReset(ctx context.Context, users ports.UserStore, clock ports.Clock, token string) (domain.User, error) {
	if token == "" {
		return domain.User{}, domain.ErrNotFound
	}
	u, err := users.FindUser(ctx, ports.UserKey{InviteHash: domain.HashToken(token)})
	if err != nil {
		return domain.User{}, err
	}
	if u.Invited() || !clock.Now().Before(u.InviteExpiresAt) {
		return domain.User{}, domain.ErrNotFound
	}
	return u, nil
}

// ResetPassword sets a new password with a reset token (it works once),
// signs out every session of the person and starts a new one.
type ResetPassword struct {
	users    ports.UserStore
	team     ports.TeamStore
	sessions ports.SessionStore
	hasher   ports.PasswordHasher
	clock    ports.Clock
}

// NewResetPassword builds the use case.
func NewResetPassword(users ports.UserStore, team ports.TeamStore, sessions ports.SessionStore, hasher ports.PasswordHasher, clock ports.Clock) *ResetPassword {
	need("users", users)
	need("team", team)
	need("sessions", sessions)
	need("hasher", hasher)
	need("clock", clock)
	return &ResetPassword{users: users, team: team, sessions: sessions, hasher: hasher, clock: clock}
}

// Handle runs the use case (ResetPassword).
func (uc *ResetPassword) Handle(ctx context.Context, token, password string) (SignedIn, error) {
	u, err := pendingReset(ctx, uc.users, uc.clock, token)
	if err != nil {
		return SignedIn{}, err
	}
	if err := setPassword(ctx, uc.users, uc.hasher, uc.clock, u.ID, password, domain.HashToken(token)); err != nil {
		return SignedIn{}, err
	}
	if _, err := uc.team.DeleteUserSessions(ctx, u.ID, ""); err != nil {
		return SignedIn{}, fmt.Errorf("reset password: %w", err)
	}
	return startSession(ctx, uc.sessions, uc.clock.Now(), u)
}
