package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Sign-in limits: attempts per minute per client address and e-mail pair,
// and per client address. Both are counted before the password is checked,
// so guessing is slowed whether or not the guesses are right. No limit is
// kept per e-mail alone: anyone could then lock a known address out by
// failing on purpose (docs/security.md); guesses at one address from many
// client addresses are bounded by the hashing gate instead.
const (
	SignInPerEmail = 10 // per client address and e-mail pair
	SignInPerIP    = 30
)

// Rate-limit scopes of sign-in.
const (
	scopeSignInPair = "signin-ip-email"
	scopeSignInIP   = "signin-ip"
)

// SignUpPerIP is sign-up's limit: attempts per minute per client address,
// counted before anything else, so a flood costs no password hashing
// (docs/security.md).
const (
	SignUpPerIP   = 10
	scopeSignUpIP = "signup-ip"
)

// errBadCredentials is the one answer to a wrong email or a wrong password,
// so that sign-in does not tell which addresses have users.
var errBadCredentials = &AuthError{Msg: "the email or the password is wrong"}

// People holds the web application's sign-up, sign-in, session and
// invitation use cases, and the operator's user commands.
type People struct {
	users    ports.UserStore
	sessions ports.SessionStore
	accounts ports.AccountStore
	hasher   ports.PasswordHasher
	limit    *RateLimit
	clock    ports.Clock

	// SignUpPlan and SignUpSeconds are given to accounts created by sign-up
	// (an operator raises them with `hyscribe account update`).
	SignUpPlan    domain.Plan
	SignUpSeconds float64
	// dummy is a hash verified when the email is unknown, so a wrong email
	// costs as long as a wrong password.
	dummy string
}

// NewPeople builds the use cases. New accounts get the free plan and no
// seconds unless SignUpPlan and SignUpSeconds say otherwise.
func NewPeople(users ports.UserStore, sessions ports.SessionStore, accounts ports.AccountStore, hasher ports.PasswordHasher, limit *RateLimit, clock ports.Clock) *People {
	need("users", users)
	need("sessions", sessions)
	need("accounts", accounts)
	need("hasher", hasher)
	need("limit", limit)
	need("clock", clock)
	dummy, err := hasher.Hash(NewID())
	if err != nil {
		panic(fmt.Sprintf("app.NewPeople: hash: %v", err))
	}
	return &People{users: users, sessions: sessions, accounts: accounts, hasher: hasher, limit: limit, clock: clock,
		SignUpPlan: domain.PlanFree, dummy: dummy}
}

// SignUpRequest is the sign-up form.
type SignUpRequest struct {
	AccountName string
	Email       string
	Password    string
	// ClientIP is the address the sign-up's rate limit counts.
	ClientIP string
}

// SignedIn is a new session and the token for its cookie, shown once.
type SignedIn struct {
	Token   string
	Session domain.Session
	User    domain.User
}

// SignUp creates an account, its owner and a session. Too many attempts
// from one address are domain.ErrRateLimited. An email that already has a
// user gets no error and no session (a zero SignedIn), after the same work
// as a new one, so sign-up does not tell which addresses have users.
func (uc *People) SignUp(ctx context.Context, req SignUpRequest) (SignedIn, error) {
	if err := uc.limit.Allow(ctx, scopeSignUpIP, req.ClientIP, SignUpPerIP); err != nil {
		return SignedIn{}, err
	}
	name := strings.TrimSpace(req.AccountName)
	if name == "" {
		return SignedIn{}, domain.Invalid("invalid_name", "organisation name is required")
	}
	if utf8.RuneCountInString(name) > 200 { // characters, as the form says: 200 Armenian letters too
		return SignedIn{}, domain.Invalid("invalid_name", "organisation name must be at most 200 characters")
	}
	email, err := domain.NormalizeEmail(req.Email)
	if err != nil {
		return SignedIn{}, err
	}
	if err := domain.ValidatePassword(req.Password); err != nil {
		return SignedIn{}, err
	}
	hash, err := uc.hasher.Hash(req.Password)
	if err != nil {
		return SignedIn{}, fmt.Errorf("sign up: %w", err)
	}
	now := uc.clock.Now()
	plan := uc.SignUpPlan
	if !plan.Valid() {
		plan = domain.PlanFree
	}
	a := domain.Account{ID: domain.AccountID(NewID()), Name: name, Plan: plan,
		BalanceMs: int64(math.Round(max(uc.SignUpSeconds, 0) * 1000)), CreatedAt: now}
	u := domain.User{ID: NewID(), AccountID: a.ID, Email: email, PasswordHash: hash, Role: domain.RoleOwner, CreatedAt: now}
	if err := uc.users.SignUp(ctx, a, u); err != nil {
		if errors.Is(err, domain.ErrConflict) {
			return SignedIn{}, nil
		}
		return SignedIn{}, fmt.Errorf("sign up: %w", err)
	}
	return uc.startSession(ctx, u)
}

// SignIn checks an email and password and starts a session. Too many
// attempts are domain.ErrRateLimited; a wrong email or password is
// domain.ErrUnauthorized with one message for both.
func (uc *People) SignIn(ctx context.Context, email, password, clientIP string) (SignedIn, error) {
	// Before the rate counter, which is keyed by the email too, and before
	// ToLower, which turns bad bytes into U+FFFD.
	if err := domain.CheckSignInEmail(email); err != nil {
		return SignedIn{}, err
	}
	norm := strings.ToLower(strings.TrimSpace(email))
	if err := uc.limit.Allow(ctx, scopeSignInIP, clientIP, SignInPerIP); err != nil {
		return SignedIn{}, err
	}
	if err := uc.limit.Allow(ctx, scopeSignInPair, clientIP+" "+norm, SignInPerEmail); err != nil {
		return SignedIn{}, err
	}
	if len(password) > domain.MaxPasswordLen {
		return SignedIn{}, errBadCredentials
	}
	u, err := uc.users.FindUser(ctx, ports.UserKey{Email: norm})
	if errors.Is(err, domain.ErrNotFound) || (err == nil && u.Invited()) {
		if _, err := uc.hasher.Verify(uc.dummy, password); errors.Is(err, domain.ErrUnavailable) {
			return SignedIn{}, fmt.Errorf("sign in: %w", err) // as busy as for a known address
		}
		return SignedIn{}, errBadCredentials
	}
	if err != nil {
		return SignedIn{}, fmt.Errorf("sign in: %w", err)
	}
	ok, err := uc.hasher.Verify(u.PasswordHash, password)
	if err != nil {
		return SignedIn{}, fmt.Errorf("sign in: %w", err)
	}
	if !ok {
		return SignedIn{}, errBadCredentials
	}
	return uc.startSession(ctx, u)
}

func (uc *People) startSession(ctx context.Context, u domain.User) (SignedIn, error) {
	token, csrf := randomToken(), randomToken()
	now := uc.clock.Now()
	s := domain.Session{ID: domain.HashToken(token), UserID: u.ID, AccountID: u.AccountID, CSRF: csrf,
		CreatedAt: now, ExpiresAt: domain.NewSessionEnd(now)}
	if err := uc.sessions.CreateSession(ctx, s); err != nil {
		return SignedIn{}, fmt.Errorf("start session: %w", err)
	}
	return SignedIn{Token: token, Session: s, User: u}, nil
}

// Visitor is the person behind a session, with their account.
type Visitor struct {
	Session domain.Session
	User    domain.User
	Account domain.Account
}

// Resolve returns the visitor of a session cookie's token. An unknown,
// expired or orphaned session is domain.ErrUnauthorized.
func (uc *People) Resolve(ctx context.Context, token string) (Visitor, error) {
	if token == "" {
		return Visitor{}, unauthorized("sign in to continue")
	}
	s, err := uc.sessions.GetSession(ctx, domain.HashToken(token))
	if errors.Is(err, domain.ErrNotFound) {
		return Visitor{}, unauthorized("your session has ended; sign in again")
	}
	if err != nil {
		return Visitor{}, fmt.Errorf("session: %w", err)
	}
	now := uc.clock.Now()
	if !s.Active(now) {
		_ = uc.sessions.DeleteSession(ctx, s.ID)
		return Visitor{}, unauthorized("your session has ended; sign in again")
	}
	if s.Extend(now) { // used: it lasts SessionIdle from now
		if err := uc.sessions.ExtendSession(ctx, s.ID, s.ExpiresAt); err != nil {
			return Visitor{}, fmt.Errorf("session: %w", err)
		}
	}
	u, err := uc.users.FindUser(ctx, ports.UserKey{ID: s.UserID})
	if errors.Is(err, domain.ErrNotFound) {
		return Visitor{}, unauthorized("your session has ended; sign in again")
	}
	if err != nil {
		return Visitor{}, fmt.Errorf("session user: %w", err)
	}
	a, err := uc.accounts.GetAccount(ctx, u.AccountID)
	if err != nil {
		return Visitor{}, fmt.Errorf("session account: %w", err)
	}
	return Visitor{Session: s, User: u, Account: a}, nil
}

// SignOut ends the session of token.
func (uc *People) SignOut(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	return uc.sessions.DeleteSession(ctx, domain.HashToken(token))
}

// CreateUser adds a user with a password to an account (operator CLI).
func (uc *People) CreateUser(ctx context.Context, account domain.AccountID, email, password string, role domain.Role) (domain.User, error) {
	u, err := uc.newUser(account, email, role)
	if err != nil {
		return domain.User{}, err
	}
	if err := domain.ValidatePassword(password); err != nil {
		return domain.User{}, err
	}
	if u.PasswordHash, err = uc.hasher.Hash(password); err != nil {
		return domain.User{}, fmt.Errorf("create user: %w", err)
	}
	if err := uc.users.CreateUser(ctx, u); err != nil {
		return domain.User{}, fmt.Errorf("create user: %w", err)
	}
	return u, nil
}

// Invite adds a user without a password and returns the invitation token,
// shown once; the person sets their password at /app/invite/{token}.
func (uc *People) Invite(ctx context.Context, account domain.AccountID, email string, role domain.Role) (domain.User, string, error) {
	u, err := uc.newUser(account, email, role)
	if err != nil {
		return domain.User{}, "", err
	}
	token := randomToken()
	u.InviteHash, u.InviteExpiresAt = domain.HashToken(token), u.CreatedAt.Add(domain.InviteLifetime)
	if err := uc.users.CreateUser(ctx, u); err != nil {
		return domain.User{}, "", fmt.Errorf("invite user: %w", err)
	}
	return u, token, nil
}

func (uc *People) newUser(account domain.AccountID, email string, role domain.Role) (domain.User, error) {
	norm, err := domain.NormalizeEmail(email)
	if err != nil {
		return domain.User{}, err
	}
	if !role.Valid() {
		return domain.User{}, domain.Invalid("invalid_role", "role must be \"owner\" or \"member\", not %q", role)
	}
	return domain.User{ID: NewID(), AccountID: account, Email: norm, Role: role, CreatedAt: uc.clock.Now()}, nil
}

// Invitation returns the pending invitation of token; an unknown, used or
// expired one is domain.ErrNotFound.
func (uc *People) Invitation(ctx context.Context, token string) (domain.User, error) {
	if token == "" {
		return domain.User{}, domain.ErrNotFound
	}
	u, err := uc.users.FindUser(ctx, ports.UserKey{InviteHash: domain.HashToken(token)})
	if err != nil {
		return domain.User{}, err
	}
	if !u.Invited() || !uc.clock.Now().Before(u.InviteExpiresAt) {
		return domain.User{}, domain.ErrNotFound
	}
	return u, nil
}

// AcceptInvite sets the invited user's password and signs them in. The
// token works once. An invitation reserves nothing: when the address has
// meanwhile a person of its own, it answers a zero SignedIn (no session)
// and no error, as SignUp does for a taken address.
func (uc *People) AcceptInvite(ctx context.Context, token, password string) (SignedIn, error) {
	u, err := uc.Invitation(ctx, token)
	if err != nil {
		return SignedIn{}, err
	}
	if err := domain.ValidatePassword(password); err != nil {
		return SignedIn{}, err
	}
	hash, err := uc.hasher.Hash(password)
	if err != nil {
		return SignedIn{}, fmt.Errorf("accept invitation: %w", err)
	}
	now := uc.clock.Now()
	err = uc.users.UpdateUser(ctx, u.ID, func(x *domain.User) error {
		if !x.Invited() || x.InviteHash != u.InviteHash || !now.Before(x.InviteExpiresAt) {
			return domain.ErrNotFound // accepted meanwhile
		}
		x.PasswordHash, x.InviteHash = hash, ""
		u = *x
		return nil
	})
	if errors.Is(err, domain.ErrConflict) {
		// The address signed up (or accepted another account's invitation)
		// since: answered like a sign-up with a taken address, with no
		// session, so the link does not tell that it has an account.
		return SignedIn{}, nil
	}
	if err != nil {
		return SignedIn{}, fmt.Errorf("accept invitation: %w", err)
	}
	return uc.startSession(ctx, u)
}

// PruneSessions deletes expired sessions.
func (uc *People) PruneSessions(ctx context.Context) (int, error) {
	return uc.sessions.DeleteExpiredSessions(ctx, uc.clock.Now())
}

func randomToken() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err))
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}
