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

// The use cases below are the web application's on an account's jobs, one
// type each: the history, a recording's page, its audio, webhook resends,
// checklist previews and analytics. Every one takes the visitor's account,
// and a job of another account is domain.ErrNotFound, exactly like a
// missing one.

// agentKey sets q.AgentKey to the account's agent key when q filters by
// agent.
func (uc *ListJobs) agentKey(ctx context.Context, q *ports.JobQuery) error {
	q.AgentKey = ""
	if q.Agent == "" {
		return nil
	}
	a, err := uc.accounts.GetAccount(ctx, q.Account)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if a.AgentKey == "" {
		return domain.Invalid("no_agent_key", "the account names no metadata key for the agent: an owner sets it in Settings, History columns")
	}
	q.AgentKey = a.AgentKey
	return nil
}

// Neighbours are the calls before and after one in a history's order;
// PrevAt and NextAt are their places (cursors, as the history's links
// carry them). Empty where there is none.
type Neighbours struct {
	Prev, Next     domain.DocID
	PrevAt, NextAt string
}

// Neighbours returns the calls next to doc in q's order under q's filter,
// doc being at cursor at (its row's link in the history). A cursor that is
// not doc's, or of another order, has no neighbours.
func (uc *ListJobs) Neighbours(ctx context.Context, a Actor, cmd ListCommand, at string, doc domain.DocID) (Neighbours, error) {
	if err := a.mayRead(); err != nil {
		return Neighbours{}, err
	}
	cmd.History = true
	q := cmd.query(a.Account.ID)
	c, err := domain.ParseHistoryCursor(at, q.Sort)
	if err != nil || c.Key.ID != doc {
		return Neighbours{}, nil //nolint:nilerr // a stale or foreign link: the page shows no neighbours
	}
	q.Limit, q.After = 1, c.Key
	if err := uc.agentKey(ctx, &q); err != nil {
		return Neighbours{}, err
	}
	var n Neighbours
	for _, back := range []bool{false, true} {
		q.Back = back
		jobs, _, err := uc.lister.ListJobs(ctx, q)
		if err != nil {
			return Neighbours{}, fmt.Errorf("history neighbours: %w", err)
		}
		if len(jobs) == 0 {
			continue
		}
		j := jobs[0]
		cur := domain.HistoryCursor{Sort: q.Sort, Key: ListedKey(q.Sort, j)}.String()
		if back {
			n.Prev, n.PrevAt = j.ID, cur
		} else {
			n.Next, n.NextAt = j.ID, cur
		}
	}
	return n, nil
}

// ListedKey is a listed job's place in order s.
func ListedKey(s domain.HistorySort, j ports.ListedJob) domain.HistoryKey {
	v := j.Score
	if s.Field() == domain.FieldDuration {
		v = j.SortDuration
	}
	return domain.KeyOf(s, v, j.CreatedAt, j.ID)
}

// Recording is everything a recording's page shows.
type Recording struct {
	Job        domain.Job
	Analysis   *domain.Analysis
	Deliveries []domain.Delivery
	// Order is the analysed checklist version's question ids in the order
	// its author wrote them; empty when that version is gone.
	Order []string
	// Score is the call's checklist total (with an analysis), as the
	// machine answered.
	Score domain.Score
	// Review is the call's latest review (nil when none; Stale when the
	// call was analysed again since). Reviewed is the analysis as a
	// current review answers it and ReviewedScore its total (the same rule
	// as Score: domain.ScoreOf); nil without a current review.
	Review        *domain.Review
	Reviewed      *domain.Analysis
	ReviewedScore domain.Score
	// Roles say who the call's speakers are (domain.Job.SpeakerRoles);
	// AgentChannel is the account's setting they were read with.
	Roles        map[string]domain.SpeakerName
	AgentChannel string
}

// GetJob reads one of the actor's jobs: the API's getTranscription (the
// job alone) and the web application's recording page (GetCommand.Page:
// with its analysis, review, deliveries and speakers). An API key needs a
// Business plan; a person of the account may read in any role. A job of
// another account is domain.ErrNotFound exactly like a missing one, and
// nothing of a transcript is read before it is transcribed
// (domain.Job.Shown).
type GetJob struct {
	jobs       ports.JobStore
	analyses   ports.AnalysisStore
	reviews    ports.ReviewStore
	deliveries ports.DeliveryStore
	accounts   ports.AccountStore
	checklists ports.ChecklistStore
}

// NewGetJob builds the use case.
func NewGetJob(jobs ports.JobStore, analyses ports.AnalysisStore, reviews ports.ReviewStore, deliveries ports.DeliveryStore, accounts ports.AccountStore, checklists ports.ChecklistStore) *GetJob {
	need("jobs", jobs)
	need("analyses", analyses)
	need("reviews", reviews)
	need("deliveries", deliveries)
	need("accounts", accounts)
	need("checklists", checklists)
	return &GetJob{jobs: jobs, analyses: analyses, reviews: reviews, deliveries: deliveries, accounts: accounts, checklists: checklists}
}

// GetCommand names the job; Page asks for everything its page shows.
type GetCommand struct {
	DocID domain.DocID
	Page  bool
}

// Handle runs the use case (GetJob).
func (uc *GetJob) Handle(ctx context.Context, a Actor, cmd GetCommand) (Recording, error) {
	if err := a.mayRead(); err != nil {
		return Recording{}, err
	}
	if cmd.DocID == "" && a.ByKey() { // a person's empty docId is not found, below
		return Recording{}, domain.Invalid("missing_doc_id", "the docId query parameter is required")
	}
	account, doc := a.Account.ID, cmd.DocID
	j, err := shownJob(ctx, uc.jobs, account, doc)
	if err != nil || !cmd.Page {
		return Recording{Job: j}, err
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
		if err := uc.review(ctx, &r, a, weights); err != nil {
			return Recording{}, err
		}
	} else if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return Recording{}, fmt.Errorf("recording analysis: %w", err)
	}
	if r.Deliveries, err = uc.deliveries.Deliveries(ctx, doc); err != nil {
		return Recording{}, fmt.Errorf("recording deliveries: %w", err)
	}
	return r, nil
}

// review adds the call's review to r.
func (uc *GetJob) review(ctx context.Context, r *Recording, a domain.Analysis, weights map[string]float64) error {
	rv, err := uc.reviews.ReviewOf(ctx, a.DocID)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("recording review: %w", err)
	}
	r.Review = &rv
	if rv.Current(a) {
		reviewed := a.Reviewed(rv)
		r.Reviewed, r.ReviewedScore = &reviewed, domain.ScoreOf(reviewed, weights)
	}
	return nil
}

// RecordingStatuses returns the current status of each of the account's jobs named
// (for live updates); others' and unknown IDs are left out.
type RecordingStatuses struct {
	jobs ports.JobStore
}

// NewRecordingStatuses builds the use case.
func NewRecordingStatuses(jobs ports.JobStore) *RecordingStatuses {
	need("jobs", jobs)
	return &RecordingStatuses{jobs: jobs}
}

// Handle runs the use case (RecordingStatuses).
func (uc *RecordingStatuses) Handle(ctx context.Context, account domain.AccountID, docs []domain.DocID) (map[domain.DocID]domain.Job, error) {
	out := make(map[domain.DocID]domain.Job, len(docs))
	for _, d := range docs {
		j, err := shownJob(ctx, uc.jobs, account, d)
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

// shownJob returns one of the account's jobs as people may see it
// (domain.Job.Shown): nothing of a transcript before it is transcribed,
// on any page, preview or export.
func shownJob(ctx context.Context, jobs ports.JobStore, account domain.AccountID, doc domain.DocID) (domain.Job, error) {
	j, err := ownedJob(ctx, jobs, account, string(doc))
	return j.Shown(), err
}

// RecordingAudio opens the recording's uploaded MP3 and returns its size. It is
// domain.ErrNotFound before the upload, and after the audio was deleted
// (a refused upload).
type RecordingAudio struct {
	jobs  ports.JobStore
	blobs ports.BlobStore
}

// NewRecordingAudio builds the use case.
func NewRecordingAudio(jobs ports.JobStore, blobs ports.BlobStore) *RecordingAudio {
	need("jobs", jobs)
	need("blobs", blobs)
	return &RecordingAudio{jobs: jobs, blobs: blobs}
}

// Handle runs the use case (RecordingAudio).
func (uc *RecordingAudio) Handle(ctx context.Context, account domain.AccountID, doc domain.DocID) (io.ReadCloser, int64, error) {
	j, err := shownJob(ctx, uc.jobs, account, doc)
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

// PreviewChecklist runs a checklist definition (not saved) against one of the
// account's transcribed recordings.
type PreviewChecklist struct {
	jobs     ports.JobStore
	accounts ports.AccountStore
	analyzer ports.ChecklistAnalyzer
	clock    ports.Clock
}

// NewPreviewChecklist builds the use case.
func NewPreviewChecklist(jobs ports.JobStore, accounts ports.AccountStore, analyzer ports.ChecklistAnalyzer, clock ports.Clock) *PreviewChecklist {
	need("jobs", jobs)
	need("accounts", accounts)
	need("analyzer", analyzer)
	need("clock", clock)
	return &PreviewChecklist{jobs: jobs, accounts: accounts, analyzer: analyzer, clock: clock}
}

// Handle runs the use case (PreviewChecklist).
func (uc *PreviewChecklist) Handle(ctx context.Context, account domain.AccountID, definition []byte, doc domain.DocID) (map[string]domain.QuestionResult, []domain.Question, error) {
	f, err := domain.ParseChecklistFile(definition)
	if err != nil {
		return nil, nil, err
	}
	j, err := shownJob(ctx, uc.jobs, account, doc)
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

// ReportChecklist summarises a checklist's results over [from, to), from ClickHouse
// when it is configured, else from the analyses in the store. The bool says
// which (true: ClickHouse).
type ReportChecklist struct {
	analyses   ports.AnalysisStore
	checklists ports.ChecklistStore
	analytics  ports.ChecklistAnalytics
}

// NewReportChecklist builds the use case; analytics may be nil (reports come from the store).
func NewReportChecklist(analyses ports.AnalysisStore, checklists ports.ChecklistStore, analytics ports.ChecklistAnalytics) *ReportChecklist {
	need("analyses", analyses)
	need("checklists", checklists)
	return &ReportChecklist{analyses: analyses, checklists: checklists, analytics: analytics}
}

// Handle runs the use case (ReportChecklist).
func (uc *ReportChecklist) Handle(ctx context.Context, account domain.AccountID, checklistID string, from, to time.Time) (domain.ChecklistReport, bool, error) {
	if err := domain.ValidateReportPeriod(from, to); err != nil {
		return domain.ChecklistReport{}, false, err
	}
	if _, err := uc.checklists.GetChecklist(ctx, account, checklistID); err != nil {
		return domain.ChecklistReport{}, false, fmt.Errorf("report: %w", err)
	}
	// The per-agent figures come from the store in every deployment: the
	// speakers' names are edited there, without an event ClickHouse would
	// hear of (docs/analytics.md, Per agent).
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
	agents := domain.BuildAgentStats(as, weightsOf)
	if uc.analytics != nil {
		rep, err := uc.analytics.ChecklistReport(ctx, account, checklistID, from, to)
		rep.Agents = agents
		return rep, true, err
	}
	rep := domain.BuildChecklistReport(account, checklistID, from, to, as, weightsOf)
	rep.Agents = agents
	return rep, false, nil
}
