package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// ListOptions filter and page List. Zero fields do not filter.
type ListOptions struct {
	Status       string    // one of the Status constants
	CreatedSince time.Time // created at or after
	CreatedUntil time.Time // created before
	Limit        int       // page size, 1 to 100 (default 20)
	Cursor       string    // NextCursor of the previous page
}

// JobPage is one page of List. NextCursor is "" on the last page.
type JobPage struct {
	Items      []JobSummary
	NextCursor string
}

// List returns one page of the caller's jobs, newest first. Pages are
// stable: jobs created while you walk them are newer than every listed
// one and never shift a later page. For reconciliation after a receiver
// was down: List with Status StatusTranscribed and CreatedSince the time
// it went down.
func (c *Client) List(ctx context.Context, opts ListOptions) (JobPage, error) {
	q := url.Values{}
	if opts.Status != "" {
		q.Set("status", opts.Status)
	}
	if !opts.CreatedSince.IsZero() {
		q.Set("createdSince", opts.CreatedSince.UTC().Format(time.RFC3339Nano))
	}
	if !opts.CreatedUntil.IsZero() {
		q.Set("createdUntil", opts.CreatedUntil.UTC().Format(time.RFC3339Nano))
	}
	if opts.Limit > 0 {
		q.Set("limit", strconv.Itoa(opts.Limit))
	}
	if opts.Cursor != "" {
		q.Set("cursor", opts.Cursor)
	}
	var out struct {
		Items      []JobSummary `json:"items"`
		NextCursor *string      `json:"nextCursor"`
	}
	err := c.paced(ctx, scopeList, func() error {
		return c.do(ctx, http.MethodGet, "/api/listTranscriptions", q, nil, nil, &out)
	})
	if err != nil {
		return JobPage{}, err
	}
	p := JobPage{Items: out.Items}
	if out.NextCursor != nil {
		p.NextCursor = *out.NextCursor
	}
	return p, nil
}

// ListAll calls fn with every job List finds, page after page, until the
// last page or fn's first error.
func (c *Client) ListAll(ctx context.Context, opts ListOptions, fn func(JobSummary) error) error {
	for {
		p, err := c.List(ctx, opts)
		if err != nil {
			return err
		}
		for _, j := range p.Items {
			if err := fn(j); err != nil {
				return err
			}
		}
		if p.NextCursor == "" {
			return nil
		}
		opts.Cursor = p.NextCursor
	}
}

// Resend sends the job's event (EventTranscriptReady, EventAnalysisReady
// or EventTranscriptFailed) to the account's receiver again, now, with
// the webhook-id of its first delivery. An event never attempted for the
// job is ErrConflict; a job of another key's account is ErrNotFound.
func (c *Client) Resend(ctx context.Context, docID, event string) (ResendResult, error) {
	body, _ := json.Marshal(map[string]string{"docId": docID, "event": event}) // strings: cannot fail
	var out ResendResult
	err := c.paced(ctx, scopeResend, func() error {
		return c.do(ctx, http.MethodPost, "/api/resendEvent", nil, bytes.Clone(body), nil, &out)
	})
	return out, err
}
