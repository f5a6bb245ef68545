package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// unreadableRow is a job store whose one job can never be updated, as a
// row the driver cannot read.
type unreadableRow struct {
	ports.JobStore
	bad domain.DocID
}

func (s unreadableRow) UpdateJob(ctx context.Context, id domain.DocID, fn func(*domain.Job, *domain.Account) ([]domain.Event, error)) error {
	if id == s.bad {
		return errors.New("cannot scan row")
	}
	return s.JobStore.UpdateJob(ctx, id, fn)
}

func TestSweeperGoesOnPastAJobItCannotHandle(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	bad := w.newJob(p, `{"type":"single_voice"}`) // the oldest: listed first on every sweep
	w.clock.Add(time.Second)
	good := w.newJob(p, `{"type":"single_voice"}`)
	var skipped []domain.DocID
	sw := app.NewSweeper(unreadableRow{JobStore: w.store, bad: bad.DocID}, w.clock, nil)
	sw.JobFailed = func(id domain.DocID, _ error) { skipped = append(skipped, id) }

	w.clock.Add(time.Hour + time.Second)
	n, err := sw.SweepOnce(w.ctx)
	if n != 1 || err == nil {
		t.Fatalf("sweep: changed %d, err %v; want 1 and the bad job's error", n, err)
	}
	if j := w.job(good.DocID); j.Status != domain.StatusFailed {
		t.Fatalf("the job after the unreadable one: %s", j.Status)
	}
	if len(skipped) != 1 || skipped[0] != bad.DocID {
		t.Fatalf("reported as skipped: %v", skipped)
	}
	if j := w.job(bad.DocID); j.Status != domain.StatusUploading {
		t.Fatalf("the unreadable job: %s", j.Status)
	}
}
