package ports

import (
	"context"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// JobDeleter deletes jobs for good, keeping a tombstone of each.
type JobDeleter interface {
	// DeleteJob loads the job and its owning account, applies fn, and in one
	// transaction saves the account, keeps fn's tombstone, removes the job
	// with its transcript, analysis, delivery records and unsent outbox
	// records, and appends fn's events to the outbox. It returns the job as
	// it was, so that the caller can remove its audio. Afterwards GetJob and
	// UpdateJob answer domain.ErrNotFound for it, and a second DeleteJob
	// too. When fn returns an error nothing changes and that error is
	// returned unchanged. DeleteJob and UpdateJob of one job are serialised.
	DeleteJob(ctx context.Context, id domain.DocID, fn func(*domain.Job, *domain.Account) (domain.Tombstone, []domain.Event, error)) (domain.Job, error)
	// GetTombstone returns a deleted job's tombstone or domain.ErrNotFound.
	GetTombstone(ctx context.Context, id domain.DocID) (domain.Tombstone, error)
}

// RetentionStore keeps each account's retention rule and finds the jobs it
// expires.
type RetentionStore interface {
	// SetRetentionDays sets how many days the account keeps jobs; 0 keeps
	// them forever. domain.ErrNotFound if the account does not exist.
	SetRetentionDays(ctx context.Context, account domain.AccountID, days int) error
	// RetentionDays returns the account's rule, 0 when none was set.
	RetentionDays(ctx context.Context, account domain.AccountID) (int, error)
	// ExpiredJobs lists up to limit jobs, oldest first, created more than
	// their account's retention days before now.
	ExpiredJobs(ctx context.Context, now time.Time, limit int) ([]domain.Job, error)
}
