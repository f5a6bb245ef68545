package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// script answers polls from a list of (status, Retry-After, job status).
type script struct {
	mu    sync.Mutex
	steps []step
	seen  int
}

type step struct {
	code       int
	retryAfter string
	status     string
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer hsk_test" || r.URL.Query().Get("docId") != "d1" {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	st := s.steps[min(s.seen, len(s.steps)-1)]
	s.seen++
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if st.retryAfter != "" {
		w.Header().Set("Retry-After", st.retryAfter)
	}
	w.WriteHeader(st.code)
	if st.code != 200 {
		fmt.Fprintf(w, `{"error":"over the limit of 60 requests per minute","code":"rate_limited"}`)
		return
	}
	extra := ""
	if st.status == StatusTranscribed {
		extra = `,"transcription":"Բարեւ","title":"t","resolution":"r","languageCode":"hy-AM"`
	}
	fmt.Fprintf(w, `{"docId":"d1","status":%q,"createdAt":"2025-03-01T12:00:00.000Z","type":"single_voice","duration":null,"metadata":{}%s}`, st.status, extra)
}

// recordSleeps makes c record the waits it asks for instead of waiting.
func recordSleeps(c *Client) *[]time.Duration {
	c.pace = func(ctx context.Context, _ time.Duration) error { return ctx.Err() } // these tests count Wait's own waits
	var waits []time.Duration
	c.sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	return &waits
}

func TestWaitHonoursRetryAfterAndStopsAtTerminal(t *testing.T) {
	s := &script{steps: []step{
		{200, "", StatusUploading}, {429, "17", ""}, {200, "", StatusConverting}, {200, "", StatusTranscribed},
		{500, "", ""}, // never reached: Wait stops at transcribed
	}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	c := New(srv.URL, "hsk_test", WithPollInterval(3*time.Second))
	waits := recordSleeps(c)
	var seen []string
	j, err := c.Wait(context.Background(), "d1", func(j Job) { seen = append(seen, j.Status) })
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != StatusTranscribed || j.Transcription == nil || *j.Transcription != "Բարեւ" {
		t.Fatalf("job %+v", j)
	}
	want := []time.Duration{3 * time.Second, 17 * time.Second, 3 * time.Second}
	if fmt.Sprint(*waits) != fmt.Sprint(want) {
		t.Fatalf("waits %v, want %v (interval, then Retry-After of the 429, then interval)", *waits, want)
	}
	if fmt.Sprint(seen) != "[uploading converting transcribed]" || s.seen != 4 {
		t.Fatalf("progress %v after %d polls", seen, s.seen)
	}
}

func TestWaitReturnsFailedJobsAndOtherErrors(t *testing.T) {
	srv := httptest.NewServer(&script{steps: []step{{200, "", StatusFailed}}})
	defer srv.Close()
	c := New(srv.URL, "hsk_test")
	recordSleeps(c)
	if j, err := c.Wait(context.Background(), "d1", nil); err != nil || j.Status != StatusFailed {
		t.Fatalf("failed job: %+v %v", j, err)
	}
	srv404 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(404)
		fmt.Fprint(w, `{"error":"no transcription with this docId","code":"not_found"}`)
	}))
	defer srv404.Close()
	_, err := New(srv404.URL, "k").Wait(context.Background(), "d1", nil)
	var e *Error
	if !errors.Is(err, ErrNotFound) || !errors.As(err, &e) || e.Code != "not_found" || e.Message != "no transcription with this docId" {
		t.Fatalf("404: %v", err)
	}
	if errors.Is(err, ErrRateLimited) || errors.Is(err, ErrServer) {
		t.Fatal("a 404 matched another status's sentinel")
	}
}

func TestWaitIsCancellable(t *testing.T) {
	srv := httptest.NewServer(&script{steps: []step{{200, "", StatusProcessing}}})
	defer srv.Close()
	c := New(srv.URL, "hsk_test", WithPollInterval(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Wait(ctx, "d1", func(Job) { cancel() })
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Wait after cancel: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Wait did not return after its context was cancelled")
	}
}

func TestErrorsMatchTheirStatus(t *testing.T) {
	for status, sentinel := range map[int]error{
		400: ErrBadRequest, 401: ErrUnauthorized, 403: ErrForbidden, 404: ErrNotFound, 405: ErrMethodNotAllowed,
		409: ErrConflict, 413: ErrTooLarge, 422: ErrUnprocessable, 429: ErrRateLimited, 500: ErrServer, 502: ErrServer,
		503: ErrUnavailable,
	} {
		e := &Error{StatusCode: status}
		if !errors.Is(e, sentinel) {
			t.Errorf("%d does not match %v", status, sentinel)
		}
		if status != 404 && errors.Is(e, ErrNotFound) {
			t.Errorf("%d matches ErrNotFound", status)
		}
	}
}
