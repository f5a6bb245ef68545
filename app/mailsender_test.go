package app_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/app/apptest"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// flakyRelay refuses the first `down` letters, then accepts.
type flakyRelay struct {
	mu   sync.Mutex
	down int
	got  []ports.Mail
}

func (r *flakyRelay) Send(_ context.Context, m ports.Mail) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down > 0 {
		r.down--
		return errors.New("dial tcp 127.0.0.1:25: connect: connection refused")
	}
	r.got = append(r.got, m)
	return nil
}

// TestSendMailRetriesThenSends: a letter stored while the relay is down is
// tried again after growing waits, not before they pass, and sent once the
// relay takes it; its text is then dropped from the outbox.
func TestSendMailRetriesThenSends(t *testing.T) {
	clock := &movingClock{now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	box := apptest.NewMailOutbox()
	relay := &flakyRelay{down: 3}
	s := app.NewSendMail(box, relay, clock, nil)
	ctx := t.Context()
	if err := s.Enqueue(ctx, "reset", ports.Mail{To: "a@example.am", Subject: "s", Text: "link", Lang: "en"}); err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	for try := 1; try <= 4; try++ {
		if n, err := s.Once(ctx); err != nil || n != 1 {
			t.Fatalf("try %d: %d letters, %v", try, n, err)
		}
		l := box.Letters()[0]
		if try < 4 {
			if l.Status != domain.LetterPending || l.Attempts != try {
				t.Fatalf("after try %d: %+v", try, l)
			}
			// Not due before its next try.
			wait := l.NextAt.Sub(clock.now)
			if n, _ := s.Once(ctx); n != 0 {
				t.Fatalf("tried again %s before its next try", wait)
			}
			waits = append(waits, wait)
			clock.now = l.NextAt
		}
	}
	if len(waits) != 3 || !(waits[0] < waits[1] && waits[1] < waits[2]) || waits[0] < app.MailRetryWait/2 {
		t.Errorf("waits %v: want growing from about %s", waits, app.MailRetryWait)
	}
	l := box.Letters()[0]
	if len(relay.got) != 1 || l.Status != domain.LetterSent || l.Text != "" || l.Attempts != 4 {
		t.Fatalf("sent %d, letter %+v", len(relay.got), l)
	}
}

// TestSendMailGivesUpAtTheBound: a relay that never takes the letter costs
// app.MailAttempts tries, after which the letter is failed with the last
// error recorded and is not tried again.
func TestSendMailGivesUpAtTheBound(t *testing.T) {
	clock := &movingClock{now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	box := apptest.NewMailOutbox()
	relay := &flakyRelay{down: 1 << 30}
	s := app.NewSendMail(box, relay, clock, nil)
	var finished atomic.Int32
	s.Finished = func(domain.Letter) { finished.Add(1) }
	ctx := t.Context()
	if err := s.Enqueue(ctx, "reset", ports.Mail{To: "a@example.am", Text: "link"}); err != nil {
		t.Fatal(err)
	}
	tries := 0
	for range 100 {
		n, err := s.Once(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tries += n
		clock.now = clock.now.Add(app.MailMaxWait)
	}
	l := box.Letters()[0]
	if tries != app.MailAttempts || l.Status != domain.LetterFailed || l.Attempts != app.MailAttempts ||
		l.Error == "" || l.Text != "" || finished.Load() != 1 {
		t.Fatalf("%d tries, letter %+v, finished %d; want %d tries, failed", tries, l, finished.Load(), app.MailAttempts)
	}
}

// TestSendMailTwoSendersSendOnce: two senders (two processes) over one
// outbox send each letter once.
func TestSendMailTwoSendersSendOnce(t *testing.T) {
	box := apptest.NewMailOutbox()
	relay := &flakyRelay{}
	clock := ports.SystemClock{}
	a, b := app.NewSendMail(box, relay, clock, nil), app.NewSendMail(box, relay, clock, nil)
	ctx := t.Context()
	const n = 40
	for range n {
		if err := a.Enqueue(ctx, "invite", ports.Mail{To: "x@example.am"}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for _, s := range []*app.SendMail{a, b} {
		wg.Go(func() {
			for {
				if k, err := s.Once(ctx); err != nil || k == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	if len(relay.got) != n {
		t.Fatalf("%d letters sent, want %d", len(relay.got), n)
	}
}
