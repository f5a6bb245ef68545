package domain

import (
	"encoding/json"
	"strings"
	"time"
)

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Delivery is one attempt to send an event to a customer's receiver.
type Delivery struct {
	ID          string
	EventID     string // the pipeline event that caused it; one delivery per event
	DocID       DocID
	AccountID   AccountID
	EventType   string // transcript_ready, analysis_ready, analysis_reviewed, transcript_failed
	URL         string
	Payload     []byte
	Status      string
	HTTPStatus  int
	LatencyMs   int64
	Error       string
	CreatedAt   time.Time
	AttemptedAt *time.Time
}

// resendMark separates an event's ID from a resend's suffix in EventID.
const resendMark = "#resend-"

// Resend is a new attempt to deliver d's event, made by a person in the web
// application. It gets its own row (EventID gains a suffix, keeping the
// one-delivery-per-event rule for the pipeline) and keeps the webhook-id,
// so a receiver that already processed the event recognises the repeat.
// It goes to url, the receiver in force now (the account may have moved
// its receiver since), and the body's secret becomes the current secret:
// a receiver that checks it must accept the resend.
func (d Delivery) Resend(id, url, secret string, now time.Time) Delivery {
	return Delivery{
		ID: id, EventID: d.WebhookID() + resendMark + id, DocID: d.DocID, AccountID: d.AccountID,
		EventType: d.EventType, URL: url, Payload: withSecret(d.Payload, secret), Status: DeliveryPending, CreatedAt: now,
	}
}

// withSecret returns an event body with its "secret" field set to secret.
// A body that is already so, or that has no such field, is kept byte for
// byte.
func withSecret(body []byte, secret string) []byte {
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return body
	}
	old, ok := fields["secret"]
	if !ok {
		return body
	}
	var was string
	if json.Unmarshal(old, &was) == nil && was == secret {
		return body
	}
	fields["secret"], _ = json.Marshal(secret)
	out, err := json.Marshal(fields)
	if err != nil {
		return body
	}
	return out
}

// WebhookID is the webhook-id header of d: its event's ID, the same for the
// first delivery and every resend.
func (d Delivery) WebhookID() string {
	if i := strings.Index(d.EventID, resendMark); i >= 0 {
		return d.EventID[:i]
	}
	return d.EventID
}

// IsResend reports whether a person asked for this delivery.
func (d Delivery) IsResend() bool { return strings.Contains(d.EventID, resendMark) }
