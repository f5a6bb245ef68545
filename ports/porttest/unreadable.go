package porttest

import (
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// UnreadableStaleJob checks that StaleJobs lists a stale job whose stored
// data cannot be decoded, and the jobs after it: spoil must make the job's
// row unreadable (invalid JSON in a column the store decodes). A store
// that failed the whole list would stall the sweeper on that row for ever.
func UnreadableStaleJob(t *testing.T, s Stores, spoil func(t *testing.T, id domain.DocID)) {
	t.Helper()
	a := newAccount(t, s, "acct-unreadable", 60_000)
	var jobs []domain.Job
	for i, id := range []domain.DocID{"doc-unreadable", "doc-after-it"} {
		j, evs := domain.NewJob(id, a.ID, createRequest(), t0.Add(time.Duration(i)*time.Second), time.Hour)
		noErr(t, s.CreateJob(ctxOf(t), j, evs))
		jobs = append(jobs, j)
	}
	spoil(t, jobs[0].ID)
	if _, err := s.GetJob(ctxOf(t), jobs[0].ID); err == nil {
		t.Fatal("spoil left the job readable: the test would prove nothing")
	}
	now := t0.Add(2 * time.Hour)
	got := must(s.StaleJobs(ctxOf(t), now, now, 10))
	if ids(got) != ids(jobs) {
		t.Fatalf("StaleJobs: got %s, want %s", ids(got), ids(jobs))
	}
	if got[0].Status != domain.StatusUploading || !got[0].UploadExpiresAt.Equal(jobs[0].UploadExpiresAt) {
		t.Fatalf("the unreadable job is listed as %+v", got[0])
	}
}
