package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Sweeper ends jobs whose upload window closed and re-drives jobs stuck in a
// non-terminal state (their message lost, their worker gone), failing them
// after MaxRedrives attempts so no job is ever stuck.
type Sweeper struct {
	jobs  ports.JobStore
	clock ports.Clock
	log   *slog.Logger

	StuckAfter  time.Duration // a job not updated for this long is stuck
	MaxRedrives int
	Interval    time.Duration
	// JobFailed, when set, is told of each job the sweep could not handle
	// (for the metrics); the sweep logs it and goes on with the others.
	JobFailed func(id domain.DocID, err error)

	// Leftovers, when set, removes each sweep what crashes left half-written
	// and unwritten for LeftoverAge (leftovers.go).
	Leftovers   ports.LeftoverRemover
	LeftoverAge time.Duration
}

// NewSweeper builds a sweeper with defaults: stuck after 15 minutes, three
// re-drives, a sweep every 30 seconds.
func NewSweeper(jobs ports.JobStore, clock ports.Clock, log *slog.Logger) *Sweeper {
	need("jobs", jobs)
	need("clock", clock)
	if log == nil {
		log = slog.Default()
	}
	return &Sweeper{jobs: jobs, clock: clock, log: log, StuckAfter: 15 * time.Minute, MaxRedrives: 3, Interval: 30 * time.Second}
}

// Run sweeps every Interval until ctx ends.
func (s *Sweeper) Run(ctx context.Context) error {
	t := time.NewTicker(s.Interval)
	defer t.Stop()
	for {
		_, _ = s.SweepOnce(ctx) // it logs each job it skips
		s.removeLeftovers(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// SweepOnce handles one batch of stale jobs and returns how many it changed.
// A job it cannot handle is logged, reported to JobFailed and skipped: the
// list is oldest first, so stopping there would stall every job behind it.
// The error then joins those of the skipped jobs.
func (s *Sweeper) SweepOnce(ctx context.Context) (int, error) {
	now := s.clock.Now()
	stale, err := s.jobs.StaleJobs(ctx, now, now.Add(-s.StuckAfter), 200)
	if err != nil {
		return 0, fmt.Errorf("sweep: %w", err)
	}
	changed := 0
	var errs []error
	for _, j := range stale {
		err := transition(ctx, s.jobs, now, j.ID, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
			switch {
			case j.Status == domain.StatusUploading:
				if j.UploadOpen(now) {
					return nil, domain.ErrInvalidTransition
				}
				return j.Fail(now, domain.UploadExpired(j.UploadExpiresAt.Sub(j.CreatedAt)), a)
			case j.Status.Terminal() || now.Sub(j.UpdatedAt) < s.StuckAfter:
				return nil, domain.ErrInvalidTransition // moved on since it was listed
			case j.Redrives >= s.MaxRedrives:
				return j.Fail(now, domain.Stalled(j.Status, j.Redrives), a)
			}
			return j.Redrive(now)
		})
		if err != nil {
			if ctx.Err() != nil {
				return changed, ctx.Err()
			}
			s.log.Warn("sweeper skipped a job it could not handle", "docId", j.ID, "err", err)
			if s.JobFailed != nil {
				s.JobFailed(j.ID, err)
			}
			errs = append(errs, fmt.Errorf("sweep %s: %w", j.ID, err))
			continue
		}
		changed++
	}
	return changed, errors.Join(errs...)
}
