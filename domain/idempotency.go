package domain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// IdempotencyWindow is how long an Idempotency-Key of createTranscription
// is remembered: a retry within it gets the first answer again.
const IdempotencyWindow = 24 * time.Hour

// MaxIdempotencyKey bounds the length of an Idempotency-Key.
const MaxIdempotencyKey = 255

// ErrIdempotencyKeyReused is the same Idempotency-Key sent again with a
// different request body: the HTTP adapter answers 422.
var ErrIdempotencyKeyReused = errors.New("idempotency key reused with a different request")

// ParseIdempotencyKey reads an Idempotency-Key header value. The IETF
// httpapi draft makes it a Structured Field string ("…", quoted); the bare
// form most clients send is accepted too. "" (no header) is no key.
func ParseIdempotencyKey(header string) (string, error) {
	key := strings.TrimSpace(header)
	if key == "" {
		return "", nil
	}
	if len(key) >= 2 && key[0] == '"' && key[len(key)-1] == '"' {
		key = key[1 : len(key)-1]
	}
	if key == "" || len(key) > MaxIdempotencyKey {
		return "", Invalid("invalid_idempotency_key", "the Idempotency-Key header must hold 1 to %d characters", MaxIdempotencyKey)
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return "", Invalid("invalid_idempotency_key", "the Idempotency-Key header may hold only printable ASCII characters without quotes or backslashes, such as a UUID")
		}
	}
	return key, nil
}

// Idempotency is what the store keeps of one keyed createTranscription: the
// key of an account, the fingerprint of the request it came with, and the
// answer given, which a retry gets again byte for byte.
type Idempotency struct {
	AccountID   AccountID
	Key         string
	Fingerprint string
	DocID       DocID
	Response    json.RawMessage
	CreatedAt   time.Time
}

// Live reports whether the record still answers retries at now.
func (r Idempotency) Live(now time.Time) bool {
	return now.Before(r.CreatedAt.Add(IdempotencyWindow))
}

// Replay is the answer to a retry carrying fingerprint: the first response,
// or ErrIdempotencyKeyReused when the request differs from the first one.
func (r Idempotency) Replay(fingerprint string) (json.RawMessage, error) {
	if r.Fingerprint != fingerprint {
		return nil, ErrIdempotencyKeyReused
	}
	return r.Response, nil
}

// Fingerprint identifies a create request by what it asks for, so that a
// retry counts as the same request when only its JSON spacing or the order
// of its keys differ: SHA-256 of the type, the metadata with its object keys
// sorted, and the checklistId.
func (req CreateRequest) Fingerprint() string {
	h := sha256.New()
	h.Write([]byte(req.Type))
	h.Write([]byte{0})
	h.Write(canonicalJSON(req.Metadata))
	h.Write([]byte{0})
	h.Write([]byte(req.ChecklistID))
	return hex.EncodeToString(h.Sum(nil))
}

// canonicalJSON re-encodes valid JSON with sorted object keys and numbers
// as written; anything else is returned as it is.
func canonicalJSON(raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}
