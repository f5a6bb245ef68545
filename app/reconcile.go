package app

import (
	"context"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// ListTranscriptions and ResendEvent are what an API client needs to find
// what it missed while its receiver was down (events are sent once): the
// list of its jobs (GET /api/listTranscriptions) and a new attempt of one
// job's event (POST /api/resendEvent, the web application's Resend). Both
// see only the caller's account: a job of another account is
// domain.ErrNotFound, like a missing one, and never listed.

// ListTranscriptions lists the caller's jobs (GET /api/listTranscriptions).
type ListTranscriptions struct {
	lister ports.JobPager
}

// NewListTranscriptions builds the use case. It pages with PageJobs, which
// counts nothing: the API shows no total, and counting an account's jobs
// made every page cost as much as all of them (docs/performance.md, Store
// growth).
func NewListTranscriptions(lister ports.JobPager) *ListTranscriptions {
	need("lister", lister)
	return &ListTranscriptions{lister: lister}
}

// Handle returns one page of the caller's jobs matching r, newest first.
// NextCursor is set when the page is full: the next page may be empty.
func (uc *ListTranscriptions) Handle(ctx context.Context, p Principal, r domain.ListRequest) (domain.JobPage, error) {
	if err := RequireBusiness(p); err != nil {
		return domain.JobPage{}, err
	}
	jobs, err := uc.lister.PageJobs(ctx, ports.JobQuery{
		Account: p.Account.ID, Status: r.Status, From: r.CreatedSince, To: r.CreatedUntil, Limit: r.Limit, After: r.Cursor.Key(),
	})
	if err != nil {
		return domain.JobPage{}, fmt.Errorf("list jobs: %w", err)
	}
	page := domain.JobPage{Items: make([]domain.JobSummary, 0, len(jobs))}
	for _, j := range jobs {
		page.Items = append(page.Items, domain.NewJobSummary(j.ID, j.Status, j.CreatedAt, j.Type, j.Duration, j.Metadata, j.MetadataOmitted, j.Title, j.Error))
	}
	if len(jobs) == r.Limit {
		last := jobs[len(jobs)-1]
		c := domain.CursorAfter(last.CreatedAt, last.ID).String()
		page.NextCursor = &c
	}
	return page, nil
}

// ResendEvent sends one job's event again (POST /api/resendEvent).
type ResendEvent struct {
	jobs       ports.JobStore
	deliveries ports.DeliveryStore
	accounts   ports.AccountStore
	sender     ports.WebhookSender
	clock      ports.Clock
	limit      *RateLimit
}

// NewResendEvent builds the use case; limit counts resends per account
// (AllowResend), with the web application's Resend.
func NewResendEvent(jobs ports.JobStore, deliveries ports.DeliveryStore, accounts ports.AccountStore, sender ports.WebhookSender, clock ports.Clock, limit *RateLimit) *ResendEvent {
	need("jobs", jobs)
	need("deliveries", deliveries)
	need("accounts", accounts)
	need("sender", sender)
	need("clock", clock)
	need("limit", limit)
	return &ResendEvent{jobs: jobs, deliveries: deliveries, accounts: accounts, sender: sender, clock: clock, limit: limit}
}

// Handle sends the job's event of r.Event again, now, with the same
// webhook-id as its first delivery, to the account's receiver for that
// event now and with its current secret; the attempt is recorded in the
// job's delivery log like the web application's. A job for which that
// event was never attempted (not yet transcribed, no checklist, failure
// events off, or no receiver then) is a domain.ErrConflict; an account
// without a receiver now, too.
func (uc *ResendEvent) Handle(ctx context.Context, p Principal, body []byte) (domain.ResendResult, error) {
	if err := RequireBusiness(p); err != nil {
		return domain.ResendResult{}, err
	}
	r, err := domain.ParseResendRequest(body)
	if err != nil {
		return domain.ResendResult{}, err
	}
	j, err := ownedJob(ctx, uc.jobs, p.Account.ID, string(r.DocID))
	if err != nil {
		return domain.ResendResult{}, err
	}
	if err := allowResend(ctx, uc.limit, p.Account.ID); err != nil {
		return domain.ResendResult{}, err
	}
	ds, err := uc.deliveries.Deliveries(ctx, j.ID)
	if err != nil {
		return domain.ResendResult{}, fmt.Errorf("resend: %w", err)
	}
	var orig *domain.Delivery
	for i := range ds { // oldest first: the event's first delivery
		if ds[i].EventType == r.Event && ds[i].AccountID == p.Account.ID {
			orig = &ds[i]
			break
		}
	}
	if orig == nil {
		if !j.Status.Terminal() {
			return domain.ResendResult{}, fmt.Errorf("the job is %s: its events are sent when it finishes: %w", j.Status, domain.ErrConflict)
		}
		return domain.ResendResult{}, fmt.Errorf("no %s event was ever sent for this job (it is %s): an event goes only to the receiver set when the job finished; read the job with getTranscription: %w",
			r.Event, j.Status, domain.ErrConflict)
	}
	// The receiver and secret in force now, not as the key's cache saw them.
	acct, err := uc.accounts.GetAccount(ctx, p.Account.ID)
	if err != nil {
		return domain.ResendResult{}, fmt.Errorf("resend: %w", err)
	}
	to := acct.ReceiverFor(orig.EventType)
	if to == "" {
		return domain.ResendResult{}, fmt.Errorf("the account has no receiver for %s now: set a webhook address first: %w", orig.EventType, domain.ErrConflict)
	}
	d, err := resendDelivery(ctx, uc.deliveries, uc.sender, uc.clock, *orig, to, acct.WebhookSecret)
	if err != nil {
		return domain.ResendResult{}, err
	}
	return domain.NewResendResult(d), nil
}
