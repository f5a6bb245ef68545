package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Resend sends one of a job's webhook events again, now: the API's
// resendEvent (by event) and the web application's Resend (by the
// delivery-log row). The attempt has the same event and webhook-id as the
// first, goes to the receiver in force now with the account's current
// secret (both may have changed since), and is recorded in the job's
// delivery log like any other, with the address it went to and the first
// attempt's payload (one copy per event).
type Resend struct {
	jobs       ports.JobStore
	deliveries ports.DeliveryStore
	accounts   ports.AccountStore
	sender     ports.WebhookSender
	clock      ports.Clock
	limit      *RateLimit
}

// NewResend builds the use case; limit counts resends per account
// (ResendsPerAccount), whichever door they come through.
func NewResend(jobs ports.JobStore, deliveries ports.DeliveryStore, accounts ports.AccountStore, sender ports.WebhookSender, clock ports.Clock, limit *RateLimit) *Resend {
	need("jobs", jobs)
	need("deliveries", deliveries)
	need("accounts", accounts)
	need("sender", sender)
	need("clock", clock)
	need("limit", limit)
	return &Resend{jobs: jobs, deliveries: deliveries, accounts: accounts, sender: sender, clock: clock, limit: limit}
}

// ResendCommand names the job and which of its events: the first delivery
// of Event (the API's), or the delivery DeliveryID (the web application's
// log row) when it is set.
type ResendCommand struct {
	DocID      domain.DocID
	Event      string
	DeliveryID string
}

// ResendsPerAccount is how many resends an account may make a minute, the
// web application's Resend and the API's resendEvent together: the API's
// limit per operation (domain.PollRateLimit), one count per account so
// neither door nor a second key adds to it. Each resend is one POST of up
// to the event's size to the account's own receiver.
const ResendsPerAccount = domain.PollRateLimit

const scopeResendAccount = "resend-account"

// allowResend counts one resend of account; past ResendsPerAccount this
// minute it is a *RateLimitError saying so.
func allowResend(ctx context.Context, limit *RateLimit, account domain.AccountID) error {
	err := limit.Allow(ctx, scopeResendAccount, string(account), ResendsPerAccount)
	if rl, ok := errors.AsType[*RateLimitError](err); ok {
		rl.Rule = fmt.Sprintf("at most %d resends a minute per account, the web application's Resend and the API's resendEvent together", ResendsPerAccount)
	}
	return err
}

// Handle makes the new attempt. It sends data out of the account: an API
// key needs a Business plan, a person the owner's role (else
// domain.ErrForbidden). A job of another account is domain.ErrNotFound,
// like a missing one; past ResendsPerAccount a *RateLimitError. An event
// never attempted for the job (not yet transcribed, no checklist, failure
// events off, or no receiver then) is domain.ErrConflict, a delivery-log
// row that is not the job's domain.ErrNotFound. An account without a
// receiver for the event now is refused: domain.ErrConflict through the
// API (spec), a domain.ValidationError for a person, whose page says where
// to set one.
func (uc *Resend) Handle(ctx context.Context, a Actor, cmd ResendCommand) (domain.Delivery, error) {
	if err := uc.Allowed(a); err != nil {
		return domain.Delivery{}, err
	}
	account := a.Account.ID
	j, err := shownJob(ctx, uc.jobs, account, cmd.DocID)
	if err != nil {
		return domain.Delivery{}, err
	}
	if err := allowResend(ctx, uc.limit, account); err != nil {
		return domain.Delivery{}, err
	}
	ds, err := uc.deliveries.Deliveries(ctx, j.ID)
	if err != nil {
		return domain.Delivery{}, fmt.Errorf("resend: %w", err)
	}
	orig, err := pickDelivery(ds, j, account, cmd)
	if err != nil {
		return domain.Delivery{}, err
	}
	// The receiver and secret in force now, not as the key's cache saw them.
	acct, err := uc.accounts.GetAccount(ctx, account)
	if err != nil {
		return domain.Delivery{}, fmt.Errorf("resend: %w", err)
	}
	to := acct.ReceiverFor(orig.EventType)
	switch {
	case to == "" && a.ByKey():
		return domain.Delivery{}, fmt.Errorf("the account has no receiver for %s now: set a webhook address first: %w", orig.EventType, domain.ErrConflict)
	case to == "":
		return domain.Delivery{}, domain.Invalid("no_receiver", "the account has no receiver for %s now: set a webhook address in Settings", orig.EventType)
	}
	return resendDelivery(ctx, uc.deliveries, uc.sender, uc.clock, orig, to, acct.WebhookSecret)
}

// Allowed is Handle's first rule, which a door may ask before it reads the
// request: whether a may resend at all.
func (uc *Resend) Allowed(a Actor) error { return a.mayManage("resend") }

// pickDelivery finds the attempt cmd asks to repeat among the job's
// deliveries ds (oldest first).
func pickDelivery(ds []domain.Delivery, j domain.Job, account domain.AccountID, cmd ResendCommand) (domain.Delivery, error) {
	for _, d := range ds {
		if d.AccountID != account {
			continue
		}
		if cmd.DeliveryID != "" && d.ID == cmd.DeliveryID || cmd.DeliveryID == "" && d.EventType == cmd.Event {
			return d, nil // by event: the event's first delivery
		}
	}
	switch {
	case cmd.DeliveryID != "":
		return domain.Delivery{}, fmt.Errorf("no such delivery: %w", domain.ErrNotFound)
	case !j.Status.Terminal():
		return domain.Delivery{}, fmt.Errorf("the job is %s: its events are sent when it finishes: %w", j.Status, domain.ErrConflict)
	}
	return domain.Delivery{}, fmt.Errorf("no %s event was ever sent for this job (it is %s): an event goes only to the receiver set when the job finished; read the job with getTranscription: %w",
		cmd.Event, j.Status, domain.ErrConflict)
}

// resendDelivery makes one new attempt of orig's event, with its
// webhook-id, to the receiver to with the secret in force now, and records
// it like any other attempt.
func resendDelivery(ctx context.Context, deliveries ports.DeliveryStore, sender ports.WebhookSender, clock ports.Clock, orig domain.Delivery, to, secret string) (domain.Delivery, error) {
	now := clock.Now()
	d := orig.Resend(NewID(), to, secret, now)
	if _, err := deliveries.BeginDelivery(ctx, d); err != nil {
		return domain.Delivery{}, fmt.Errorf("resend: %w", err)
	}
	d = send(ctx, sender, d, secret, now)
	if err := deliveries.FinishDelivery(context.WithoutCancel(ctx), d); err != nil {
		return d, fmt.Errorf("resend: record: %w", err)
	}
	return d, nil
}
