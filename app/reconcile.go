package app

import (
	"context"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// ListTranscriptions and Resend (resend.go) are what an API client needs
// to find what it missed while its receiver was down (events are sent
// once): the list of its jobs (GET /api/listTranscriptions) and a new
// attempt of one job's event (POST /api/resendEvent, the web application's
// Resend). Both see only the caller's account: a job of another account is
// domain.ErrNotFound, like a missing one, and never listed.

// ListTranscriptions lists the caller's jobs (GET /api/listTranscriptions).
type ListTranscriptions struct {
	lister ports.JobPager
}

// NewListTranscriptions builds the use case. It pages with PageJobs, which
// counts nothing: the API shows no total, and counting an account's jobs
// made every page cost as much as all of them (docs/performance.md, Store
// growth).
func NewListTranscriptions(lister ports.JobPager) *ListTranscriptions {
	need("lister", lister)
	return &ListTranscriptions{lister: lister}
}

// Handle returns one page of the caller's jobs matching r, newest first.
// NextCursor is set when the page is full: the next page may be empty.
func (uc *ListTranscriptions) Handle(ctx context.Context, p Principal, r domain.ListRequest) (domain.JobPage, error) {
	if err := RequireBusiness(p); err != nil {
		return domain.JobPage{}, err
	}
	jobs, err := uc.lister.PageJobs(ctx, ports.JobQuery{
		Account: p.Account.ID, Status: r.Status, From: r.CreatedSince, To: r.CreatedUntil, Limit: r.Limit, After: r.Cursor.Key(),
	})
	if err != nil {
		return domain.JobPage{}, fmt.Errorf("list jobs: %w", err)
	}
	page := domain.JobPage{Items: make([]domain.JobSummary, 0, len(jobs))}
	for _, j := range jobs {
		page.Items = append(page.Items, domain.NewJobSummary(j.ID, j.Status, j.CreatedAt, j.Type, j.Duration, j.Metadata, j.MetadataOmitted, j.Title, j.Error))
	}
	if len(jobs) == r.Limit {
		last := jobs[len(jobs)-1]
		c := domain.CursorAfter(last.CreatedAt, last.ID).String()
		page.NextCursor = &c
	}
	return page, nil
}
