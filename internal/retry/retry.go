// Package retry is hyscribe's one policy for the wait between attempts, shared
// by everything that retries on its own: the Kafka stage consumers
// (adapters/kafka), the engines' HTTP client (adapters/internal/retryhttp),
// the outbox relay (app) and the S3 store's wait for its notification
// target (adapters/s3). The waits come from
// github.com/cenkalti/backoff/v5 (the library watermill uses), set up once
// here; the loops around them stay with their owners, because each has its
// own stop conditions (a record's attempts kept in the consumer's state, a
// Retry-After the engine asks for, the relay running until shutdown).
package retry

import (
	"time"

	"github.com/cenkalti/backoff/v5"
)

// noCap stands for "no cap": beyond any wait that matters, yet far enough
// below the largest time.Duration that doubling and randomizing it cannot
// overflow.
const noCap = time.Duration(1 << 61)

// Policy returns the waits between attempts: about base before the first
// retry, doubled each retry up to maxWait (0: no cap). Each wait is drawn
// from the upper half of its step, [d/2, d], so that clients failing
// together do not retry together. Call NextBackOff before each retry and
// Reset after a success. A Policy is not safe for concurrent use.
func Policy(base, maxWait time.Duration) *backoff.ExponentialBackOff {
	if maxWait <= 0 || maxWait > noCap {
		maxWait = noCap
	}
	base = max(min(base, maxWait), 0)
	// The library draws from c·(1 ± f): c = ¾d and f = ⅓ give [d/2, d].
	return &backoff.ExponentialBackOff{
		InitialInterval:     base / 4 * 3,
		RandomizationFactor: 1.0 / 3,
		Multiplier:          2,
		MaxInterval:         maxWait / 4 * 3,
	}
}

// Wait is the wait before retry n (1 for the first retry) of
// Policy(base, maxWait), for callers that keep the attempt count themselves
// (a Kafka record's attempts live in the consumer's state, not in a loop).
func Wait(base, maxWait time.Duration, n int) time.Duration {
	if base <= 0 {
		return 0
	}
	b := Policy(base, maxWait)
	var d time.Duration
	for range max(n, 1) {
		d = b.NextBackOff()
	}
	return d
}
