package ports

import (
	"context"

	"github.com/hyscribe/hyscribe/domain"
)

// IdempotencyStore creates jobs under an Idempotency-Key. The store, not the
// API process, decides which request of a key creates the job, so retries
// reaching different API replicas still make one job.
type IdempotencyStore interface {
	// CreateJobOnce saves j, its events and rec in one transaction, unless
	// rec.AccountID already holds rec.Key in a record that is still live at
	// rec.CreatedAt (domain.Idempotency.Live): then it saves nothing and
	// returns that record with created false. A record past the window is
	// replaced. Of concurrent calls with one account and key exactly one
	// creates; the others wait for it and return its record. The same key
	// of another account is another key.
	CreateJobOnce(ctx context.Context, rec domain.Idempotency, j domain.Job, events []domain.Event) (first domain.Idempotency, created bool, err error)
}
