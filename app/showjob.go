package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// ShowJob gathers what an operator needs to follow one job through the
// pipeline (`hyscribe job show`): its states with times, its events and
// its webhook deliveries, from the store. It is an operator's tool: it
// looks a job up by docId alone, whatever its account.
type ShowJob struct {
	jobs       ports.JobStore
	history    ports.JobHistory
	deliveries ports.DeliveryStore
	analyses   ports.AnalysisStore
}

// NewShowJob builds the use case.
func NewShowJob(jobs ports.JobStore, history ports.JobHistory, deliveries ports.DeliveryStore, analyses ports.AnalysisStore) *ShowJob {
	need("jobs", jobs)
	need("history", history)
	need("deliveries", deliveries)
	need("analyses", analyses)
	return &ShowJob{jobs: jobs, history: history, deliveries: deliveries, analyses: analyses}
}

// JobState is one state a job entered, and when.
type JobState struct {
	Status domain.Status
	At     time.Time
	Error  string // the readable error of failed
}

// JobReport is a job as an operator sees it: no audio, transcript or
// secret.
type JobReport struct {
	Job        domain.Job
	States     []JobState
	Events     []ports.JobEvent
	Deliveries []domain.Delivery
	Analysis   *domain.Analysis // nil when there is none
	// HistoryMissing is set for a job written before the history was kept:
	// States then holds only its creation and its current state.
	HistoryMissing bool
}

// Handle returns the report, or domain.ErrNotFound.
func (uc *ShowJob) Handle(ctx context.Context, id domain.DocID) (JobReport, error) {
	j, err := uc.jobs.GetJob(ctx, id)
	if err != nil {
		return JobReport{}, fmt.Errorf("job %s: %w", id, err)
	}
	r := JobReport{Job: j}
	if r.Events, err = uc.history.JobHistory(ctx, id); err != nil {
		return JobReport{}, err
	}
	for _, e := range r.Events {
		if e.Status != "" {
			r.States = append(r.States, JobState{Status: e.Status, At: e.At, Error: e.Error})
		}
	}
	if len(r.States) == 0 {
		r.HistoryMissing = true
		r.States = []JobState{{Status: domain.StatusUploading, At: j.CreatedAt}}
		if j.Status != domain.StatusUploading {
			r.States = append(r.States, JobState{Status: j.Status, At: j.UpdatedAt, Error: j.Error})
		}
	}
	if r.Deliveries, err = uc.deliveries.Deliveries(ctx, id); err != nil {
		return JobReport{}, err
	}
	switch a, err := uc.analyses.AnalysisByDoc(ctx, id); {
	case err == nil:
		r.Analysis = &a
	case !errors.Is(err, domain.ErrNotFound):
		return JobReport{}, err
	}
	return r, nil
}
