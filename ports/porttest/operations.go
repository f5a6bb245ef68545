package porttest

import (
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"

	"github.com/hyscribe/hyscribe/ports"
)

// OperationsStore is a store with the reads operators use.
type OperationsStore interface {
	Stores
	ports.OutboxBacklog
	ports.JobHistory
}

// Operations runs the contracts of ports.OutboxBacklog (an empty outbox has
// no backlog; committed events count until they are marked sent, and the
// oldest is the first committed) and ports.JobHistory (a job's events in
// order, with the states entered, kept after the outbox is published).
func Operations(t *testing.T, open func(t *testing.T) OperationsStore) {
	t.Run("JobHistory", func(t *testing.T) {
		t.Parallel()
		defer failOnMust(t)
		s := open(t)
		created := seedDocs(t, s, "doc-h", "doc-other")
		uploaded := upload(t, s, "doc-h")
		recs := must(s.ClaimOutbox(ctxOf(t), time.Now(), time.Minute, 1000))
		seqs := make([]int64, len(recs))
		for i, r := range recs {
			seqs[i] = r.Seq
		}
		noErr(t, s.MarkSent(ctxOf(t), seqs)) // the outbox forgets; the history does not
		var want []domain.Event
		for _, e := range append(created, uploaded...) {
			if e.DocID == "doc-h" {
				want = append(want, e)
			}
		}
		got := must(s.JobHistory(ctxOf(t), "doc-h"))
		if len(got) != len(want) || len(want) < 3 {
			t.Fatalf("history of doc-h: %d events %+v, want %d", len(got), got, len(want))
		}
		var states []domain.Status
		for i, e := range want {
			g := got[i]
			if g.EventID != e.ID || g.Topic != e.Topic || g.Type != e.Type || !g.At.Equal(e.OccurredAt.Truncate(time.Millisecond)) {
				t.Errorf("event %d = %+v, want %s %s %s at %v", i, g, e.ID, e.Topic, e.Type, e.OccurredAt)
			}
			if st, _, ok := e.StatusChange(); ok != (g.Status != "") || st != g.Status {
				t.Errorf("event %d status %q, want %q", i, g.Status, st)
			}
			if g.Status != "" {
				states = append(states, g.Status)
			}
		}
		if len(states) != 2 || states[0] != domain.StatusUploading || states[1] != domain.StatusProcessing {
			t.Errorf("states %v, want [uploading processing]", states)
		}
		if h := must(s.JobHistory(ctxOf(t), "doc-unknown")); len(h) != 0 {
			t.Errorf("unknown doc has history %v", h)
		}
	})

	t.Run("JobHistoryNote", func(t *testing.T) {
		t.Parallel()
		defer failOnMust(t)
		s := open(t)
		acct := newAccount(t, s, "acc-note", 3_600_000)
		j, evs := convertingJob(t, "doc-note", &acct, t0, t0.Add(time.Second))
		segs := []domain.Segment{{Start: 0, End: 1, Text: "Բարև", Speaker: "1"}}
		const note = "stereo recording with the same audio on both channels (correlation 1.00): diarized as mono"
		evs = append(evs, must(j.RecognizeNoted(t0.Add(2*time.Second), domain.FormatPhoneCall(segs), segs, note))...)
		createJob(t, s, j, evs)
		notes := 0
		for _, e := range must(s.JobHistory(ctxOf(t), "doc-note")) {
			switch {
			case e.Topic == domain.TopicTranscriptRecognized && e.Note == note:
				notes++
			case e.Note != "":
				t.Errorf("event %s %s has note %q", e.Topic, e.Type, e.Note)
			}
		}
		if notes != 1 {
			t.Errorf("the history keeps %d notes on transcript.recognised, want 1", notes)
		}
	})

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
