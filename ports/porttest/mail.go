package porttest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// MailOutbox runs the mail outbox's contract suite (ports.MailOutbox).
// open must return a new, empty store for each call and close it in
// t.Cleanup.
func MailOutbox(t *testing.T, open func(t *testing.T) ports.MailOutbox) {
	for _, st := range mailTests {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			defer failOnMust(t)
			st.run(t, open(t))
		})
	}
}

func letter(id string, created time.Time) domain.Letter {
	return domain.Letter{ID: id, Kind: "reset", To: id + "@example.am", Subject: "Password reset — hyscribe",
		Text: "Open https://hyscribe.example/app/reset/tok-" + id, Lang: "hy", Status: domain.LetterPending,
		CreatedAt: created, NextAt: created}
}

func letterIDs(ls []domain.Letter) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.ID
	}
	return out
}

var mailTests = []struct {
	name string
	run  func(t *testing.T, s ports.MailOutbox)
}{
	{"LeasesDueLettersOldestFirstOnce", func(t *testing.T, s ports.MailOutbox) {
		ctx := ctxOf(t)
		noErr(t, s.AddLetter(ctx, letter("b", t0.Add(time.Second))))
		noErr(t, s.AddLetter(ctx, letter("a", t0)))
		later := letter("later", t0)
		later.NextAt = t0.Add(time.Hour)
		noErr(t, s.AddLetter(ctx, later))
		wantErr(t, s.AddLetter(ctx, letter("a", t0)), domain.ErrConflict, "a second letter with a taken id")

		now := t0.Add(2 * time.Second)
		got := must(s.LeaseLetters(ctx, now, now.Add(time.Minute), 10))
		if fmt.Sprint(letterIDs(got)) != "[a b]" {
			t.Fatalf("leased %v, want [a b]: the due ones, oldest first", letterIDs(got))
		}
		if want := letter("a", t0); fmt.Sprintf("%+v", got[0]) != fmt.Sprintf("%+v", want) {
			t.Errorf("read back\n%+v\nwant\n%+v", got[0], want)
		}
		if again := must(s.LeaseLetters(ctx, now, now.Add(time.Minute), 10)); len(again) != 0 {
			t.Fatalf("leased letters leased again: %v", letterIDs(again))
		}
		// The lease passed (its sender died): the letters come again.
		if again := must(s.LeaseLetters(ctx, now.Add(time.Minute), now.Add(2*time.Minute), 1)); fmt.Sprint(letterIDs(again)) != "[a]" {
			t.Fatalf("after the lease passed, limit 1: %v, want [a]", letterIDs(again))
		}
		// An hour on, the later letter is due too; every lease has passed.
		if due := must(s.LeaseLetters(ctx, t0.Add(time.Hour), t0.Add(time.Hour+time.Minute), 10)); fmt.Sprint(letterIDs(due)) != "[a later b]" {
			t.Fatalf("an hour on: %v, want [a later b]", letterIDs(due))
		}
	}},
	{"FinishOnlyWhileLeased", func(t *testing.T, s ports.MailOutbox) {
		ctx := ctxOf(t)
		noErr(t, s.AddLetter(ctx, letter("x", t0)))
		until1 := t0.Add(time.Minute)
		l := must(s.LeaseLetters(ctx, t0, until1, 10))[0]
		// The lease passes and another sender takes the letter: the first
		// sender's outcome is not saved.
		until2 := t0.Add(3 * time.Minute)
		if got := must(s.LeaseLetters(ctx, until1, until2, 10)); len(got) != 1 {
			t.Fatalf("after the lease passed: %d letters, want 1", len(got))
		}
		late := l
		late.Sent(until1)
		if must(s.FinishLetter(ctx, late, until1)) {
			t.Fatal("a sender whose lease was taken over saved its outcome")
		}
		// The second sender's failure: due again in a minute, not before.
		l.Refused(until1, "dial tcp: connection refused", until1.Add(time.Minute), false)
		if !must(s.FinishLetter(ctx, l, until2)) {
			t.Fatal("the lease holder's outcome was not saved")
		}
		if got := must(s.LeaseLetters(ctx, until1.Add(59*time.Second), until2, 10)); len(got) != 0 {
			t.Fatalf("a letter leased before its next try: %v", letterIDs(got))
		}
		until3 := until1.Add(2 * time.Minute)
		got := must(s.LeaseLetters(ctx, until1.Add(time.Minute), until3, 10))
		if len(got) != 1 || got[0].Attempts != 1 || got[0].Error != "dial tcp: connection refused" || got[0].Text == "" {
			t.Fatalf("the retried letter: %+v", got)
		}
		sent := got[0]
		sent.Sent(until1.Add(time.Minute))
		if !must(s.FinishLetter(ctx, sent, until3)) {
			t.Fatal("the send was not saved")
		}
		// Sent: never leased again, whatever the time.
		if got := must(s.LeaseLetters(ctx, t0.Add(24*time.Hour), t0.Add(25*time.Hour), 10)); len(got) != 0 {
			t.Fatalf("a sent letter leased again: %+v", got)
		}
		// A given-up letter neither.
		noErr(t, s.AddLetter(ctx, letter("y", t0)))
		y := must(s.LeaseLetters(ctx, t0.Add(time.Hour), t0.Add(2*time.Hour), 10))[0]
		y.Refused(t0.Add(time.Hour), "554 refused", t0.Add(3*time.Hour), true)
		if !must(s.FinishLetter(ctx, y, t0.Add(2*time.Hour))) {
			t.Fatal("the give-up was not saved")
		}
		if got := must(s.LeaseLetters(ctx, t0.Add(48*time.Hour), t0.Add(49*time.Hour), 10)); len(got) != 0 {
			t.Fatalf("a given-up letter leased again: %+v", got)
		}
	}},
	{"ConcurrentSendersLeaseEachLetterOnce", func(t *testing.T, s ports.MailOutbox) {
		ctx := ctxOf(t)
		const letters, senders = 30, 6
		for i := range letters {
			noErr(t, s.AddLetter(ctx, letter(fmt.Sprintf("l%02d", i), t0.Add(time.Duration(i)*time.Millisecond))))
		}
		var mu sync.Mutex
		seen := map[string]int{}
		var wg sync.WaitGroup
		errs := make(chan error, senders)
		for range senders {
			wg.Go(func() {
				for {
					got, err := s.LeaseLetters(ctx, t0.Add(time.Second), t0.Add(time.Minute), 4)
					if err != nil {
						errs <- err
						return
					}
					if len(got) == 0 {
						return
					}
					mu.Lock()
					for _, l := range got {
						seen[l.ID]++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if len(seen) != letters {
			t.Fatalf("%d letters leased, want %d", len(seen), letters)
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("letter %s leased %d times", id, n)
			}
		}
	}},
}
