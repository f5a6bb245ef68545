package ports

import (
	"context"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// OutboxBacklog tells operators how far the outbox relays are behind.
type OutboxBacklog interface {
	// OutboxBacklog counts the outbox records not yet published (leased
	// or not) and gives the commit time of the oldest; oldest is the zero
	// time when the outbox is empty. It only reads.
	OutboxBacklog(ctx context.Context) (n int, oldest time.Time, err error)
}

// JobEvent is one event of a job's history: what an operator reads to
// follow a job (no payload: no transcript or metadata).
type JobEvent struct {
	EventID string
	Topic   string
	Type    string        // "job.status", "transcript.ready", …
	Status  domain.Status // the state entered, for job.status events
	Error   string        // the readable error of a failed state
	Note    string        // domain.Event.HistoryNote: how the audio was taken
	At      time.Time     // when it happened (the event's occurredAt)
}

// JobHistory keeps every event a job's changes wrote, beside the outbox
// and in the same transaction, after the outbox has published and dropped
// them.
type JobHistory interface {
	// JobHistory returns doc's events oldest first (empty, not an error,
	// for an unknown doc or one older than the history).
	JobHistory(ctx context.Context, doc domain.DocID) ([]JobEvent, error)
}
