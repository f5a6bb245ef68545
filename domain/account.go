package domain

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Plan is an account's subscription plan. Only Business may use the API.
type Plan string

// Plans.
const (
	PlanBusiness Plan = "business"
	PlanFree     Plan = "free"
)

// Valid reports whether p is a known plan.
func (p Plan) Valid() bool { return p == PlanBusiness || p == PlanFree }

// Account is a customer: plan, balance of audio seconds and receiver settings.
type Account struct {
	ID                 AccountID
	Name               string
	Plan               Plan
	BalanceMs          int64 // audio milliseconds remaining
	WebhookURL         string
	WebhookSecret      string
	AnalysisWebhookURL string // empty: use WebhookURL
	NotifyFailures     bool   // send transcript_failed events
	CreatedAt          time.Time
	// TimeZone is the IANA zone the account's people live in: pages,
	// exports and reports count days in it. Empty: the deployment's
	// default (Asia/Yerevan unless the operator set another).
	TimeZone string
	// AgentChannel is the stereo channel the account's agents are
	// recorded on ("left" or "right"; empty: not known).
	AgentChannel string
	// ListColumns are the metadata keys the web history shows as columns,
	// joined by commas (ParseListColumns: at most MaxListColumns; read
	// them with ListColumnKeys); a string keeps Account comparable.
	// AgentKey is the metadata key naming a call's agent, whose value the
	// history filters by (empty: none).
	ListColumns string
	AgentKey    string
	// TrialEmail is the address a sign-up's trial seconds are offered to;
	// TrialTokenHash the hash of its confirmation link's secret while the
	// offer stands (HashToken; empty: none); TrialGrantedAt when the
	// address was confirmed and the seconds given. An address gets a
	// trial once: the stores keep TrialEmail unique among granted trials.
	TrialEmail     string
	TrialTokenHash string
	TrialGrantedAt *time.Time
}

// TrialLinkLife is how long a sign-up's confirmation link works.
const TrialLinkLife = 7 * 24 * time.Hour

// GrantTrial gives the account ms of trial audio when secretHash is its
// standing offer's, within TrialLinkLife of the sign-up; ErrNotFound
// otherwise (no offer, used, expired or another secret).
func (a *Account) GrantTrial(secretHash string, ms int64, now time.Time) error {
	if a.TrialTokenHash == "" || a.TrialGrantedAt != nil || subtle.ConstantTimeCompare([]byte(a.TrialTokenHash), []byte(secretHash)) != 1 ||
		now.After(a.CreatedAt.Add(TrialLinkLife)) {
		return fmt.Errorf("trial confirmation: %w", ErrNotFound)
	}
	a.TrialTokenHash, a.TrialGrantedAt = "", &now
	a.BalanceMs += ms
	return nil
}

// SecondsRemaining is the balance in seconds.
func (a *Account) SecondsRemaining() float64 { return float64(a.BalanceMs) / 1000 }

// Reserve takes a recording's length from the balance, rounded up to the
// millisecond, and returns the amount taken. Too little balance is a permanent
// error naming both numbers.
func (a *Account) Reserve(seconds float64) (int64, error) {
	ms := int64(math.Ceil(seconds * 1000))
	if ms > a.BalanceMs {
		return 0, OverBalance(seconds, a.SecondsRemaining())
	}
	a.BalanceMs -= ms
	return ms, nil
}

// AnalysisReceiver is where analysis_ready goes (docs/decisions.md, Events to receivers).
func (a *Account) AnalysisReceiver() string {
	if a.AnalysisWebhookURL != "" {
		return a.AnalysisWebhookURL
	}
	return a.WebhookURL
}

// ReceiverFor is where an event of eventType goes now: analysis_ready and
// analysis_reviewed to the analysis receiver, the others to webhookURL.
// Empty: the account polls.
func (a *Account) ReceiverFor(eventType string) string {
	if eventType == EventAnalysisReady || eventType == EventAnalysisReviewed {
		return a.AnalysisReceiver()
	}
	return a.WebhookURL
}

// FormatSeconds writes a duration for people: "9 s", "9.4 s", "1 h 2 min 3 s" past a minute.
func FormatSeconds(s float64) string {
	if s < 60 {
		r := math.Round(s*10) / 10
		return strconv.FormatFloat(r, 'f', -1, 64) + " s"
	}
	total := int64(math.Round(s))
	h, m, sec := total/3600, total%3600/60, total%60
	var parts []string
	if h > 0 {
		parts = append(parts, fmt.Sprintf("%d h", h))
	}
	if m > 0 {
		parts = append(parts, fmt.Sprintf("%d min", m))
	}
	if sec > 0 {
		parts = append(parts, fmt.Sprintf("%d s", sec))
	}
	return strings.Join(parts, " ")
}

// APIKeyPrefix starts every API key (docs/decisions.md, API: "hsk_" + 40 base62 chars).
const APIKeyPrefix = "hsk_"

const apiKeyBodyLen = 40

// APIKey is a stored key: never the key itself, only its SHA-256.
type APIKey struct {
	ID         string
	AccountID  AccountID
	Prefix     string // first characters, for people to recognise a key
	Hash       string // hex SHA-256 of the whole key
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// MaxActiveAPIKeys is how many unrevoked API keys an account may have:
// one per integration or environment (production, staging, a CRM, a
// reporting job…) with room to rotate each, while the per-key limits
// multiplied by it stay within what one account may take.
const MaxActiveAPIKeys = 10

// Active reports whether the key may authenticate.
func (k *APIKey) Active() bool { return k.RevokedAt == nil }

// HashAPIKey is the stored form of a key.
func HashAPIKey(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewAPIKey turns random bytes (at least 40) into a key and its stored form.
func NewAPIKey(id string, account AccountID, random []byte, now time.Time) (string, APIKey) {
	var b strings.Builder
	b.WriteString(APIKeyPrefix)
	for i := 0; i < apiKeyBodyLen; i++ {
		b.WriteByte(base62[int(random[i%len(random)])%len(base62)])
	}
	raw := b.String()
	return raw, APIKey{ID: id, AccountID: account, Prefix: raw[:len(APIKeyPrefix)+6], Hash: HashAPIKey(raw), CreatedAt: now}
}

// ValidAPIKeyFormat reports whether raw looks like a key at all, so garbage is
// refused before any lookup.
func ValidAPIKeyFormat(raw string) bool {
	if len(raw) != len(APIKeyPrefix)+apiKeyBodyLen || !strings.HasPrefix(raw, APIKeyPrefix) {
		return false
	}
	for _, c := range raw[len(APIKeyPrefix):] {
		if !strings.ContainsRune(base62, c) {
			return false
		}
	}
	return true
}

// LowBalanceMs is the balance under which an account is told it is
// running out (a banner in the web application, an e-mail to its owners):
// ten minutes of audio, a few typical calls, before a job fails for lack
// of seconds.
const LowBalanceMs int64 = 10 * 60 * 1000

// LowBalance reports whether the account is running out of seconds.
func (a *Account) LowBalance() bool { return a.BalanceMs < LowBalanceMs }

// CrossedLowBalance reports whether a balance going from before to after
// has just fallen under LowBalanceMs: the moment to tell the owners once.
func CrossedLowBalance(before, after int64) bool {
	return before >= LowBalanceMs && after < LowBalanceMs
}
