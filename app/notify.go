package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// DeliverEvents is stage notify: it turns pipeline events into customer
// events (transcript_ready; transcript_failed when the account asked for it)
// and delivers them to the account's receiver. Delivery is asynchronous so a
// slow receiver never holds up the stage; each event is delivered at most
// once (no automatic retry, spec §6) and every attempt is recorded.
type DeliverEvents struct {
	jobs       ports.JobAccountReader
	accounts   ports.AccountStore
	deliveries deliveryStore
	sender     ports.WebhookSender
	clock      ports.Clock
	publicURL  string
	log        *slog.Logger

	slots chan struct{} // bounds deliveries in flight
	wg    sync.WaitGroup

	// Leases (takeover.go): LeaseFor is how long a worker holds a delivery
	// it sends (longer than a send can take), TakeOverEvery how often every
	// worker looks for deliveries whose lease passed, and TakeOverAfter how
	// old a never-leased pending delivery must be to be taken over.
	LeaseFor      time.Duration
	TakeOverEvery time.Duration
	TakeOverAfter time.Duration
}

// NewDeliverEvents builds the stage; maxInFlight bounds concurrent deliveries.
func NewDeliverEvents(jobs ports.JobAccountReader, accounts ports.AccountStore, deliveries deliveryStore, sender ports.WebhookSender, clock ports.Clock, publicURL string, maxInFlight int, log *slog.Logger) *DeliverEvents {
	need("jobs", jobs)
	need("accounts", accounts)
	need("deliveries", deliveries)
	need("sender", sender)
	need("clock", clock)
	if maxInFlight <= 0 {
		maxInFlight = 256
	}
	if log == nil {
		log = slog.Default()
	}
	return &DeliverEvents{jobs: jobs, accounts: accounts, deliveries: deliveries, sender: sender, clock: clock,
		publicURL: publicURL, log: log, slots: make(chan struct{}, maxInFlight),
		LeaseFor: DefaultDeliveryLease, TakeOverEvery: DefaultTakeOverEvery, TakeOverAfter: DefaultTakeOverAfter}
}

// Handle reacts to hyscribe.transcript.ready.v1, to failures on
// hyscribe.job.status.v1, to hyscribe.analysis.ready.v1 and to
// hyscribe.analysis.reviewed.v1. A repeated event
// is recognised by its ID and delivers nothing.
func (uc *DeliverEvents) Handle(ctx context.Context, ev domain.Event) error {
	var failed bool
	switch ev.Topic {
	case domain.TopicAnalysisReady:
		return uc.handleAnalysis(ctx, ev)
	case domain.TopicAnalysisReviewed:
		return uc.handleReview(ctx, ev)
	case domain.TopicTranscriptReady:
	case domain.TopicJobStatus:
		var st domain.JobStatusData
		if err := ev.DecodeData(&st); err != nil {
			return domain.Permanent(err)
		}
		if st.Status != domain.StatusFailed {
			return nil
		}
		failed = true
	default:
		return nil
	}
	j, acct, err := uc.jobAndAccount(ctx, ev.DocID)
	if err != nil {
		return ignoreMissing(err, "notify")
	}
	if acct.WebhookURL == "" || (failed && !acct.NotifyFailures) {
		return nil // pull mode: the customer polls
	}
	var payload any
	eventType := domain.EventTranscriptReady
	if failed {
		eventType = domain.EventTranscriptFailed
		payload = domain.NewTranscriptFailed(j, acct.WebhookSecret, uc.publicURL)
	} else {
		if j.Status != domain.StatusTranscribed {
			return nil
		}
		payload = domain.NewTranscriptReady(j, acct.WebhookSecret, uc.publicURL)
	}
	return uc.announce(ctx, ev, acct, eventType, acct.WebhookURL, payload, "notify")
}

// announce records the delivery of payload (eventType, to url) for ev and,
// the first time ev's ID is seen, sends it in the background: one
// delivery per event, however often the event is handled. what names the
// handler in errors.
func (uc *DeliverEvents) announce(ctx context.Context, ev domain.Event, acct domain.Account, eventType, url string, payload any, what string) error {
	body, err := json.Marshal(payload)
	if err != nil {
		return domain.Permanent(fmt.Errorf("%s: encode payload: %w", what, err))
	}
	d := domain.Delivery{
		ID: NewID(), EventID: ev.ID, DocID: ev.DocID, AccountID: acct.ID, EventType: eventType,
		URL: url, Payload: body, Status: domain.DeliveryPending, CreatedAt: uc.clock.Now(),
	}
	first, err := uc.deliveries.BeginDelivery(ctx, d)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if first {
		uc.leaseAndDispatch(ctx, d, acct.WebhookSecret)
	}
	return nil
}

// jobAndAccount reads the job and its account (in one round trip on the
// SQL stores).
func (uc *DeliverEvents) jobAndAccount(ctx context.Context, id domain.DocID) (domain.Job, domain.Account, error) {
	return uc.jobs.GetJobAndAccount(ctx, id)
}

// handleAnalysis delivers analysis_ready (spec §6.2) to the account's
// analysis receiver (analysisWebhookURL, else webhookURL). A failed analysis
// is not announced: §6.2 is sent "when the checklist analysis is complete",
// and the failure is visible in the web application.
func (uc *DeliverEvents) handleAnalysis(ctx context.Context, ev domain.Event) error {
	var data domain.AnalysisReadyData
	if err := ev.DecodeData(&data); err != nil {
		return domain.Permanent(err)
	}
	if data.Status != domain.AnalysisOK {
		return nil
	}
	acct, err := uc.accounts.GetAccount(ctx, ev.AccountID)
	if err != nil {
		return ignoreMissing(err, "notify analysis")
	}
	url := acct.AnalysisReceiver()
	if url == "" {
		return nil
	}
	return uc.announce(ctx, ev, acct, domain.EventAnalysisReady, url, domain.NewAnalysisReady(ev.DocID, data, acct.WebhookSecret, uc.publicURL), "notify analysis")
}

// handleReview delivers analysis_reviewed to the account's analysis
// receiver, as analysis_ready goes: one delivery per review revision
// (the event's ID), recorded and resendable like any other.
func (uc *DeliverEvents) handleReview(ctx context.Context, ev domain.Event) error {
	var data domain.AnalysisReviewedData
	if err := ev.DecodeData(&data); err != nil {
		return domain.Permanent(err)
	}
	acct, err := uc.accounts.GetAccount(ctx, ev.AccountID)
	if err != nil {
		return ignoreMissing(err, "notify review")
	}
	url := acct.ReceiverFor(domain.EventAnalysisReviewed)
	if url == "" {
		return nil
	}
	return uc.announce(ctx, ev, acct, domain.EventAnalysisReviewed, url, domain.NewAnalysisReviewed(ev.DocID, data, acct.WebhookSecret, uc.publicURL), "notify review")
}

// dispatch sends d in the background, waiting for a free slot first so the
// number of deliveries in flight stays bounded.
func (uc *DeliverEvents) dispatch(d domain.Delivery, secret string) {
	uc.slots <- struct{}{}
	uc.wg.Add(1)
	go func() {
		defer func() { <-uc.slots; uc.wg.Done() }()
		uc.deliver(context.Background(), d, secret)
	}()
}

func (uc *DeliverEvents) deliver(ctx context.Context, d domain.Delivery, secret string) {
	d = send(ctx, uc.sender, d, secret, uc.clock.Now())
	if err := uc.deliveries.FinishDelivery(ctx, d); err != nil {
		uc.log.Error("record webhook delivery", "docId", d.DocID, "err", err)
	}
	logDelivery(uc.log, d)
}

// logDelivery logs a delivery's outcome: INFO when the receiver took it,
// WARN with the reason when it did not (the operator's cue to look at the
// receiver; `hyscribe job show` has the whole history).
func logDelivery(log *slog.Logger, d domain.Delivery) {
	if d.Status == domain.DeliveryFailed {
		log.Warn("webhook delivery failed", "docId", d.DocID, "event", d.EventType, "status", d.Status, "http", d.HTTPStatus, "ms", d.LatencyMs, "err", d.Error)
		return
	}
	log.Info("webhook delivered", "docId", d.DocID, "event", d.EventType, "status", d.Status, "http", d.HTTPStatus, "ms", d.LatencyMs)
}

// Wait blocks until every delivery in flight has finished.
func (uc *DeliverEvents) Wait() { uc.wg.Wait() }

// send POSTs a delivery's event to its receiver and returns the delivery
// with the attempt's outcome, for the delivery log.
func send(ctx context.Context, sender ports.WebhookSender, d domain.Delivery, secret string, now time.Time) domain.Delivery {
	res := sender.Send(ctx, ports.WebhookRequest{URL: d.URL, EventID: d.WebhookID(), Body: d.Payload, Secret: secret, Timestamp: now,
		Account: d.AccountID, Test: d.EventType == domain.EventTest})
	d.AttemptedAt = &now
	d.HTTPStatus, d.LatencyMs = res.Status, res.Latency.Milliseconds()
	d.Status = domain.DeliveryDelivered
	if res.Err != nil {
		d.Status, d.Error = domain.DeliveryFailed, res.Err.Error()
	}
	return d
}
