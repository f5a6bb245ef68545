package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

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

// startSession saves a new session of u and returns its token: the one
// way in for SignUp, SignIn, AcceptInvite and ResetPassword.
func startSession(ctx context.Context, sessions ports.SessionStore, now time.Time, u domain.User) (SignedIn, error) {
	token, csrf := randomToken(), randomToken()
	s := domain.Session{ID: domain.HashToken(token), UserID: u.ID, AccountID: u.AccountID, CSRF: csrf,
		CreatedAt: now, ExpiresAt: domain.NewSessionEnd(now)}
	if err := sessions.CreateSession(ctx, s); err != nil {
		return SignedIn{}, fmt.Errorf("start session: %w", err)
	}
	return SignedIn{Token: token, Session: s, User: u}, nil
}

// SignUp creates an account, its owner and a session (the web
// application's sign-up page).
type SignUp struct {
	users    ports.UserStore
	sessions ports.SessionStore
	hasher   ports.PasswordHasher
	limit    *RateLimit
	clock    ports.Clock

	// Plan and Seconds are given to accounts created by sign-up (an
	// operator raises them with `hyscribe account update`); an invalid
	// Plan is the free plan.
	Plan    domain.Plan
	Seconds float64
	// Trial, when it is offered, e-mails the sign-up a link that gives the
	// trial seconds once opened (nil: none).
	Trial *Trial
}

// NewSignUp builds the use case. New accounts get the free plan and no
// seconds unless Plan and Seconds say otherwise.
func NewSignUp(users ports.UserStore, sessions ports.SessionStore, hasher ports.PasswordHasher, limit *RateLimit, clock ports.Clock) *SignUp {
	need("users", users)
	need("sessions", sessions)
	need("hasher", hasher)
	need("limit", limit)
	need("clock", clock)
	return &SignUp{users: users, sessions: sessions, hasher: hasher, limit: limit, clock: clock, Plan: domain.PlanFree}
}

// Handle runs the use case (SignUp). Too many attempts from one address
// are domain.ErrRateLimited. An email that already has a user gets no error
// and no session (a zero SignedIn), after the same work as a new one, so
// sign-up does not tell which addresses have users.
func (uc *SignUp) Handle(ctx context.Context, req SignUpRequest) (SignedIn, error) {
	if err := uc.limit.Allow(ctx, scopeSignUpIP, req.ClientIP, SignUpPerIP); err != nil {
		return SignedIn{}, err
	}
	name, err := domain.OrgName(req.AccountName)
	if err != nil {
		return SignedIn{}, err
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
	plan := uc.Plan
	if !plan.Valid() {
		plan = domain.PlanFree
	}
	a := domain.Account{ID: domain.AccountID(NewID()), Name: name, Plan: plan,
		BalanceMs: int64(math.Round(max(uc.Seconds, 0) * 1000)), CreatedAt: now}
	var confirm string
	if uc.Trial.Offered() {
		confirm = uc.Trial.offer(&a, email)
	}
	u := domain.User{ID: NewID(), AccountID: a.ID, Email: email, PasswordHash: hash, Role: domain.RoleOwner, CreatedAt: now}
	if err := uc.users.SignUp(ctx, a, u); err != nil {
		if errors.Is(err, domain.ErrConflict) {
			return SignedIn{}, nil
		}
		return SignedIn{}, fmt.Errorf("sign up: %w", err)
	}
	if confirm != "" {
		// A letter that did not go leaves the account without its trial,
		// not without the account: the failure is logged by Letters.
		_ = uc.Trial.letters.ConfirmTrial(ctx, u, a.Name, confirm, uc.Trial.Seconds)
	}
	return startSession(ctx, uc.sessions, uc.clock.Now(), u)
}

// SignIn checks an email and password and starts a session.
type SignIn struct {
	users    ports.UserStore
	sessions ports.SessionStore
	hasher   ports.PasswordHasher
	limit    *RateLimit
	clock    ports.Clock
	// dummy is a hash verified when the email is unknown, so a wrong email
	// costs as long as a wrong password.
	dummy string
}

// NewSignIn builds the use case.
func NewSignIn(users ports.UserStore, sessions ports.SessionStore, hasher ports.PasswordHasher, limit *RateLimit, clock ports.Clock) *SignIn {
	need("users", users)
	need("sessions", sessions)
	need("hasher", hasher)
	need("limit", limit)
	need("clock", clock)
	dummy, err := hasher.Hash(NewID())
	if err != nil {
		panic(fmt.Sprintf("app.NewSignIn: hash: %v", err))
	}
	return &SignIn{users: users, sessions: sessions, hasher: hasher, limit: limit, clock: clock, dummy: dummy}
}

// Handle runs the use case (SignIn). Too many attempts are
// domain.ErrRateLimited; a wrong email or password is
// domain.ErrUnauthorized with one message for both.
func (uc *SignIn) Handle(ctx context.Context, email, password, clientIP string) (SignedIn, error) {
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
	return startSession(ctx, uc.sessions, uc.clock.Now(), u)
}

// Visitor is the person behind a session, with their account.
type Visitor struct {
	Session domain.Session
	User    domain.User
	Account domain.Account
}

// ResolveSession returns the visitor of a session cookie's token.
type ResolveSession struct {
	sessions ports.SessionStore
	users    ports.UserStore
	accounts ports.AccountStore
	clock    ports.Clock
}

// NewResolveSession builds the use case.
func NewResolveSession(sessions ports.SessionStore, users ports.UserStore, accounts ports.AccountStore, clock ports.Clock) *ResolveSession {
	need("sessions", sessions)
	need("users", users)
	need("accounts", accounts)
	need("clock", clock)
	return &ResolveSession{sessions: sessions, users: users, accounts: accounts, clock: clock}
}

// Handle runs the use case (ResolveSession). An unknown, expired or
// orphaned session is domain.ErrUnauthorized; a session in use lasts
// longer.
func (uc *ResolveSession) Handle(ctx context.Context, token string) (Visitor, error) {
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

// SignOut ends the session of a cookie's token.
type SignOut struct {
	sessions ports.SessionStore
}

// NewSignOut builds the use case.
func NewSignOut(sessions ports.SessionStore) *SignOut {
	need("sessions", sessions)
	return &SignOut{sessions: sessions}
}

// Handle runs the use case (SignOut); no token is nothing to do.
func (uc *SignOut) Handle(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	return uc.sessions.DeleteSession(ctx, domain.HashToken(token))
}

// PruneSessions deletes expired sessions (they are refused when used
// anyway; this keeps the table small).
type PruneSessions struct {
	sessions ports.SessionStore
	clock    ports.Clock
}

// NewPruneSessions builds the use case.
func NewPruneSessions(sessions ports.SessionStore, clock ports.Clock) *PruneSessions {
	need("sessions", sessions)
	need("clock", clock)
	return &PruneSessions{sessions: sessions, clock: clock}
}

// Handle runs the use case (PruneSessions) and returns how many went.
func (uc *PruneSessions) Handle(ctx context.Context) (int, error) {
	return uc.sessions.DeleteExpiredSessions(ctx, uc.clock.Now())
}

// CreateUser adds a user with a password to an account (operator CLI).
type CreateUser struct {
	users  ports.UserStore
	hasher ports.PasswordHasher
	clock  ports.Clock
}

// NewCreateUser builds the use case.
func NewCreateUser(users ports.UserStore, hasher ports.PasswordHasher, clock ports.Clock) *CreateUser {
	need("users", users)
	need("hasher", hasher)
	need("clock", clock)
	return &CreateUser{users: users, hasher: hasher, clock: clock}
}

// Handle runs the use case (CreateUser).
func (uc *CreateUser) Handle(ctx context.Context, account domain.AccountID, email, password string, role domain.Role) (domain.User, error) {
	u, err := newUser(account, email, role, uc.clock.Now())
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

// InviteUser adds a user without a password to an account (operator CLI)
// and returns the invitation token, shown once; the person sets their
// password at /app/invite/{token}. Owners invite with InviteMember.
type InviteUser struct {
	users ports.UserStore
	clock ports.Clock
}

// NewInviteUser builds the use case.
func NewInviteUser(users ports.UserStore, clock ports.Clock) *InviteUser {
	need("users", users)
	need("clock", clock)
	return &InviteUser{users: users, clock: clock}
}

// Handle runs the use case (InviteUser). An address taken is
// domain.ErrConflict.
func (uc *InviteUser) Handle(ctx context.Context, account domain.AccountID, email string, role domain.Role) (domain.User, string, error) {
	return invite(ctx, uc.users, uc.clock.Now(), account, email, role)
}

// invite saves an invited user and returns the token of the invitation:
// the work of InviteUser and InviteMember.
func invite(ctx context.Context, users ports.UserStore, now time.Time, account domain.AccountID, email string, role domain.Role) (domain.User, string, error) {
	u, err := newUser(account, email, role, now)
	if err != nil {
		return domain.User{}, "", err
	}
	token := randomToken()
	u.InviteHash, u.InviteExpiresAt = domain.HashToken(token), u.CreatedAt.Add(domain.InviteLifetime)
	if err := users.CreateUser(ctx, u); err != nil {
		return domain.User{}, "", fmt.Errorf("invite user: %w", err)
	}
	return u, token, nil
}

func newUser(account domain.AccountID, email string, role domain.Role, now time.Time) (domain.User, error) {
	norm, err := domain.NormalizeEmail(email)
	if err != nil {
		return domain.User{}, err
	}
	if !role.Valid() {
		return domain.User{}, domain.Invalid("invalid_role", "role must be \"owner\", \"analyst\" or \"member\", not %q", role)
	}
	return domain.User{ID: NewID(), AccountID: account, Email: norm, Role: role, CreatedAt: now}, nil
}

// pendingInvitation returns the pending invitation of token; an unknown,
// used or expired one is domain.ErrNotFound (GetInvitation, AcceptInvite).
func pendingInvitation(ctx context.Context, users ports.UserStore, clock ports.Clock, token string) (domain.User, error) {
	if token == "" {
		return domain.User{}, domain.ErrNotFound
	}
	u, err := users.FindUser(ctx, ports.UserKey{InviteHash: domain.HashToken(token)})
	if err != nil {
		return domain.User{}, err
	}
	if !u.Invited() || !clock.Now().Before(u.InviteExpiresAt) {
		return domain.User{}, domain.ErrNotFound
	}
	return u, nil
}

// GetInvitation returns the pending invitation of a token with the
// account it is to, so the page can name the organisation.
type GetInvitation struct {
	users    ports.UserStore
	accounts ports.AccountStore
	clock    ports.Clock
}

// NewGetInvitation builds the use case.
func NewGetInvitation(users ports.UserStore, accounts ports.AccountStore, clock ports.Clock) *GetInvitation {
	need("users", users)
	need("accounts", accounts)
	need("clock", clock)
	return &GetInvitation{users: users, accounts: accounts, clock: clock}
}

// Handle runs the use case (GetInvitation); an unknown, used or expired
// invitation is domain.ErrNotFound.
func (uc *GetInvitation) Handle(ctx context.Context, token string) (domain.User, domain.Account, error) {
	u, err := pendingInvitation(ctx, uc.users, uc.clock, token)
	if err != nil {
		return domain.User{}, domain.Account{}, err
	}
	a, err := uc.accounts.GetAccount(ctx, u.AccountID)
	if err != nil {
		return domain.User{}, domain.Account{}, fmt.Errorf("invitation: %w", err)
	}
	return u, a, nil
}

// AcceptInvite sets the invited user's password and signs them in.
type AcceptInvite struct {
	users    ports.UserStore
	sessions ports.SessionStore
	hasher   ports.PasswordHasher
	clock    ports.Clock
}

// NewAcceptInvite builds the use case.
func NewAcceptInvite(users ports.UserStore, sessions ports.SessionStore, hasher ports.PasswordHasher, clock ports.Clock) *AcceptInvite {
	need("users", users)
	need("sessions", sessions)
	need("hasher", hasher)
	need("clock", clock)
	return &AcceptInvite{users: users, sessions: sessions, hasher: hasher, clock: clock}
}

// Handle runs the use case (AcceptInvite). The token works once. An
// invitation reserves nothing: when the address has meanwhile a person of
// its own, it answers a zero SignedIn (no session) and no error, as SignUp
// does for a taken address.
func (uc *AcceptInvite) Handle(ctx context.Context, token, password string) (SignedIn, error) {
	u, err := pendingInvitation(ctx, uc.users, uc.clock, token)
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
	return startSession(ctx, uc.sessions, uc.clock.Now(), u)
}

func randomToken() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err))
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}
