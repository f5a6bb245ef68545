package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"net/mail"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Role is what a person may do in their account's web application.
type Role string

// Roles (the matrix is in docs/webapp.md, Roles). Owners manage the
// account: API keys, the receiver, checklists, uploads, deletions and
// people. QA analysts do the QA work on calls: they read everything a
// member reads and name speakers (which re-analyses a call). Members read
// calls, analyses and checklists' questions.
const (
	RoleOwner   Role = "owner"
	RoleAnalyst Role = "analyst"
	RoleMember  Role = "member"
)

// Roles are the known roles, from the least allowed to the most: the
// order the team page offers them.
var Roles = []Role{RoleMember, RoleAnalyst, RoleOwner}

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return slices.Contains(Roles, r) }

// MayManage reports whether a person of role r may change the account:
// its people, API keys, receiver and secret, settings, checklists,
// uploads and deletions. Only owners may.
func (r Role) MayManage() bool { return r == RoleOwner }

// MayReadChecklists reports whether a person of role r may read a
// checklist's questions. Everyone in the account may: a call's answers
// are read against its questions, by the analyst who scores them and by
// the member whose call it is.
func (r Role) MayReadChecklists() bool { return r.Valid() }

// speakerNamers are the roles that may name a call's speakers. Naming them
// re-analyses the call (chat-model requests, spent from the account's
// budget) and sends the account's receiver a new analysis_ready: it acts
// for the account, so a read-only member may not; a QA analyst, whose work
// it is, may.
var speakerNamers = []Role{RoleOwner, RoleAnalyst}

// MayNameSpeakers reports whether a person of role r may name a call's
// speakers (and so have the call analysed again).
func (r Role) MayNameSpeakers() bool { return slices.Contains(speakerNamers, r) }

// User is a person who signs in to the web application. A user belongs to
// exactly one account. A user invited by an operator has no password until
// they accept the invitation.
type User struct {
	ID              string
	AccountID       AccountID
	Email           string // normalised: trimmed, lower case
	PasswordHash    string // "" while an invitation is pending
	Role            Role
	InviteHash      string // SHA-256 hex of the invitation token; "" once accepted
	InviteExpiresAt time.Time
	CreatedAt       time.Time
	// Lang is the language the person reads the web application and its
	// e-mail in ("hy", "en"; "" until known, read as Armenian).
	Lang string
}

// Invited reports whether the user still has to accept an invitation.
func (u *User) Invited() bool { return u.PasswordHash == "" }

// EndResetLink ends the person's outstanding password reset link, if any:
// a password change, a reset, a new role or removal make every link handed
// out before it void (docs/security.md). A pending invitation is the only
// way in for a person who has no password yet, and stays.
func (u *User) EndResetLink() {
	if !u.Invited() {
		u.InviteHash, u.InviteExpiresAt = "", time.Time{}
	}
}

// Password length bounds: long enough to resist guessing, short enough that
// hashing a request body cannot be used to burn CPU.
const (
	MinPasswordLen = 10
	MaxPasswordLen = 256
)

// InviteLifetime is how long an invitation link may be used.
const InviteLifetime = 7 * 24 * time.Hour

// SessionLifetime is how long a sign-in lasts at most, however busy.
const SessionLifetime = 7 * 24 * time.Hour

// SessionIdle is how long a sign-in lasts unused (docs/security.md): each
// use moves its end to SessionIdle later, up to SessionLifetime after the
// sign-in. SessionRefresh is how much the end must move before the store
// is written, so a busy session costs one write per SessionRefresh.
const (
	SessionIdle    = 12 * time.Hour
	SessionRefresh = 10 * time.Minute
)

// NewSessionEnd is when a session begun at created ends if not used.
func NewSessionEnd(created time.Time) time.Time { return created.Add(SessionIdle) }

// Extend moves the end of a session used at now to SessionIdle later, never
// past SessionLifetime after it began; it reports whether the end moved by
// SessionRefresh or more (and must be saved).
func (s *Session) Extend(now time.Time) bool {
	end := now.Add(SessionIdle)
	if limit := s.CreatedAt.Add(SessionLifetime); end.After(limit) {
		end = limit
	}
	if end.Sub(s.ExpiresAt) < SessionRefresh {
		return false
	}
	s.ExpiresAt = end
	return true
}

// NormalizeEmail validates an address and returns its stored form.
func NormalizeEmail(raw string) (string, error) {
	if err := CheckSignInEmail(raw); err != nil { // before ToLower turns bad bytes into U+FFFD
		return "", err
	}
	e := strings.ToLower(strings.TrimSpace(raw))
	if e == "" {
		return "", Invalid("invalid_email", "email is required")
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || a.Name != "" || len(e) > 254 || !strings.Contains(e[strings.LastIndex(e, "@")+1:], ".") {
		return "", Invalid("invalid_email", "%q is not an email address", raw)
	}
	return e, nil
}

// ValidatePassword checks a new password's length in characters.
func ValidatePassword(p string) error {
	n := utf8.RuneCountInString(p)
	if n < MinPasswordLen {
		return Invalid("weak_password", "password must be at least %d characters", MinPasswordLen)
	}
	if len(p) > MaxPasswordLen {
		return Invalid("invalid_password", "password must be at most %d bytes", MaxPasswordLen)
	}
	return nil
}

// Session is a signed-in browser. The cookie holds a random token; the store
// keeps only its SHA-256 (ID), so a leaked database does not sign anyone in.
type Session struct {
	ID        string // SHA-256 hex of the cookie token
	UserID    string
	AccountID AccountID
	CSRF      string // the token every form of this session must carry
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Active reports whether the session may still be used at now.
func (s *Session) Active(now time.Time) bool { return now.Before(s.ExpiresAt) }

// HashToken is the stored form of a session or invitation token.
func HashToken(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}
