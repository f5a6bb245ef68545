package porttest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// pageIDs is PageJobs's page as IDs, failing on a job of another account.
func pageIDs(t *testing.T, s Stores, q ports.JobQuery) []string {
	t.Helper()
	jobs, err := s.PageJobs(ctxOf(t), q)
	noErr(t, err)
	out := []string{}
	for _, j := range jobs {
		if j.AccountID != q.Account {
			t.Fatalf("PageJobs for %s returned %s of account %s", q.Account, j.ID, j.AccountID)
		}
		out = append(out, string(j.ID))
	}
	return out
}

// jobPageTests are ports.JobPager's: the API's keyset pages.
var jobPageTests = []subtest{
	{"KeysetPagesNewestFirst", func(t *testing.T, s Stores) {
		keysetPagesUnderInserts(t, s, func(q ports.JobQuery) []ports.ListedJob {
			jobs, err := s.PageJobs(ctxOf(t), q)
			noErr(t, err)
			return jobs
		})
	}},
	{"CursorKeepsFilters", func(t *testing.T, s Stores) {
		a := webAccount(t, s, "acc")
		for i := range 6 {
			j, evs := uploadingJob(fmt.Sprintf("f-%d", i), a.ID, t0.Add(time.Duration(i)*time.Minute))
			if i%2 == 1 {
				j.Status, j.Error = domain.StatusFailed, "the upload is not an MP3"
			}
			createJob(t, s, j, evs)
		}
		cursor := domain.CursorAfter(t0.Add(5*time.Minute), "f-5").Key()
		if got, want := pageIDs(t, s, ports.JobQuery{Account: a.ID, Status: domain.StatusFailed, After: cursor}), []string{"f-3", "f-1"}; !slices.Equal(got, want) {
			t.Fatalf("failed jobs after f-5: %v, want %v", got, want)
		}
		if got, want := pageIDs(t, s, ports.JobQuery{Account: a.ID, From: t0.Add(time.Minute), To: t0.Add(4 * time.Minute), After: domain.CursorAfter(t0.Add(3*time.Minute), "f-3").Key()}), []string{"f-2", "f-1"}; !slices.Equal(got, want) {
			t.Fatalf("jobs of [1, 4) min after f-3: %v, want %v", got, want)
		}
		if got := pageIDs(t, s, ports.JobQuery{Account: a.ID, After: domain.CursorAfter(t0, "f-0").Key()}); len(got) != 0 {
			t.Fatalf("jobs after the oldest: %v, want none", got)
		}
		if got, want := pageIDs(t, s, ports.JobQuery{Account: a.ID, Limit: 2}), []string{"f-5", "f-4"}; !slices.Equal(got, want) {
			t.Fatalf("first page of 2: %v, want %v", got, want)
		}
	}},
}

// keysetPagesUnderInserts walks an account's jobs two at a time with page
// (PageJobs, or ListJobs: both keep the API's order and cursor): each page
// starts after the last job of the one before, so jobs created between two
// pages, all newer than any listed, neither repeat nor hide a job; three
// jobs of one millisecond, created out of order, go by ID, highest first;
// another account's job never appears. It returns the account paged.
func keysetPagesUnderInserts(t *testing.T, s Stores, page func(ports.JobQuery) []ports.ListedJob) domain.Account {
	t.Helper()
	a, b := webAccount(t, s, "acc"), webAccount(t, s, "other")
	for i, id := range []string{"k-1", "k-2", "k-3", "k-4"} {
		j, evs := uploadingJob(id, a.ID, t0.Add(time.Duration(i)*time.Minute))
		createJob(t, s, j, evs)
	}
	for _, id := range []string{"k-5a", "k-5c", "k-5b"} { // one millisecond
		j, evs := uploadingJob(id, a.ID, t0.Add(10*time.Minute+300*time.Microsecond))
		createJob(t, s, j, evs)
	}
	o, oevs := uploadingJob("k-9", b.ID, t0.Add(5*time.Minute))
	createJob(t, s, o, oevs)
	var got []string
	q := ports.JobQuery{Account: a.ID, Limit: 2}
	for n := 0; ; n++ {
		jobs := page(q)
		for _, j := range jobs {
			if j.AccountID != a.ID {
				t.Fatalf("page %d lists %s of account %s", n, j.ID, j.AccountID)
			}
			got = append(got, string(j.ID))
		}
		if len(jobs) < q.Limit {
			break
		}
		last := jobs[len(jobs)-1]
		q.After = domain.CursorAfter(last.CreatedAt, last.ID).Key()
		// A job created meanwhile is newer than every listed one: no page shifts.
		j, evs := uploadingJob(fmt.Sprintf("new-%d", n), a.ID, t0.Add(time.Hour+time.Duration(n)*time.Second))
		createJob(t, s, j, evs)
	}
	want := []string{"k-5c", "k-5b", "k-5a", "k-4", "k-3", "k-2", "k-1"}
	if !slices.Equal(got, want) {
		t.Fatalf("pages listed %v, want %v", got, want)
	}
	return a
}
