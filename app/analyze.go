package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// AnalyzeTranscript is stage analyze: after transcription, the transcript of
// a job created with a checklist is analysed against the checklist version
// the job was created with. The analysis and its hyscribe.analysis.ready.v1
// event are saved in one transaction. The job itself is never changed: a
// failed analysis is recorded as failed and the job stays transcribed.
type AnalyzeTranscript struct {
	jobs       jobAccountStore
	checklists ports.ChecklistStore
	analyses   analysisReplacer
	analyzer   ports.ChecklistAnalyzer
	fallback   ports.ChecklistAnalyzer // used when analyzer fails (an outside model is down)
	clock      ports.Clock
	log        *slog.Logger
}

// jobAccountStore reads a job, alone or with its account.
type jobAccountStore interface {
	ports.JobStore
	ports.JobAccountReader
}

// analysisReplacer keeps analyses, and replaces one when a call is
// analysed again (Reanalyze).
type analysisReplacer interface {
	ports.AnalysisStore
	ports.AnalysisReplacer
}

// NewAnalyzeTranscript builds the stage. fallback may be nil.
func NewAnalyzeTranscript(jobs jobAccountStore, checklists ports.ChecklistStore, analyses analysisReplacer, analyzer, fallback ports.ChecklistAnalyzer, clock ports.Clock, log *slog.Logger) *AnalyzeTranscript {
	need("jobs", jobs)
	need("checklists", checklists)
	need("analyses", analyses)
	need("analyzer", analyzer)
	need("clock", clock)
	if log == nil {
		log = slog.Default()
	}
	return &AnalyzeTranscript{jobs: jobs, checklists: checklists, analyses: analyses, analyzer: analyzer, fallback: fallback, clock: clock, log: log}
}

// Handle analyses the job of one hyscribe.transcript.ready.v1 event. Jobs
// without a checklist, and jobs already analysed (a repeat), are skipped.
// A transient analyser failure is returned for a retry; a permanent one is
// recorded as a failed analysis.
func (uc *AnalyzeTranscript) Handle(ctx context.Context, ev domain.Event) error {
	// A job's checklist is fixed when it is created and the event carries
	// it: a job without one (most of them) needs no read of the store.
	var data domain.TranscriptReadyData
	if err := ev.DecodeData(&data); err == nil && data.ChecklistID == "" {
		return nil
	}
	j, agentChannel, err := jobAndChannel(ctx, uc.jobs, ev.DocID)
	if err != nil {
		return ignoreMissing(err, "analyze")
	}
	if j.ChecklistID == "" || j.Status != domain.StatusTranscribed {
		return nil
	}
	if _, err := uc.analyses.AnalysisByDoc(ctx, j.ID); err == nil {
		return nil
	} else if !errors.Is(err, domain.ErrNotFound) {
		return fmt.Errorf("analyze: %w", err)
	}
	c, err := uc.checklists.GetChecklistVersion(ctx, j.AccountID, j.ChecklistID, j.ChecklistVersion)
	if errors.Is(err, domain.ErrNotFound) {
		return uc.save(ctx, j, domain.FailedAnalysis(NewID(), j, "", fmt.Sprintf("checklist %q version %d no longer exists", j.ChecklistID, j.ChecklistVersion), uc.clock.Now()), nil)
	}
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	results, err := analyzeByRole(ctx, uc.analyzer, j, agentChannel, c.Questions)
	if err != nil && uc.fallback != nil && !domain.IsPermanent(err) {
		uc.log.Warn("checklist analyser failed; using the built-in one", "docId", j.ID, "err", err)
		results, err = analyzeByRole(ctx, uc.fallback, j, agentChannel, c.Questions)
	}
	switch {
	case domain.IsPermanent(err):
		return uc.save(ctx, j, domain.FailedAnalysis(NewID(), j, c.Name, err.Error(), uc.clock.Now()), domain.ChecklistWeights(c))
	case err != nil:
		return fmt.Errorf("analyze: %w", err)
	}
	return uc.save(ctx, j, domain.NewAnalysis(NewID(), j, c, results, uc.clock.Now()), domain.ChecklistWeights(c))
}

// GiveUp records the analysis of the event's job as failed with reason,
// once the stage's retries are spent. The job is left transcribed.
func (uc *AnalyzeTranscript) GiveUp(ctx context.Context, ev domain.Event, reason string) error {
	j, err := uc.jobs.GetJob(ctx, ev.DocID)
	if err != nil {
		return ignoreMissing(err, "analyze: give up")
	}
	if j.ChecklistID == "" {
		return nil
	}
	name := ""
	if c, err := uc.checklists.GetChecklistVersion(ctx, j.AccountID, j.ChecklistID, j.ChecklistVersion); err == nil {
		name = c.Name
	}
	return uc.save(ctx, j, domain.FailedAnalysis(NewID(), j, name, reason, uc.clock.Now()), nil)
}

func (uc *AnalyzeTranscript) save(ctx context.Context, j domain.Job, a domain.Analysis, weights map[string]float64) error {
	a = a.WithListScore(weights)
	ev := domain.NewAnalysisReadyEvent(a, j, weights, a.CreatedAt)
	err := uc.analyses.SaveAnalysis(ctx, a, []domain.Event{ev})
	if errors.Is(err, domain.ErrConflict) {
		return nil // analysed already: this was a repeat
	}
	if errors.Is(err, domain.ErrNotFound) {
		return nil // the job was deleted while it was analysed
	}
	if err != nil {
		return fmt.Errorf("analyze: save: %w", err)
	}
	uc.log.Info("analysis saved", "docId", j.ID, "analysisId", a.ID, "status", a.Status, "checklist", a.ChecklistID, "version", a.ChecklistVersion)
	return nil
}

// AnalysisGiveUpReason is the failed analysis's reason when the stage gives up.
// The store's errors are internal, whatever they wrap: its driver's words
// name hosts, users and databases.
func AnalysisGiveUpReason(err error) string {
	if errors.Is(err, domain.ErrStoreDown) {
		return "checklist analysis failed: internal error"
	}
	if domain.IsPermanent(err) || errors.Is(err, domain.ErrUnavailable) {
		return "checklist analysis failed: " + err.Error()
	}
	return "checklist analysis failed: internal error"
}
