// Package client is the Go SDK of the hyscribe transcription API.
//
// Transcribe does the whole round trip in one call: create a job, stream
// the MP3 to its upload address, wait for the transcript. The steps are
// also there one by one (Create, Upload, Wait), with typed exports
// (ExportTranscript: segments and words with their times), reconciliation
// for receivers that missed events (List, Resend), deletion, and a
// receiver of the service's webhooks (WebhookHandler).
//
// The client keeps to the service's limits by itself: polls, exports, lists
// and resends of one API key share one pacer per process (all Clients and
// goroutines), spaced so that they stay under 60 requests per minute each,
// and a 429 pauses every caller of that key for its Retry-After. Create
// and upload retry transient failures (network errors, 429, 5xx), a
// create always with the same Idempotency-Key, so a retry never makes a
// second job.
//
// It depends on the standard library only and builds with Go 1.22 or
// later.
package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Version is this module's version, sent in the User-Agent.
const Version = "0.2.0"

// Client calls one hyscribe service with one API key. It is safe for
// concurrent use.
type Client struct {
	baseURL   string
	apiKey    string
	http      *http.Client
	userAgent string
	retries   int
	backoff   time.Duration
	perMinute int
	// PollInterval is how long Wait waits between polls of one job
	// (default 5 s, the cadence the service recommends). The shared pacer may
	// space polls further when many jobs are waited on at once.
	PollInterval time.Duration
	// sleep waits d or until ctx ends, pace the pacer's d; tests replace
	// them.
	sleep, pace func(ctx context.Context, d time.Duration) error
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends requests with hc instead of a client with no
// overall timeout (uploads may be long; every call takes a context).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// WithPollInterval sets Client.PollInterval.
func WithPollInterval(d time.Duration) Option { return func(c *Client) { c.PollInterval = d } }

// WithUserAgent puts product (for example "acme-crm/2.1") before the
// client's own User-Agent, so the service's operators can tell callers
// apart.
func WithUserAgent(product string) Option {
	return func(c *Client) { c.userAgent = strings.TrimSpace(product) + " " + c.userAgent }
}

// WithRetries sets how many times Create and Upload retry a transient
// failure (default 3; 0 turns retries off). The first retry waits about
// a second, each next one twice as long (at most 30 s), or the
// Retry-After the service gave.
func WithRetries(n int) Option { return func(c *Client) { c.retries = max(n, 0) } }

// WithRateLimit sets the service's per-key limit of polls (and of
// exports, lists and resends, each its own) per minute, for a service
// configured otherwise than the usual 60.
func WithRateLimit(perMinute int) Option {
	return func(c *Client) {
		if perMinute > 0 {
			c.perMinute = perMinute
		}
	}
}

// New returns a client of the service at baseURL (for example
// "https://hyscribe.example") using the Bearer API key apiKey.
func New(baseURL, apiKey string, opts ...Option) *Client {
	c := &Client{
		baseURL: strings.TrimRight(baseURL, "/"), apiKey: apiKey, http: &http.Client{},
		userAgent: "hyscribe-go/" + Version + " (" + runtime.Version() + "; " + runtime.GOOS + "/" + runtime.GOARCH + ")",
		retries:   3, backoff: time.Second, perMinute: 60, PollInterval: 5 * time.Second, sleep: sleepCtx, pace: sleepCtx,
	}
	for _, o := range opts {
		o(c)
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.http.CheckRedirect == nil {
		hc := *c.http // the caller's client is theirs: this copy follows redirects safely
		hc.CheckRedirect = keepKeyToSameOrigin
		c.http = &hc
	}
	return c
}

// keepKeyToSameOrigin follows a redirect (at most 10, as net/http does)
// but sends the API key only to the origin it was meant for: net/http
// keeps Authorization for the same host on another port, or from https to
// plain http, where anyone on the path would read the key. A redirect
// from https to http is not followed at all; one to another scheme, host
// or port goes without Authorization.
func keepKeyToSameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("hyscribe: stopped after 10 redirects")
	}
	first := via[0].URL
	if first.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("hyscribe: refusing a redirect from https to %s (%s)", req.URL.Scheme, req.URL.Redacted())
	}
	if req.URL.Scheme != first.Scheme || origin(req.URL) != origin(first) {
		req.Header.Del("Authorization")
	}
	return nil
}

// origin is u's host and port, the scheme's default port when u has none.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Hostname()) + ":" + port
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
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

// The two transcript types.
const (
	SingleVoice JobType = "single_voice" // plain text: monologues, dictations, voicemails
	PhoneCall   JobType = "phone_call"   // two speakers, labelled "Խոսնակ 1:" and "Խոսնակ 2:"
)

// Job statuses, in the order a job goes through them; transcribed and
// failed are final.
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
	Metadata    json.RawMessage `json:"metadata,omitempty"` // a JSON object, returned unchanged
	ChecklistID string          `json:"checklistId,omitempty"`
	// IdempotencyKey is sent as the Idempotency-Key header: the service
	// answers a repeat of the same key and body (for 24 hours) with the
	// first job instead of making another. Empty: Create makes a random
	// one, used for its own retries.
	IdempotencyKey string `json:"-"`
}

// Terminal reports whether the job is transcribed or failed.
func (j Job) Terminal() bool { return j.Status == StatusTranscribed || j.Status == StatusFailed }

// Create creates a job and returns its docId and upload address. A
// transient failure is retried (WithRetries) with the same
// Idempotency-Key, so at most one job is made.
func (c *Client) Create(ctx context.Context, req CreateRequest) (Created, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Created{}, fmt.Errorf("hyscribe: create: %w", err)
	}
	key := req.IdempotencyKey
	if key == "" {
		key = newIdempotencyKey()
	}
	var out Created
	err = c.retry(ctx, func() error {
		return c.do(ctx, http.MethodPost, "/api/createTranscription", nil, body, map[string]string{"Idempotency-Key": key}, &out)
	})
	return out, err
}

func newIdempotencyKey() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic("hyscribe: crypto/rand: " + err.Error())
	}
	return "hyscribe-go-" + hex.EncodeToString(b)
}

// retry runs call until it succeeds, fails for good, or the retries are
// spent.
func (c *Client) retry(ctx context.Context, call func() error) error {
	for attempt := 0; ; attempt++ {
		err := call()
		if err == nil || attempt >= c.retries || !transient(ctx, err) {
			return err
		}
		wait := c.backoff << attempt
		var apiErr *Error
		if errors.As(err, &apiErr) && apiErr.RetryAfter > 0 {
			wait = apiErr.RetryAfter
		}
		if err := c.sleep(ctx, min(wait, 30*time.Second)); err != nil {
			return err
		}
	}
}

// transient reports whether err may go away on its own: no answer at
// all, 429, or a 5xx other than 501.
func transient(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var apiErr *Error
	if errors.As(err, &apiErr) {
		s := apiErr.StatusCode
		return s == http.StatusTooManyRequests || s >= 500 && s != http.StatusNotImplemented
	}
	var netErr *transportError
	return errors.As(err, &netErr)
}

// transportError is a request that got no answer.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// Upload streams size bytes of r (one MP3 file) to uploadURL with a PUT. A
// size of -1 sends the body chunked. When r is an io.Seeker a transient
// failure is retried from r's current offset; an "already uploaded"
// answer to a retry means an earlier attempt arrived, and is success.
func (c *Client) Upload(ctx context.Context, uploadURL string, r io.Reader, size int64) error {
	seeker, canRetry := r.(io.Seeker)
	var offset int64
	if canRetry {
		var err error
		if offset, err = seeker.Seek(0, io.SeekCurrent); err != nil {
			canRetry = false
		}
	}
	attempt := 0
	upload := func() error {
		attempt++
		if attempt > 1 {
			if _, err := seeker.Seek(offset, io.SeekStart); err != nil {
				return fmt.Errorf("hyscribe: upload: rewinding for a retry: %w", err)
			}
		}
		err := c.uploadOnce(ctx, uploadURL, r, size)
		if attempt > 1 && errors.Is(err, ErrConflict) {
			return nil
		}
		return err
	}
	if !canRetry {
		return upload()
	}
	return c.retry(ctx, upload)
}

func (c *Client) uploadOnce(ctx context.Context, uploadURL string, r io.Reader, size int64) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, uploadURL, io.NopCloser(r))
	if err != nil {
		return fmt.Errorf("hyscribe: upload: %w", err)
	}
	req.ContentLength = size
	if size == 0 {
		req.Body = http.NoBody
	}
	req.Header.Set("Content-Type", "audio/mpeg")
	req.Header.Set("User-Agent", c.userAgent)
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("hyscribe: upload: %w", &transportError{err})
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
	defer f.Close() //nolint:errcheck // opened read-only
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("hyscribe: upload: %w", err)
	}
	return c.Upload(ctx, uploadURL, f, st.Size())
}

// Get polls the job once, through the key's shared pacer.
func (c *Client) Get(ctx context.Context, docID string) (Job, error) {
	var j Job
	err := c.paced(ctx, scopePoll, func() error {
		return c.do(ctx, http.MethodGet, "/api/getTranscription", url.Values{"docId": {docID}}, nil, nil, &j)
	})
	return j, err
}

// Wait polls the job every PollInterval until it is transcribed or failed
// and returns it (a failed job is no error: its Error field says why).
// Polls go through the key's shared pacer, so any number of concurrent
// Waits stay under the service's limit together; a 429 or 503 answer
// waits the Retry-After it carries, then polls again; any other error
// ends the wait. progress, if not nil, sees every answer. Wait returns
// ctx's error when ctx ends first.
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

// TranscribeOptions are Transcribe's job settings.
type TranscribeOptions struct {
	Type           JobType         // default SingleVoice
	Metadata       json.RawMessage // a JSON object, returned unchanged
	ChecklistID    string
	IdempotencyKey string    // see CreateRequest
	Progress       func(Job) // sees every poll's answer
}

// JobFailedError is Transcribe's error for a job that ended failed.
type JobFailedError struct {
	DocID   string
	Message string // the job's error, e.g. "the file is WAV audio, not MP3"
}

func (e *JobFailedError) Error() string {
	return fmt.Sprintf("hyscribe: job %s failed: %s", e.DocID, e.Message)
}

// Transcribe creates a job, uploads the MP3 file at path and waits for
// the transcript. A job that ends failed is returned with a
// *JobFailedError; any other error returns the job as far as it is known
// (its DocID once created).
func (c *Client) Transcribe(ctx context.Context, path string, opts TranscribeOptions) (Job, error) {
	typ := opts.Type
	if typ == "" {
		typ = SingleVoice
	}
	created, err := c.Create(ctx, CreateRequest{Type: typ, Metadata: opts.Metadata, ChecklistID: opts.ChecklistID, IdempotencyKey: opts.IdempotencyKey})
	if err != nil {
		return Job{}, err
	}
	if err := c.UploadFile(ctx, created.UploadURL, path); err != nil {
		return Job{DocID: created.DocID, Status: StatusUploading}, err
	}
	j, err := c.Wait(ctx, created.DocID, opts.Progress)
	if err != nil {
		return Job{DocID: created.DocID}, err
	}
	if j.Status == StatusFailed {
		msg := ""
		if j.Error != nil {
			msg = *j.Error
		}
		return j, &JobFailedError{DocID: j.DocID, Message: msg}
	}
	return j, nil
}

// Export formats.
const (
	FormatSRT  = "srt"
	FormatVTT  = "vtt"
	FormatTXT  = "txt"
	FormatJSON = "json"
)

// Export downloads the transcribed job in format (FormatSRT, FormatVTT,
// FormatTXT or FormatJSON) as the service sends it. Before the job is
// transcribed the error is ErrConflict. ExportTranscript decodes the JSON
// format.
func (c *Client) Export(ctx context.Context, docID, format string) ([]byte, error) {
	var out []byte
	err := c.paced(ctx, scopeExport, func() error {
		return c.do(ctx, http.MethodGet, "/api/exportTranscription", url.Values{"docId": {docID}, "format": {format}}, nil, nil, &out)
	})
	return out, err
}

// ExportTranscript downloads the transcribed job as a Transcript.
func (c *Client) ExportTranscript(ctx context.Context, docID string) (Transcript, error) {
	b, err := c.Export(ctx, docID, FormatJSON)
	if err != nil {
		return Transcript{}, err
	}
	var t Transcript
	if err := json.Unmarshal(b, &t); err != nil {
		return Transcript{}, fmt.Errorf("hyscribe: export %s: the answer is not the expected JSON: %w", docID, err)
	}
	return t, nil
}

// Delete deletes the job: its audio, transcript and everything kept of it.
// Deleting a job already deleted succeeds again.
func (c *Client) Delete(ctx context.Context, docID string) error {
	body, _ := json.Marshal(map[string]string{"docId": docID}) // a string: cannot fail
	var out struct {
		Deleted bool `json:"deleted"`
	}
	if err := c.do(ctx, http.MethodPost, "/api/deleteTranscription", nil, body, nil, &out); err != nil {
		return err
	}
	if !out.Deleted {
		return fmt.Errorf("hyscribe: delete %s: the service did not confirm the deletion", docID)
	}
	return nil
}

// do sends one API request and decodes a 2xx answer into out (*[]byte
// takes the raw body).
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body []byte, headers map[string]string, out any) error {
	u := c.baseURL + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return fmt.Errorf("hyscribe: %s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	req.Header.Set("User-Agent", c.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("hyscribe: %s %s: %w", method, path, &transportError{err})
	}
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		return apiError(res)
	}
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("hyscribe: %s %s: reading the answer: %w", method, path, &transportError{err})
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
