package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Recordings holds what the web application shows of an account's jobs:
// the history, a recording's page, its audio, webhook resends, checklist
// previews and analytics. Every method takes the visitor's account, and a
// job of another account is domain.ErrNotFound, exactly like a missing one.
type Recordings struct {
	jobs       ports.JobStore
	lister     ports.JobLister
	analyses   ports.AnalysisStore
	deliveries ports.DeliveryStore
	accounts   ports.AccountStore
	checklists ports.ChecklistStore
	blobs      ports.BlobStore
	sender     ports.WebhookSender
	analyzer   ports.ChecklistAnalyzer
	analytics  ports.ChecklistAnalytics // nil: reports come from the store
	clock      ports.Clock
}

// NewRecordings builds the use cases; analytics may be nil.
func NewRecordings(jobs ports.JobStore, lister ports.JobLister, analyses ports.AnalysisStore, deliveries ports.DeliveryStore, accounts ports.AccountStore, checklists ports.ChecklistStore,
	blobs ports.BlobStore, sender ports.WebhookSender, analyzer ports.ChecklistAnalyzer, analytics ports.ChecklistAnalytics, clock ports.Clock) *Recordings {
	need("jobs", jobs)
	need("lister", lister)
	need("analyses", analyses)
	need("deliveries", deliveries)
	need("accounts", accounts)
	need("checklists", checklists)
	need("blobs", blobs)
	need("sender", sender)
	need("analyzer", analyzer)
	need("clock", clock)
	return &Recordings{jobs: jobs, lister: lister, analyses: analyses, deliveries: deliveries, accounts: accounts, checklists: checklists,
		blobs: blobs, sender: sender, analyzer: analyzer, analytics: analytics, clock: clock}
}

// HistoryPage is one page of the history.
type HistoryPage struct {
	Jobs     []ports.ListedJob
	Analyses map[domain.DocID]domain.Analysis
	Scores   map[domain.DocID]domain.Score // each analysis's total (domain.ScoreOf)
	Total    int
}

// History lists the account's jobs matching q (q.Account is set from account).
func (uc *Recordings) History(ctx context.Context, account domain.AccountID, q ports.JobQuery) (HistoryPage, error) {
	q.Account = account
	if q.Limit <= 0 || q.Limit > 100 {
		q.Limit = 25
	}
	q.Offset = max(q.Offset, 0)
	jobs, total, err := uc.lister.ListJobs(ctx, q)
	if err != nil {
		return HistoryPage{}, fmt.Errorf("history: %w", err)
	}
	for i := range jobs {
		if jobs[i].Status != domain.StatusTranscribed { // domain.Job.TranscriptShown
			jobs[i].Title, jobs[i].Excerpt = "", ""
		}
	}
	var docs []domain.DocID
	for _, j := range jobs {
		if j.ChecklistID != "" {
			docs = append(docs, j.ID)
		}
	}
	an, err := uc.lister.AnalysesByDocs(ctx, account, docs)
	if err != nil {
		return HistoryPage{}, fmt.Errorf("history analyses: %w", err)
	}
	book := uc.weights(account)
	scores := make(map[domain.DocID]domain.Score, len(an))
	for doc, a := range an {
		scores[doc] = book.score(ctx, a)
	}
	return HistoryPage{Jobs: jobs, Analyses: an, Scores: scores, Total: total}, nil
}

// Recording is everything a recording's page shows.
type Recording struct {
	Job        domain.Job
	Analysis   *domain.Analysis
	Deliveries []domain.Delivery
	// Order is the analysed checklist version's question ids in the order
	// its author wrote them; empty when that version is gone.
	Order []string
	// Score is the call's checklist total (with an analysis).
	Score domain.Score
	// Roles say who the call's speakers are (domain.Job.SpeakerRoles);
	// AgentChannel is the account's setting they were read with.
	Roles        map[string]domain.SpeakerName
	AgentChannel string
}

// Get returns one of the account's recordings.
func (uc *Recordings) Get(ctx context.Context, account domain.AccountID, doc domain.DocID) (Recording, error) {
	j, err := uc.job(ctx, account, doc)
	if err != nil {
		return Recording{}, err
	}
	r := Recording{Job: j}
	if a, err := uc.accounts.GetAccount(ctx, account); err == nil {
		r.AgentChannel = a.AgentChannel
	}
	r.Roles = j.SpeakerRoles(r.AgentChannel)
	if a, err := uc.analyses.AnalysisByDoc(ctx, doc); err == nil && a.AccountID == account {
		r.Analysis = &a
		var weights map[string]float64
		if c, err := uc.checklists.GetChecklistVersion(ctx, account, a.ChecklistID, a.ChecklistVersion); err == nil {
			for _, q := range c.Questions {
				r.Order = append(r.Order, q.ID)
			}
			weights = domain.ChecklistWeights(c)
		}
		r.Score = domain.ScoreOf(a, weights)
	} else if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return Recording{}, fmt.Errorf("recording analysis: %w", err)
	}
	if r.Deliveries, err = uc.deliveries.Deliveries(ctx, doc); err != nil {
		return Recording{}, fmt.Errorf("recording deliveries: %w", err)
	}
	return r, nil
}

// Statuses returns the current status of each of the account's jobs named
// (for live updates); others' and unknown IDs are left out.
func (uc *Recordings) Statuses(ctx context.Context, account domain.AccountID, docs []domain.DocID) (map[domain.DocID]domain.Job, error) {
	out := make(map[domain.DocID]domain.Job, len(docs))
	for _, d := range docs {
		j, err := uc.job(ctx, account, d)
		if errors.Is(err, domain.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		j.Segments, j.Transcription = nil, ""
		out[d] = j
	}
	return out, nil
}

// job returns one of the account's jobs as people may see it
// (domain.Job.Shown): nothing of a transcript before it is transcribed,
// on any page, preview or export.
func (uc *Recordings) job(ctx context.Context, account domain.AccountID, doc domain.DocID) (domain.Job, error) {
	j, err := ownedJob(ctx, uc.jobs, account, string(doc))
	return j.Shown(), err
}

// Audio opens the recording's uploaded MP3 and returns its size. It is
// domain.ErrNotFound before the upload, and after the audio was deleted
// (a refused upload).
func (uc *Recordings) Audio(ctx context.Context, account domain.AccountID, doc domain.DocID) (io.ReadCloser, int64, error) {
	j, err := uc.job(ctx, account, doc)
	if err != nil {
		return nil, 0, err
	}
	if j.BlobKey == "" {
		return nil, 0, domain.ErrNotFound
	}
	r, err := uc.blobs.Open(ctx, j.BlobKey)
	if err != nil {
		return nil, 0, fmt.Errorf("recording audio: %w", err)
	}
	return r, j.AudioBytes, nil
}

// Resend delivers one of the job's recorded webhook deliveries again, now,
// with the same event and webhook-id, to the receiver in force now and
// with the account's current secret (the address and secret may have
// changed since the first attempt). The attempt is recorded like any
// other, with the address it went to. An account that polls now has no
// receiver: a domain.ValidationError. Only an owner may resend (it sends
// data out of the account): another role is domain.ErrForbidden.
func (uc *Recordings) Resend(ctx context.Context, account domain.AccountID, role domain.Role, doc domain.DocID, deliveryID string) (domain.Delivery, error) {
	if role != domain.RoleOwner {
		return domain.Delivery{}, fmt.Errorf("resend: only an owner may resend a delivery: %w", domain.ErrForbidden)
	}
	if _, err := uc.job(ctx, account, doc); err != nil {
		return domain.Delivery{}, err
	}
	ds, err := uc.deliveries.Deliveries(ctx, doc)
	if err != nil {
		return domain.Delivery{}, fmt.Errorf("resend: %w", err)
	}
	var orig *domain.Delivery
	for i := range ds {
		if ds[i].ID == deliveryID && ds[i].AccountID == account {
			orig = &ds[i]
		}
	}
	if orig == nil {
		return domain.Delivery{}, fmt.Errorf("no such delivery: %w", domain.ErrNotFound)
	}
	acct, err := uc.accounts.GetAccount(ctx, account)
	if err != nil {
		return domain.Delivery{}, fmt.Errorf("resend: %w", err)
	}
	to := acct.ReceiverFor(orig.EventType)
	if to == "" {
		return domain.Delivery{}, domain.Invalid("no_receiver", "the account has no receiver for %s now: set a webhook address in Settings", orig.EventType)
	}
	return resendDelivery(ctx, uc.deliveries, uc.sender, uc.clock, *orig, to, acct.WebhookSecret)
}

// resendDelivery makes one new attempt of orig's event, with its
// webhook-id, to the receiver to with the secret in force now, and records
// it like any other attempt (the web application's Resend and the API's
// resendEvent).
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

// Preview runs a checklist definition (not saved) against one of the
// account's transcribed recordings.
func (uc *Recordings) Preview(ctx context.Context, account domain.AccountID, definition []byte, doc domain.DocID) (map[string]domain.QuestionResult, []domain.Question, error) {
	f, err := domain.ParseChecklistFile(definition)
	if err != nil {
		return nil, nil, err
	}
	j, err := uc.job(ctx, account, doc)
	if err != nil {
		return nil, nil, err
	}
	if j.Status != domain.StatusTranscribed {
		return nil, nil, domain.Invalid("not_transcribed", "that recording has no transcript yet (it is %s)", j.Status)
	}
	acct, err := uc.accounts.GetAccount(ctx, account)
	if err != nil {
		return nil, nil, fmt.Errorf("preview: %w", err)
	}
	res, err := analyzeByRole(ctx, uc.analyzer, j, acct.AgentChannel, f.Questions)
	if err != nil {
		return nil, nil, fmt.Errorf("preview: %w", err)
	}
	a := domain.NewAnalysis("preview", j, domain.Checklist{Questions: f.Questions}, res, uc.clock.Now())
	return a.Results, f.Questions, nil
}

// Report summarises a checklist's results over [from, to), from ClickHouse
// when it is configured, else from the analyses in the store. The bool says
// which (true: ClickHouse).
func (uc *Recordings) Report(ctx context.Context, account domain.AccountID, checklistID string, from, to time.Time) (domain.ChecklistReport, bool, error) {
	if err := domain.ValidateReportPeriod(from, to); err != nil {
		return domain.ChecklistReport{}, false, err
	}
	if _, err := uc.checklists.GetChecklist(ctx, account, checklistID); err != nil {
		return domain.ChecklistReport{}, false, fmt.Errorf("report: %w", err)
	}
	if uc.analytics != nil {
		rep, err := uc.analytics.ChecklistReport(ctx, account, checklistID, from, to)
		return rep, true, err
	}
	as, err := uc.analyses.ListAnalyses(ctx, account, checklistID, from, to)
	if err != nil {
		return domain.ChecklistReport{}, false, fmt.Errorf("report: %w", err)
	}
	weights := map[int]map[string]float64{}
	weightsOf := func(v int) map[string]float64 {
		if w, ok := weights[v]; ok {
			return w
		}
		c, err := uc.checklists.GetChecklistVersion(ctx, account, checklistID, v)
		if err != nil {
			weights[v] = nil
			return nil
		}
		weights[v] = domain.ChecklistWeights(c)
		return weights[v]
	}
	return domain.BuildChecklistReport(account, checklistID, from, to, as, weightsOf), false, nil
}
