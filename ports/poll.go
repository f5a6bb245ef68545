package ports

import (
	"context"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// APIKeyToucher writes the last-used times of many keys at once. A store
// that has it saves the API one write per key (docs/performance.md).
type APIKeyToucher interface {
	// TouchAPIKeys sets each key's last-used time, never moving one back;
	// unknown keys are skipped.
	TouchAPIKeys(ctx context.Context, at map[string]time.Time) error
}

// PollCounter counts a poll and reads its job in one store round trip.
// A store shared by several API processes offers it so that a poll costs
// one round trip (shared with the polls sent at the same time); the rules
// stay with app.Poll.
type PollCounter interface {
	// HitAndGetJob is RateCounter.Hit for key and window and GetJob for
	// id, atomically, in one round trip. The job is domain.ErrNotFound
	// (with the count still returned and counted) when id does not exist.
	HitAndGetJob(ctx context.Context, key string, window time.Time, id domain.DocID) (int, domain.Job, error)
}
