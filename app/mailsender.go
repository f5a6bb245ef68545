package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/retry"
	"github.com/hyscribe/hyscribe/ports"
)

// The mail outbox's bound: a letter is tried MailAttempts times, the waits
// between tries growing from MailRetryWait to MailMaxWait (about an hour in
// all with the defaults), then given up, its failure recorded. A reset link
// works for 24 hours, so a letter tried for longer would arrive stale.
const (
	MailAttempts  = 8
	MailRetryWait = 30 * time.Second
	MailMaxWait   = 15 * time.Minute
)

// SendMail sends the service's letters through the mail outbox: Enqueue
// stores a letter and returns at once; Run sends what is due, again after
// a failure (the relay down, refusing, hanging) until the bound. A letter
// is leased to one sender while it is tried, so two senders (two
// processes) never try it at once; the relay accepting a letter and the
// sender dying before it recorded that is the one case that sends a
// letter twice (SMTP has no way to ask whether it was received).
type SendMail struct {
	outbox ports.MailOutbox
	mailer ports.Mailer
	clock  ports.Clock
	log    *slog.Logger

	// Attempts, RetryWait and MaxWait are the bound (MailAttempts, …).
	Attempts  int
	RetryWait time.Duration
	MaxWait   time.Duration
	// SendTimeout bounds one try; Lease, how long a letter stays reserved
	// to the sender trying it, must be longer.
	SendTimeout time.Duration
	Lease       time.Duration
	// Interval is how often the outbox is looked at when nothing was
	// enqueued in this process (another process's letters, retries).
	Interval time.Duration
	// Finished, when set, is told each letter sent or given up.
	Finished func(l domain.Letter)

	wake chan struct{}
}

// NewSendMail builds the use case with the default bound.
func NewSendMail(outbox ports.MailOutbox, mailer ports.Mailer, clock ports.Clock, log *slog.Logger) *SendMail {
	need("outbox", outbox)
	need("mailer", mailer)
	need("clock", clock)
	if log == nil {
		log = slog.Default()
	}
	return &SendMail{outbox: outbox, mailer: mailer, clock: clock, log: log,
		Attempts: MailAttempts, RetryWait: MailRetryWait, MaxWait: MailMaxWait,
		SendTimeout: 30 * time.Second, Lease: 2 * time.Minute, Interval: 2 * time.Second,
		wake: make(chan struct{}, 1)}
}

// Enqueue stores m (of kind "reset", "invite", …) in the outbox, due at
// once, and wakes the sender. Once it returned nil the letter is not lost.
func (uc *SendMail) Enqueue(ctx context.Context, kind string, m ports.Mail) error {
	now := uc.clock.Now()
	l := domain.Letter{ID: NewID(), Kind: kind, To: m.To, Subject: m.Subject, Text: m.Text, Lang: m.Lang,
		Status: domain.LetterPending, CreatedAt: now, NextAt: now}
	if err := uc.outbox.AddLetter(ctx, l); err != nil {
		return fmt.Errorf("mail outbox: %w", err)
	}
	select {
	case uc.wake <- struct{}{}:
	default:
	}
	return nil
}

// Run sends due letters until ctx ends. A failing outbox (the store down)
// is retried after the project's one backoff policy.
func (uc *SendMail) Run(ctx context.Context) error {
	return runRounds(ctx, uc.log, "mail outbox", uc.Interval, time.Minute, uc.wake, func(ctx context.Context) (bool, error) {
		n, err := uc.Once(ctx)
		return n > 0, err // more may be due
	})
}

// mailBatch is how many letters one round leases.
const mailBatch = 20

// Once tries the letters due now, one after the other, and returns how
// many it tried.
func (uc *SendMail) Once(ctx context.Context) (int, error) {
	now := uc.clock.Now()
	until := now.Add(uc.Lease)
	letters, err := uc.outbox.LeaseLetters(ctx, now, until, mailBatch)
	if err != nil {
		return 0, fmt.Errorf("mail outbox: lease: %w", err)
	}
	for _, l := range letters {
		if ctx.Err() != nil {
			return 0, nil // the leases pass; the letters are tried again
		}
		uc.try(ctx, l, until)
	}
	return len(letters), nil
}

// try sends l once and records the outcome. A failure to record it leaves
// the lease to pass: the letter is tried again then (and, if the relay
// had accepted it, sent twice: the rare case SendMail's doc names).
func (uc *SendMail) try(ctx context.Context, l domain.Letter, leasedUntil time.Time) {
	sctx, cancel := context.WithTimeout(ctx, uc.SendTimeout)
	err := uc.mailer.Send(sctx, ports.Mail{To: l.To, Subject: l.Subject, Text: l.Text, Lang: l.Lang})
	cancel()
	now := uc.clock.Now()
	switch {
	case err == nil:
		l.Sent(now)
	case ctx.Err() != nil:
		// Shutting down: the try does not count, and the letter is
		// handed back (its lease cleared) for the next sender.
	default:
		giveUp := l.Attempts+1 >= uc.Attempts
		l.Refused(now, err.Error(), now.Add(retry.Wait(uc.RetryWait, uc.MaxWait, l.Attempts+1)), giveUp)
		if giveUp {
			uc.log.Error("e-mail given up: the mail relay did not take it", "kind", l.Kind, "letter", l.ID, "attempts", l.Attempts, "err", err)
		} else {
			uc.log.Warn("e-mail not sent; will retry", "kind", l.Kind, "letter", l.ID, "attempt", l.Attempts, "next", l.NextAt, "err", err)
		}
	}
	ok, ferr := uc.outbox.FinishLetter(context.WithoutCancel(ctx), l, leasedUntil)
	switch {
	case ferr != nil:
		uc.log.Error("mail outbox: the try's outcome was not recorded; the letter is tried again once its lease passes", "letter", l.ID, "err", ferr)
	case !ok:
		uc.log.Warn("mail outbox: the letter's lease passed during its try", "letter", l.ID)
	case l.Status != domain.LetterPending && uc.Finished != nil:
		uc.Finished(l)
	}
}
