package retryhttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/internal/retryhttp"
	"github.com/hyscribe/hyscribe/domain"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{" 7 ", 7 * time.Second, true},
		{"-3", 0, false},
		{"soon", 0, false},
		{"1.5", 0, false},
		{"99999999999999999", time.Duration(1<<63 - 1).Truncate(time.Second), true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
	} {
		got, ok := retryhttp.RetryAfter(tc.in, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("RetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestBackoffGrowsWithJitterUnderItsCap(t *testing.T) {
	p := retryhttp.Policy{BackoffBase: 100 * time.Millisecond, MaxBackoff: time.Second}
	for n, full := range []time.Duration{100, 200, 400, 800, 1000, 1000, 1000} {
		full *= time.Millisecond
		seen := map[time.Duration]bool{}
		for range 50 {
			d := p.Backoff(n + 1)
			if d < full/2 || d > full {
				t.Fatalf("retry %d waited %v, want within [%v, %v]", n+1, d, full/2, full)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Errorf("retry %d: no jitter", n+1)
		}
	}
	if d := (retryhttp.Policy{BackoffBase: time.Hour}).Backoff(80); d <= 0 {
		t.Errorf("an uncapped backoff overflowed to %v", d)
	}
	if d := (retryhttp.Policy{}).Backoff(3); d != 0 {
		t.Errorf("zero base waited %v", d)
	}
}

func TestSnippet(t *testing.T) {
	arm := strings.Repeat("Բ", 150) // 300 bytes
	if got := retryhttp.Snippet([]byte(arm), 201); got != strings.Repeat("Բ", 100) {
		t.Errorf("a rune cut in half was kept: %q", got)
	}
	if got := retryhttp.Snippet([]byte("  line one\n\tline two  "), 200); got != "line one line two" {
		t.Errorf("whitespace not folded: %q", got)
	}
}

func TestErrorMessage(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"Invalid file format.","type":"invalid_request_error"}}`: "Invalid file format.",
		`{"error":"model not loaded"}`:                              "model not loaded",
		`{"detail":"Not authenticated"}`:                            "Not authenticated",
		`{"detail":[{"msg":"field required"},{"msg":"bad value"}]}`: "field required; bad value",
		`{"message":"upstream\nfailed"}`:                            "upstream failed",
		`{"ok":false}`:                                              "",
		`<html>502</html>`:                                          "",
	} {
		if got := retryhttp.ErrorMessage([]byte(body)); got != want {
			t.Errorf("ErrorMessage(%s) = %q, want %q", body, got, want)
		}
	}
}

func policy() retryhttp.Policy {
	return retryhttp.Policy{Service: "test engine", MaxAttempts: 3, BackoffBase: time.Millisecond, MaxBackoff: 2 * time.Millisecond}
}

func get(url string) func(context.Context) (*http.Request, error) {
	return func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	}
}

func TestDo(t *testing.T) {
	var calls atomic.Int32
	statuses := []int{http.StatusRequestTimeout, http.StatusBadGateway, http.StatusOK}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(statuses[calls.Add(1)-1])
		io.WriteString(w, "answer")
	}))
	defer srv.Close()

	res, err := retryhttp.Do(t.Context(), nil, policy(), get(srv.URL))
	if err != nil || res.StatusCode != http.StatusOK || string(res.Body) != "answer" || calls.Load() != 3 {
		t.Fatalf("res %+v err %v after %d calls", res, err, calls.Load())
	}

	// A refusal comes back at once, for the adapter to judge.
	calls.Store(0)
	statuses = []int{http.StatusUnprocessableEntity}
	res, err = retryhttp.Do(t.Context(), nil, policy(), get(srv.URL))
	if err != nil || res.StatusCode != http.StatusUnprocessableEntity || calls.Load() != 1 {
		t.Errorf("res %+v err %v after %d calls", res, err, calls.Load())
	}
	if got := retryhttp.Refusal(res); got != "422 Unprocessable Entity: answer" {
		t.Errorf("Refusal = %q", got)
	}
}

func TestDoGivesUp(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, strings.Repeat("x", 1000))
	}))
	defer srv.Close()
	p := policy()
	p.MaxAttempts = 1
	_, err := retryhttp.Do(t.Context(), nil, p, get(srv.URL))
	var ue *retryhttp.UnavailableError
	if !errors.As(err, &ue) || !errors.Is(err, domain.ErrUnavailable) || ue.StatusCode != 500 {
		t.Fatalf("err = %v", err)
	}
	if want := "test engine unavailable after 1 attempt: 500 Internal Server Error: " + strings.Repeat("x", 200); err.Error() != want {
		t.Errorf("message %q", err)
	}
}

func TestDoStopsOnBuildErrorsAndHugeAnswers(t *testing.T) {
	boom := errors.New("cannot open the audio")
	_, err := retryhttp.Do(t.Context(), nil, policy(), func(context.Context) (*http.Request, error) { return nil, boom })
	if !errors.Is(err, boom) || errors.Is(err, domain.ErrUnavailable) {
		t.Errorf("err = %v", err)
	}

	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.WriteString(w, strings.Repeat("y", 2048))
	}))
	defer srv.Close()
	p := policy()
	p.MaxBody = 1024
	_, err = retryhttp.Do(t.Context(), nil, p, get(srv.URL))
	if err == nil || !strings.Contains(err.Error(), "more than 1024 bytes") || calls.Load() != 1 {
		t.Errorf("err = %v after %d calls", err, calls.Load())
	}
}

func TestEndpointKeepsTheQuery(t *testing.T) {
	got, err := retryhttp.Endpoint("asr", "https://r.openai.azure.com/openai/deployments/w/?api-version=2024-06-01", "/audio/transcriptions", "")
	if err != nil || got != "https://r.openai.azure.com/openai/deployments/w/audio/transcriptions?api-version=2024-06-01" {
		t.Errorf("%q %v", got, err)
	}
	if _, err := retryhttp.Endpoint("asr", "https://x/v1#frag", "/audio/transcriptions", ""); err == nil {
		t.Error("a fragment was accepted")
	}
}

func TestKeyHeader(t *testing.T) {
	c := retryhttp.NewClient("http://x/a", "k1", nil, policy())
	req, _ := c.NewRequest(t.Context(), "application/json", nil)
	if req.Header.Get("Authorization") != "Bearer k1" || req.Header.Get("api-key") != "" {
		t.Errorf("bearer: %v", req.Header)
	}
	c.KeyHeader = "api-key"
	req, _ = c.NewRequest(t.Context(), "application/json", nil)
	if req.Header.Get("Authorization") != "" || req.Header.Get("api-key") != "k1" {
		t.Errorf("api-key: %v", req.Header)
	}
	// A 413 is handed back for the caller to cut the piece smaller.
	if retryhttp.Retryable(http.StatusRequestEntityTooLarge) {
		t.Error("413 retried as it is")
	}
}

// A transport error quotes the address without its query.
func TestTransportErrorsHideTheQuery(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close()
	p := policy()
	p.MaxAttempts = 1
	_, err := retryhttp.Do(t.Context(), nil, p, get(addr+"/v1/audio/transcriptions?api-version=1&key=secret"))
	if err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), `Get "`+addr+`/v1/audio/transcriptions": `) {
		t.Errorf("err %v", err)
	}
}
