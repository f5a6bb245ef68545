// Package groupcommit is the queue behind a store's group commit and
// batched reads: requests that arrive while earlier ones are with the
// database wait, and go together as the next batch. At most maxInFlight
// batches are being sent at once, each of at most maxBatch requests.
//
// A caller that finds a sender's place free sends the first batch itself
// (Add returns it), then hands whatever queued meanwhile to a goroutine
// (SendAll), so that its own answer is not held up by others'. What a
// batch does (one transaction, one statement) is the store's business;
// the Postgres store's UpdateJob and HitAndGetJob use it.
package groupcommit

import (
	"slices"
	"sync"
)

// Queue batches requests of type R.
type Queue[R any] struct {
	maxInFlight, maxBatch int

	mu       sync.Mutex
	queue    []R
	inFlight int
}

// New returns a queue that sends at most maxInFlight batches at once, each
// of at most maxBatch requests (both at least 1).
func New[R any](maxInFlight, maxBatch int) *Queue[R] {
	return &Queue[R]{maxInFlight: max(maxInFlight, 1), maxBatch: max(maxBatch, 1)}
}

// Add queues r and returns the batch the caller must send (with SendAll),
// or nil when every sender's place is taken (a sender will take r).
func (q *Queue[R]) Add(r R) []R {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.queue = append(q.queue, r)
	if q.inFlight >= q.maxInFlight {
		return nil
	}
	q.inFlight++
	return q.take()
}

// take removes up to maxBatch requests from the queue; q.mu is held.
func (q *Queue[R]) take() []R {
	n := min(len(q.queue), q.maxBatch)
	batch := slices.Clone(q.queue[:n])
	q.queue = slices.Delete(q.queue, 0, n)
	return batch
}

// next is the next batch for a sender that finished one, or nil (and one
// sender fewer) when nothing waits.
func (q *Queue[R]) next() []R {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.queue) == 0 {
		q.inFlight--
		return nil
	}
	return q.take()
}

// SendAll sends batch (what Add returned), then hands what queued
// meanwhile to a goroutine that sends batches until the queue is empty.
func (q *Queue[R]) SendAll(batch []R, send func([]R)) {
	send(batch)
	if next := q.next(); next != nil {
		go func() {
			for b := next; b != nil; b = q.next() {
				send(b)
			}
		}()
	}
}
