package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Standard Webhooks header names (https://www.standardwebhooks.com).
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// DefaultTolerance is the Standard Webhooks recommendation for how far a
// webhook-timestamp may be from the receiver's clock.
const DefaultTolerance = 5 * time.Minute

// SecretPrefix marks a Standard Webhooks secret: "whsec_" followed by the
// base64 of the signing key.
const SecretPrefix = "whsec_"

// SigningKey is the HMAC key of a webhookSecret. A secret "whsec_<base64>"
// is keyed as standardwebhooks.com says, by the base64-decoded remainder, so
// the official libraries verify our deliveries with the secret as it was
// configured. Any other secret, and a "whsec_" one whose remainder is not
// base64, is keyed by its own bytes, as it always was: receivers that
// verify with a raw secret keep working.
func SigningKey(secret string) []byte {
	if rest, ok := strings.CutPrefix(secret, SecretPrefix); ok && rest != "" {
		if key, err := base64.StdEncoding.DecodeString(rest); err == nil && len(key) > 0 {
			return key
		}
	}
	return []byte(secret)
}

// sign is HMAC-SHA256 over "id.timestamp.body" keyed by SigningKey(secret).
func sign(secret, id string, unix int64, body []byte) []byte {
	mac := hmac.New(sha256.New, SigningKey(secret))
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write([]byte(strconv.FormatInt(unix, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return mac.Sum(nil)
}

func signatureHeader(secret, id string, unix int64, body []byte) string {
	return "v1," + base64.StdEncoding.EncodeToString(sign(secret, id, unix, body))
}

// Verify is the receiver's check of a delivery: the webhook-signature header
// must hold a v1 signature of webhook-id, webhook-timestamp and body made
// with secret, and the timestamp must be within tolerance of now, which
// bounds replays. tolerance <= 0 means DefaultTolerance. body must be the
// raw bytes received, before any JSON decoding.
func Verify(secret string, headers http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	if secret == "" {
		return errors.New("webhook: no secret to verify with")
	}
	id, ts, sigs := headers.Get(HeaderID), headers.Get(HeaderTimestamp), headers.Get(HeaderSignature)
	for _, h := range [...]struct{ name, value string }{{HeaderID, id}, {HeaderTimestamp, ts}, {HeaderSignature, sigs}} {
		if h.value == "" {
			return fmt.Errorf("webhook: missing %s header", h.name)
		}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("webhook: %s %q is not unix seconds", HeaderTimestamp, clip(ts, 40))
	}
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	sent := time.Unix(unix, 0)
	if age := now.Sub(sent); age > tolerance {
		return fmt.Errorf("webhook: %s is %s old, more than the %s tolerated", HeaderTimestamp, age.Round(time.Second), tolerance)
	}
	if ahead := sent.Sub(now); ahead > tolerance {
		return fmt.Errorf("webhook: %s is %s in the future, more than the %s tolerated", HeaderTimestamp, ahead.Round(time.Second), tolerance)
	}
	want := sign(secret, id, unix, body)
	// Several signatures may be listed, space separated, while a secret is
	// being rotated; any one valid v1 signature is enough.
	for _, part := range strings.Fields(sigs) {
		version, b64, ok := strings.Cut(part, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("webhook: signature does not match")
}
