package ports

import (
	"context"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// TeamStore lists and removes the people of an account, and signs people
// out. Both store adapters (SQLite, Postgres) provide it on the database of
// UserStore and SessionStore.
type TeamStore interface {
	// ListUsers returns the account's users, invited ones included, oldest
	// first (ties by ID).
	ListUsers(ctx context.Context, account domain.AccountID) ([]domain.User, error)
	// DeleteUser removes one of the account's users and every session of
	// theirs in one transaction. domain.ErrNotFound if the account has no
	// such user (a user of another account included).
	DeleteUser(ctx context.Context, account domain.AccountID, id string) error
	// DeleteUserSessions removes every session of the user except the one
	// whose ID is keep ("" keeps none) and returns how many it removed.
	DeleteUserSessions(ctx context.Context, userID, keep string) (int, error)
}

// UsageReader reads what an account used, for its usage page.
type UsageReader interface {
	// JobUsage returns the account's jobs created at or after from, oldest
	// first, with only ID, Type, Status, CreatedAt, Audio, AudioBytes,
	// Title and Error set: never transcripts or metadata.
	JobUsage(ctx context.Context, account domain.AccountID, from time.Time) ([]domain.Job, error)
}
