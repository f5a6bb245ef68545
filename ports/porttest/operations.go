package porttest

import (
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/ports"
)

// OperationsStore is a store with the reads operators' metrics use.
type OperationsStore interface {
	Stores
	ports.OutboxBacklog
}

// Operations runs the contract of ports.OutboxBacklog: an empty outbox has
// no backlog; committed events count until they are marked sent, and the
// oldest is the first committed.
func Operations(t *testing.T, open func(t *testing.T) OperationsStore) {
	t.Run("OutboxBacklog", func(t *testing.T) {
		t.Parallel()
		defer failOnMust(t)
		s := open(t)
		n, oldest, err := s.OutboxBacklog(ctxOf(t))
		noErr(t, err)
		if n != 0 || !oldest.IsZero() {
			t.Fatalf("empty outbox: %d records, oldest %v", n, oldest)
		}
		before := time.Now().Add(-time.Second)
		seedDocs(t, s, "doc-a", "doc-b")
		n, oldest, err = s.OutboxBacklog(ctxOf(t))
		noErr(t, err)
		if n < 2 || oldest.Before(before) || oldest.After(time.Now().Add(time.Second)) {
			t.Fatalf("after two jobs: %d records, oldest %v (want ≥ 2, about now)", n, oldest)
		}
		recs := must(s.ClaimOutbox(ctxOf(t), time.Now(), time.Minute, 1000))
		seqs := make([]int64, len(recs))
		for i, r := range recs {
			seqs[i] = r.Seq
		}
		if len(recs) != n {
			t.Fatalf("claimed %d of %d records", len(recs), n)
		}
		noErr(t, s.MarkSent(ctxOf(t), seqs[:1]))
		if m, _, err := s.OutboxBacklog(ctxOf(t)); err != nil || m != n-1 {
			t.Fatalf("after one sent: %d (%v), want %d", m, err, n-1)
		}
		noErr(t, s.MarkSent(ctxOf(t), seqs[1:]))
		if m, oldest, err := s.OutboxBacklog(ctxOf(t)); err != nil || m != 0 || !oldest.IsZero() {
			t.Fatalf("after all sent: %d, %v, %v", m, oldest, err)
		}
	})
}
