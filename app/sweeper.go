package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// UploadExpiredReason is the error of a job whose audio never arrived
// within its upload window (spec: 1 hour).
func UploadExpiredReason(j domain.Job) string {
	window := j.UploadExpiresAt.Sub(j.CreatedAt)
	human := domain.FormatSeconds(window.Seconds())
	if window == time.Hour {
		human = "1 hour"
	}
	return "upload window expired: no audio was uploaded within " + human + " of job creation"
}

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
		if _, err := s.SweepOnce(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("sweeper", "err", err)
		}
		s.removeLeftovers(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// SweepOnce handles one batch of stale jobs and returns how many it changed.
func (s *Sweeper) SweepOnce(ctx context.Context) (int, error) {
	now := s.clock.Now()
	stale, err := s.jobs.StaleJobs(ctx, now, now.Add(-s.StuckAfter), 200)
	if err != nil {
		return 0, fmt.Errorf("sweep: %w", err)
	}
	changed := 0
	for _, j := range stale {
		err := transition(ctx, s.jobs, now, j.ID, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
			switch {
			case j.Status == domain.StatusUploading:
				if j.UploadOpen(now) {
					return nil, domain.ErrInvalidTransition
				}
				return j.Fail(now, UploadExpiredReason(*j), a)
			case j.Status.Terminal() || now.Sub(j.UpdatedAt) < s.StuckAfter:
				return nil, domain.ErrInvalidTransition // moved on since it was listed
			case j.Redrives >= s.MaxRedrives:
				reason := fmt.Sprintf("processing stopped in the %s state and did not resume after %d attempts", j.Status, j.Redrives)
				if j.Status == domain.StatusConverting {
					// Jobs wait here while the engine's circuit is open.
					reason += " (speech recognition did not complete: the speech engine was unavailable)"
				}
				return j.Fail(now, reason, a)
			}
			return j.Redrive(now)
		})
		if err != nil {
			return changed, fmt.Errorf("sweep %s: %w", j.ID, err)
		}
		changed++
	}
	return changed, nil
}
