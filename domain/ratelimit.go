package domain

import (
	"fmt"
	"time"
)

// PollRateLimit is the spec's limit on GET /api/getTranscription (§8).
const PollRateLimit = 60

// DefaultCreateRateLimit is the per-key limit on createTranscription (docs/decisions.md, API).
const DefaultCreateRateLimit = 600

// RateWindow is the fixed wall-clock minute containing now: the counter resets
// at the top of each minute; it is not a rolling window.
func RateWindow(now time.Time) time.Time { return now.UTC().Truncate(time.Minute) }

// Decide admits a request when fewer than limit requests were counted before
// it in now's window. retryAfter is the whole seconds until the next window
// opens (1..60), for the Retry-After header.
func Decide(now time.Time, countSoFar, limit int) (allowed bool, retryAfter int) {
	if countSoFar < limit {
		return true, 0
	}
	next := RateWindow(now).Add(time.Minute)
	wait := next.Sub(now)
	secs := int((wait + time.Second - 1) / time.Second) // ceil
	if secs < 1 {
		secs = 1
	}
	return false, secs
}

// RateLimitMessage is the 429 body's error for a limit of n per minute.
func RateLimitMessage(n, retryAfter int) string {
	return fmt.Sprintf("rate limit exceeded: %d requests per minute per API key; retry after %d seconds", n, retryAfter)
}
