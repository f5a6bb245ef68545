package kafka

import (
	"github.com/twmb/franz-go/pkg/kgo"
)

// maxUnmarked bounds the records a concurrent worker has taken but not yet
// marked (those behind a long one that are done, those waiting for their
// key): past it the worker takes no more until the oldest is marked.
const maxUnmarked = 1024

// taken is a record a concurrent worker took from its queue.
type taken struct {
	r        *kgo.Record
	finished bool
	ok       bool // handled or dead-lettered: may be marked
}

// runConcurrently handles up to n records of the partition at once, one
// at a time per key, and marks offsets in order: a record only once it
// and every record before it are done. Told to stop, it takes no more
// records, lets the running ones return (the revoked partition's context
// is cancelled; on shutdown they have the grace period) and marks what
// finished in order; what did not is delivered again.
func (w *worker) runConcurrently(n int) {
	done := make(chan *taken, n)
	var order []*taken            // taken, not yet marked, in offset order
	keys := map[string][]*taken{} // keys with a record running: the records waiting behind it
	running := 0
	start := func(t *taken) {
		running++
		go func() {
			t.ok = w.handle(t.r)
			done <- t
		}()
	}
	finish := func(t *taken) {
		running--
		t.finished = true
		k := string(t.r.Key)
		if q := keys[k]; len(q) > 0 && t.ok && !w.stopping() {
			keys[k] = q[1:]
			start(q[0])
		} else {
			delete(keys, k) // stopping, or the key's next must wait for redelivery
		}
		for len(order) > 0 && order[0].finished && order[0].ok {
			w.cl.MarkCommitRecords(order[0].r)
			order[0] = nil
			order = order[1:]
		}
	}
	for {
		if running < n && len(order) < maxUnmarked && !w.stopping() {
			if r, ok := w.tryNext(); ok {
				t := &taken{r: r}
				order = append(order, t)
				k := string(r.Key)
				if q, busy := keys[k]; busy {
					keys[k] = append(q, t)
				} else {
					keys[k] = nil
					start(t)
				}
				continue
			}
		}
		if running == 0 && w.stopping() {
			return
		}
		select {
		case t := <-done:
			finish(t)
		case <-w.wake:
		case <-w.quit:
			// Only the running records remain to be waited for.
			for running > 0 {
				finish(<-done)
			}
			return
		}
	}
}

// tryNext returns the next queued record without waiting.
func (w *worker) tryNext() (*kgo.Record, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.queue) == 0 {
		return nil, false
	}
	r := w.queue[0]
	w.queue[0] = nil
	w.queue = w.queue[1:]
	if w.paused && len(w.queue) <= lowWater {
		w.paused = false
		w.cl.ResumeFetchPartitions(w.tp())
		w.log.Debug("fetching resumed", "queued", len(w.queue))
	}
	return r, true
}
