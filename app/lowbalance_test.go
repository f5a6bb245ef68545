package app_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hyscribe/hyscribe/domain"
)

// TestLowBalanceNoticeOncePerCrossing: the measurement that takes the
// balance under ten minutes calls the notice once; later ones under the
// line, and replays, do not.
func TestLowBalanceNoticeOncePerCrossing(t *testing.T) {
	w := newWorld(t)
	var calls []domain.AccountID
	w.process.LowBalance = func(_ context.Context, a domain.AccountID) error {
		calls = append(calls, a)
		return errors.New("relay down") // logged, never the job's failure
	}
	p := w.account(domain.PlanBusiness, 605)
	for i, secs := range []string{"3", "3", "3"} { // 605 → 602 → 599 (crossed) → 596
		res := w.newJob(p, `{"type":"single_voice"}`)
		w.put(res.DocID, "MP3 "+secs+" 1")
		evs := w.drain()
		if got := w.job(res.DocID).Status; got != domain.StatusTranscribed {
			t.Fatalf("job %d: %s", i, got)
		}
		for _, ev := range evs { // a replayed measurement: refused, no second notice
			if ev.Topic == domain.TopicAudioUploaded {
				if err := w.process.Handle(w.ctx, ev); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if len(calls) != 1 || calls[0] != p.Account.ID {
		t.Fatalf("low-balance notices: %v, want one for %s", calls, p.Account.ID)
	}
}

// TestUploadURLForAWaitingJobOnly: a fresh address is signed for the
// account's job still waiting for its file, and refused otherwise.
func TestUploadURLForAWaitingJobOnly(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 600)
	other := w.account(domain.PlanBusiness, 600)
	res := w.newJob(p, `{"type":"single_voice"}`)
	if u, err := w.create.UploadURL(w.ctx, p.Account.ID, res.DocID); err != nil || u != res.UploadURL {
		t.Fatalf("UploadURL of a waiting job: %q, %v; want its address %q", u, err, res.UploadURL)
	}
	if _, err := w.create.UploadURL(w.ctx, other.Account.ID, res.DocID); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another account's job: %v", err)
	}
	w.put(res.DocID, "MP3 3 1")
	if _, err := w.create.UploadURL(w.ctx, p.Account.ID, res.DocID); !errors.Is(err, domain.ErrConflict) {
		t.Fatalf("a job with its file: %v, want a conflict", err)
	}
}
