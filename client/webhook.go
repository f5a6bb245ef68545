package client

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Event types the service sends to receivers.
const (
	EventTranscriptReady  = "transcript_ready"
	EventAnalysisReady    = "analysis_ready"
	EventTranscriptFailed = "transcript_failed"
)

// Event is one webhook the service sent. Which fields are set depends on
// Type: transcript_ready has Transcription, Title and Resolution;
// analysis_ready has AnalysisID, ChecklistID, ChecklistName and Results;
// transcript_failed has Error.
type Event struct {
	Type          string                    `json:"event_type"`
	DocID         string                    `json:"docId"`
	Metadata      json.RawMessage           `json:"metadata"`
	Link          string                    `json:"link"`
	Transcription string                    `json:"transcription"`
	Title         string                    `json:"title"`
	Resolution    string                    `json:"resolution"`
	AnalysisID    string                    `json:"analysisId"`
	ChecklistID   *string                   `json:"checklistId"`
	ChecklistName *string                   `json:"checklistName"`
	Results       map[string]QuestionResult `json:"results"`
	Error         string                    `json:"error"`

	// ID is the webhook-id header: the same for every delivery of one
	// event, so a receiver can drop repeats.
	ID string `json:"-"`
	// Body is the request body as received.
	Body []byte `json:"-"`
}

// WebhookHandler receives the service's webhooks. It checks the body's
// secret against the account's webhookSecret and, when
// VerifySignature is set, the Standard Webhooks signature and timestamp;
// then it answers 200 at once and hands the event to OnEvent in a goroutine
// of its own, so a slow OnEvent never delays the answer. A refused request
// is answered 401 (400 for a body that is not an event) and never reaches
// OnEvent. The service does not retry, so OnEvent should record
// the event before doing slow work; repeats carry the same ID.
type WebhookHandler struct {
	Secret string
	// VerifySignature also requires a valid webhook-signature made with
	// Secret: a "whsec_<base64>" secret keys it with the base64-decoded
	// bytes, as the Standard Webhooks libraries do, any other secret with
	// its own bytes.
	VerifySignature bool
	// Tolerance is how far webhook-timestamp may be from now (default 5 min).
	Tolerance time.Duration
	// MaxBody bounds the body read (default 10 MiB).
	MaxBody int64
	OnEvent func(ctx context.Context, ev Event)

	now func() time.Time
}

// NewWebhookHandler returns a handler for secret that verifies signatures
// and calls onEvent with every accepted event.
func NewWebhookHandler(secret string, onEvent func(ctx context.Context, ev Event)) *WebhookHandler {
	return &WebhookHandler{Secret: secret, VerifySignature: true, OnEvent: onEvent}
}

func (h *WebhookHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "webhooks are POSTed", http.StatusMethodNotAllowed)
		return
	}
	limit := h.MaxBody
	if limit <= 0 {
		limit = 10 << 20
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil || int64(len(body)) > limit {
		http.Error(w, "unreadable or oversized body", http.StatusBadRequest)
		return
	}
	if h.Secret == "" {
		http.Error(w, "receiver has no secret configured", http.StatusInternalServerError)
		return
	}
	if h.VerifySignature {
		now := time.Now
		if h.now != nil {
			now = h.now
		}
		if err := VerifySignature(h.Secret, r.Header, body, now(), h.Tolerance); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
	}
	var ev Event
	var secret struct {
		Secret *string `json:"secret"`
	}
	if json.Unmarshal(body, &ev) != nil || json.Unmarshal(body, &secret) != nil || ev.Type == "" {
		http.Error(w, "the body is not a hyscribe event", http.StatusBadRequest)
		return
	}
	if secret.Secret == nil || subtle.ConstantTimeCompare([]byte(*secret.Secret), []byte(h.Secret)) != 1 {
		http.Error(w, "secret does not match", http.StatusUnauthorized)
		return
	}
	ev.ID, ev.Body = r.Header.Get("webhook-id"), body
	w.WriteHeader(http.StatusOK)
	if h.OnEvent != nil {
		go h.OnEvent(context.WithoutCancel(r.Context()), ev)
	}
}

// VerifySignature checks a delivery's Standard Webhooks headers: a v1
// HMAC-SHA256 of "webhook-id.webhook-timestamp.body" keyed by secret (see
// WebhookHandler.VerifySignature), with a timestamp within tolerance of now
// (default 5 minutes), which bounds replays. body is the raw body.
func VerifySignature(secret string, headers http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	id, ts, sigs := headers.Get("webhook-id"), headers.Get("webhook-timestamp"), headers.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return errors.New("hyscribe webhook: missing webhook-id, webhook-timestamp or webhook-signature")
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("hyscribe webhook: webhook-timestamp is not unix seconds")
	}
	if tolerance <= 0 {
		tolerance = 5 * time.Minute
	}
	if d := now.Sub(time.Unix(unix, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("hyscribe webhook: webhook-timestamp is %s from now, more than the %s tolerated", d.Round(time.Second), tolerance)
	}
	key, err := SigningKey(secret)
	if err != nil {
		return err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, part := range strings.Fields(sigs) {
		version, b64, ok := strings.Cut(part, ",")
		if !ok || version != "v1" {
			continue
		}
		if got, err := base64.StdEncoding.DecodeString(b64); err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("hyscribe webhook: signature does not match")
}

// SigningKey is the HMAC key of a webhookSecret: the
// base64-decoded remainder of a "whsec_" secret, else the secret's bytes.
func SigningKey(secret string) ([]byte, error) {
	rest, ok := strings.CutPrefix(secret, "whsec_")
	if !ok {
		return []byte(secret), nil
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil {
		return nil, errors.New("hyscribe webhook: a whsec_ secret must be followed by base64")
	}
	return key, nil
}
