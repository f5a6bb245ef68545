// Package client is the Go SDK of the hyscribe transcription API: create a
// job, stream the MP3 to its upload address, wait for the transcript
// (polling as the service asks: every few seconds, backing off on 429 for
// as long as Retry-After says), export it as subtitles or text, delete it,
// and receive the service's webhooks (see WebhookHandler).
//
// It depends on the standard library only.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Client calls one hyscribe service with one API key. It is safe for
// concurrent use.
type Client struct {
	baseURL string
	apiKey  string
	http    *http.Client
	// PollInterval is how long Wait waits between polls (default 5 s, the
	// spec's recommended cadence).
	PollInterval time.Duration
	// sleep waits d or until ctx ends; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends requests with hc instead of a client with no
// overall timeout (uploads may be long; every call takes a context).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// WithPollInterval sets Client.PollInterval.
func WithPollInterval(d time.Duration) Option { return func(c *Client) { c.PollInterval = d } }

// New returns a client of the service at baseURL (for example
// "https://hyscribe.example") using the Bearer API key apiKey.
func New(baseURL, apiKey string, opts ...Option) *Client {
	c := &Client{baseURL: strings.TrimRight(baseURL, "/"), apiKey: apiKey, http: &http.Client{}, PollInterval: 5 * time.Second, sleep: sleepCtx}
	for _, o := range opts {
		o(c)
	}
	return c
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// JobType is the transcript type of a job.
type JobType string

// The two transcript types (spec §1.7).
const (
	SingleVoice JobType = "single_voice"
	PhoneCall   JobType = "phone_call"
)

// Job statuses (spec §3).
const (
	StatusUploading   = "uploading"
	StatusProcessing  = "processing"
	StatusConverting  = "converting"
	StatusTranscribed = "transcribed"
	StatusFailed      = "failed"
)

// CreateRequest is the body of createTranscription.
type CreateRequest struct {
	Type        JobType         `json:"type"`
	Metadata    json.RawMessage `json:"metadata,omitempty"` // a JSON object
	ChecklistID string          `json:"checklistId,omitempty"`
}

// Created is createTranscription's answer.
type Created struct {
	DocID     string `json:"docId"`
	UploadURL string `json:"uploadUrl"`
}

// Job is the job object of getTranscription (spec §2.1). The fields of a
// terminal state are set only in that state.
type Job struct {
	DocID     string          `json:"docId"`
	Status    string          `json:"status"`
	CreatedAt *time.Time      `json:"createdAt"`
	Type      JobType         `json:"type"`
	Duration  *float64        `json:"duration"`
	Metadata  json.RawMessage `json:"metadata"`

	Transcription *string `json:"transcription,omitempty"`
	Title         *string `json:"title,omitempty"`
	Resolution    *string `json:"resolution,omitempty"`
	LanguageCode  *string `json:"languageCode,omitempty"`
	Error         *string `json:"error,omitempty"`
}

// Terminal reports whether the job is transcribed or failed.
func (j Job) Terminal() bool { return j.Status == StatusTranscribed || j.Status == StatusFailed }

// Create creates a job and returns its docId and upload address.
func (c *Client) Create(ctx context.Context, req CreateRequest) (Created, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Created{}, fmt.Errorf("hyscribe: create: %w", err)
	}
	var out Created
	if err := c.call(ctx, http.MethodPost, "/api/createTranscription", nil, bytes.NewReader(body), &out); err != nil {
		return Created{}, err
	}
	return out, nil
}

// Upload streams size bytes of r (one MP3 file) to uploadURL with a PUT. A
// size of -1 sends the body chunked.
func (c *Client) Upload(ctx context.Context, uploadURL string, r io.Reader, size int64) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, uploadURL, r)
	if err != nil {
		return fmt.Errorf("hyscribe: upload: %w", err)
	}
	req.ContentLength = size
	if size == 0 {
		req.Body = http.NoBody
	}
	req.Header.Set("Content-Type", "audio/mpeg")
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("hyscribe: upload: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		return apiError(res)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	return nil
}

// UploadFile streams the file at path to uploadURL.
func (c *Client) UploadFile(ctx context.Context, uploadURL, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("hyscribe: upload: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("hyscribe: upload: %w", err)
	}
	return c.Upload(ctx, uploadURL, f, st.Size())
}

// Get polls the job once.
func (c *Client) Get(ctx context.Context, docID string) (Job, error) {
	var j Job
	err := c.call(ctx, http.MethodGet, "/api/getTranscription", url.Values{"docId": {docID}}, nil, &j)
	return j, err
}

// Wait polls the job every PollInterval until it is transcribed or failed
// and returns it (a failed job is no error: its Error field says why). A
// 429 or 503 answer waits the Retry-After it carries, then polls again;
// any other error ends the wait. progress, if not nil, sees every answer.
// Wait returns ctx's error when ctx ends first.
func (c *Client) Wait(ctx context.Context, docID string, progress func(Job)) (Job, error) {
	for {
		j, err := c.Get(ctx, docID)
		wait := c.PollInterval
		var apiErr *Error
		switch {
		case err == nil:
			if progress != nil {
				progress(j)
			}
			if j.Terminal() {
				return j, nil
			}
		case errors.As(err, &apiErr) && (apiErr.StatusCode == http.StatusTooManyRequests || apiErr.StatusCode == http.StatusServiceUnavailable):
			if apiErr.RetryAfter > 0 {
				wait = apiErr.RetryAfter
			}
		default:
			return Job{}, err
		}
		if err := c.sleep(ctx, wait); err != nil {
			return Job{}, err
		}
	}
}

// Export formats.
const (
	FormatSRT  = "srt"
	FormatVTT  = "vtt"
	FormatTXT  = "txt"
	FormatJSON = "json"
)

// Export downloads the transcribed job in format (FormatSRT, FormatVTT,
// FormatTXT or FormatJSON). Before the job is transcribed the error is
// ErrConflict.
func (c *Client) Export(ctx context.Context, docID, format string) ([]byte, error) {
	var out []byte
	err := c.call(ctx, http.MethodGet, "/api/exportTranscription", url.Values{"docId": {docID}, "format": {format}}, nil, &out)
	return out, err
}

// Delete deletes the job: its audio, transcript and everything kept of it.
// Deleting a job already deleted succeeds again.
func (c *Client) Delete(ctx context.Context, docID string) error {
	body, _ := json.Marshal(map[string]string{"docId": docID}) // a string: cannot fail
	var out struct {
		Deleted bool `json:"deleted"`
	}
	if err := c.call(ctx, http.MethodPost, "/api/deleteTranscription", nil, bytes.NewReader(body), &out); err != nil {
		return err
	}
	if !out.Deleted {
		return fmt.Errorf("hyscribe: delete %s: the service did not confirm the deletion", docID)
	}
	return nil
}

// call sends one API request and decodes a 2xx answer into out (*[]byte
// takes the raw body).
func (c *Client) call(ctx context.Context, method, path string, query url.Values, body io.Reader, out any) error {
	u := c.baseURL + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return fmt.Errorf("hyscribe: %s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("hyscribe: %s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		return apiError(res)
	}
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("hyscribe: %s %s: reading the answer: %w", method, path, err)
	}
	if raw, ok := out.(*[]byte); ok {
		*raw = b
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("hyscribe: %s %s: the answer is not the expected JSON: %w", method, path, err)
	}
	return nil
}

// retryAfter reads a Retry-After header of seconds.
func retryAfter(h http.Header) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}
