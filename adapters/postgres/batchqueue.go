package postgres

import (
	"slices"
	"sync"
)

// batchQueue is the queue behind UpdateJob's group commit and
// HitAndGetJob's batched polls: requests that arrive while earlier ones are
// with Postgres wait, and go together as the next batch. At most
// maxInFlight batches are with Postgres at once, each of at most maxBatch
// requests.
//
// A caller that finds a sender's place free sends the first batch itself
// (add returns it), then hands whatever queued meanwhile to a goroutine
// (next, drain), so that its own answer is not held up by others'.
type batchQueue[R any] struct {
	maxInFlight, maxBatch int

	mu       sync.Mutex
	queue    []R
	inFlight int
}

// add queues r and returns the batch the caller must send, or nil when
// every sender's place is taken (a sender will take r).
func (q *batchQueue[R]) add(r R) []R {
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
func (q *batchQueue[R]) take() []R {
	n := min(len(q.queue), q.maxBatch)
	batch := slices.Clone(q.queue[:n])
	q.queue = slices.Delete(q.queue, 0, n)
	return batch
}

// next is the next batch for a sender that finished one, or nil (and one
// sender fewer) when nothing waits.
func (q *batchQueue[R]) next() []R {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.queue) == 0 {
		q.inFlight--
		return nil
	}
	return q.take()
}

// sendAll sends batch, then hands what queued meanwhile to a goroutine
// that sends batches until the queue is empty.
func (q *batchQueue[R]) sendAll(batch []R, send func([]R)) {
	send(batch)
	if next := q.next(); next != nil {
		go func() {
			for b := next; b != nil; b = q.next() {
				send(b)
			}
		}()
	}
}
