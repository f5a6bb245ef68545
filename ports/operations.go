package ports

import (
	"context"
	"time"
)

// OutboxBacklog tells operators how far the outbox relays are behind.
type OutboxBacklog interface {
	// OutboxBacklog counts the outbox records not yet published (leased
	// or not) and gives the commit time of the oldest; oldest is the zero
	// time when the outbox is empty. It only reads.
	OutboxBacklog(ctx context.Context) (n int, oldest time.Time, err error)
}
