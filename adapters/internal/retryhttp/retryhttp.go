// Package retryhttp sends requests to the outside engines hyscribe depends on
// (the speech engine, the chat model) with a per-attempt timeout and bounded
// retries. Network errors and 408, 429 and 5xx answers are retried with
// exponential backoff and jitter, honouring Retry-After; every other answer is
// handed back for the adapter to judge. The adapters share it so both engines
// fail alike: after the last attempt, with an error that wraps
// domain.ErrUnavailable and says what the engine last answered.
package retryhttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/retry"
)

// Policy says how hard to try.
type Policy struct {
	Service       string        // names the engine in messages: "speech engine"
	MaxAttempts   int           // attempts in all, at least 1
	BackoffBase   time.Duration // wait before the first retry; doubles each retry
	MaxBackoff    time.Duration // cap on one backoff; 0: no cap
	MaxRetryAfter time.Duration // cap on a Retry-After the engine asks for; 0: no cap
	Timeout       time.Duration // per attempt, reading the answer included; 0: none
	MaxBody       int64         // largest answer read, in bytes; 0: DefaultMaxBody
	Logger        *slog.Logger  // retries are logged at warn level when set
}

// DefaultMaxBody bounds an engine's answer when Policy.MaxBody is 0.
const DefaultMaxBody = 32 << 20

// SnippetBytes is how much of an error answer's body a message quotes.
const SnippetBytes = 200

// Response is an engine's answer, read whole.
type Response struct {
	StatusCode int
	Status     string // "400 Bad Request"
	Header     http.Header
	Body       []byte
}

// UnavailableError is returned when every attempt failed transiently.
// errors.Is(err, domain.ErrUnavailable) holds for it.
type UnavailableError struct {
	Service    string
	Attempts   int
	StatusCode int    // of the last answer; 0 if the last attempt got none
	Last       string // what the last attempt got, for people
	Err        error  // the last attempt's transport error, if any
}

func (e *UnavailableError) Error() string {
	unit := "attempts"
	if e.Attempts == 1 {
		unit = "attempt"
	}
	return fmt.Sprintf("%s unavailable after %d %s: %s", e.Service, e.Attempts, unit, e.Last)
}

// Unwrap exposes domain.ErrUnavailable and the last transport error.
func (e *UnavailableError) Unwrap() []error {
	if e.Err == nil {
		return []error{domain.ErrUnavailable}
	}
	return []error{domain.ErrUnavailable, e.Err}
}

// Retryable reports whether an answer with this status may succeed if sent again.
func Retryable(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500
}

// stopError ends the attempts at once: it is not the engine's fault.
type stopError struct{ err error }

func (e stopError) Error() string { return e.err.Error() }

// Do sends the request newRequest builds, building a fresh one for every
// attempt (a request body can be read once). It returns the first answer that
// is not worth retrying, successful or not; an *UnavailableError once
// MaxAttempts attempts failed transiently; or, unretried, the error of
// newRequest, of an oversized answer, or of ctx ending.
func Do(ctx context.Context, hc *http.Client, p Policy, newRequest func(context.Context) (*http.Request, error)) (*Response, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	attempts := max(p.MaxAttempts, 1)
	waits := retry.Policy(p.BackoffBase, p.MaxBackoff)
	for attempt := 1; ; attempt++ {
		res, err := p.attempt(ctx, hc, newRequest)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: request abandoned: %w", p.Service, ctx.Err())
		}
		var stop stopError
		if errors.As(err, &stop) {
			return nil, stop.err
		}
		if err == nil && !Retryable(res.StatusCode) {
			return res, nil
		}

		failed := &UnavailableError{Service: p.Service, Attempts: attempt}
		var delay time.Duration
		if err != nil {
			failed.Err, failed.Last = err, describe(err, p.Timeout)
		} else {
			failed.StatusCode, failed.Last = res.StatusCode, res.Status
			if s := Snippet(res.Body, SnippetBytes); s != "" {
				failed.Last += ": " + s
			}
		}
		if attempt >= attempts {
			return nil, failed
		}
		delay = waits.NextBackOff()
		if err == nil {
			if ra, ok := RetryAfter(res.Header.Get("Retry-After"), time.Now()); ok {
				delay = ra
				if p.MaxRetryAfter > 0 {
					delay = min(delay, p.MaxRetryAfter)
				}
			}
		}
		if p.Logger != nil {
			p.Logger.LogAttrs(ctx, slog.LevelWarn, p.Service+" attempt failed; retrying",
				slog.Int("attempt", attempt), slog.Int("max_attempts", attempts),
				slog.String("error", failed.Last), slog.Duration("retry_in", delay))
		}
		if err := sleep(ctx, delay); err != nil {
			return nil, fmt.Errorf("%s: request abandoned: %w", p.Service, err)
		}
	}
}

func (p Policy) attempt(ctx context.Context, hc *http.Client, newRequest func(context.Context) (*http.Request, error)) (*Response, error) {
	actx, cancel := ctx, context.CancelFunc(func() {})
	if p.Timeout > 0 {
		actx, cancel = context.WithTimeout(ctx, p.Timeout)
	}
	defer cancel()
	req, err := newRequest(actx)
	if err != nil {
		return nil, stopError{err}
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	limit := p.MaxBody
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	if Retryable(res.StatusCode) {
		limit = min(limit, 64<<10) // only quoted, never parsed
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if int64(len(body)) > limit {
		if Retryable(res.StatusCode) {
			body = body[:limit]
		} else {
			return nil, stopError{fmt.Errorf("%s answered %s with more than %d bytes", p.Service, res.Status, limit)}
		}
	}
	return &Response{StatusCode: res.StatusCode, Status: res.Status, Header: res.Header, Body: body}, nil
}

// describe words a transport error; a per-attempt timeout reads better as
// such than as "context deadline exceeded".
// The address it quotes loses its query: a base URL may carry one
// (Azure's api-version, or a proxy's key), and the message reaches the
// job's error and the log.
func describe(err error, timeout time.Duration) string {
	if timeout > 0 && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %s", timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		addr := ue.URL
		if u, perr := url.Parse(addr); perr == nil {
			u.RawQuery, u.User = "", nil
			addr = u.String()
		}
		return fmt.Sprintf("%s %q: %v", ue.Op, addr, ue.Err)
	}
	return err.Error()
}

// Backoff is the wait before retry number n (1 for the first retry):
// BackoffBase doubled n-1 times, capped at MaxBackoff, of which the upper half
// is random so that clients failing together do not retry together — the
// project's one policy, internal/retry.
func (p Policy) Backoff(n int) time.Duration {
	return retry.Wait(p.BackoffBase, p.MaxBackoff, n)
}

// RetryAfter reads a Retry-After header value: delay seconds or an HTTP date.
// A date in the past means now. ok is false for an absent or unreadable value.
func RetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		const maxSecs = int64(time.Duration(1<<63-1) / time.Second)
		return time.Duration(min(secs, maxSecs)) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

func sleep(ctx context.Context, d time.Duration) error {
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

// Snippet quotes at most n bytes of an engine's body for a message: whole
// runes only, whitespace runs folded into one space.
func Snippet(body []byte, n int) string {
	if len(body) > n {
		body = body[:n]
		for len(body) > 0 {
			r, size := utf8.DecodeLastRune(body)
			if r != utf8.RuneError || size > 1 {
				break
			}
			body = body[:len(body)-1] // drop a rune cut in half
		}
	}
	s := strings.ToValidUTF8(string(body), "�")
	return strings.Join(strings.Fields(s), " ")
}

// ErrorMessage finds the human message in an engine's JSON error body, in the
// shapes OpenAI-compatible servers use: {"error": {"message": …}},
// {"error": "…"}, {"detail": "…"} or FastAPI's {"detail": [{"msg": …}]}, and
// {"message": "…"}. It returns "" when there is none.
func ErrorMessage(body []byte) string {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Detail  json.RawMessage `json:"detail"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(e.Error, &s) == nil && s != "" {
		return Snippet([]byte(s), 500)
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(e.Error, &obj) == nil && obj.Message != "" {
		return Snippet([]byte(obj.Message), 500)
	}
	if json.Unmarshal(e.Detail, &s) == nil && s != "" {
		return Snippet([]byte(s), 500)
	}
	var list []struct {
		Msg string `json:"msg"`
	}
	if json.Unmarshal(e.Detail, &list) == nil {
		var msgs []string
		for _, d := range list {
			if d.Msg != "" {
				msgs = append(msgs, d.Msg)
			}
		}
		if len(msgs) > 0 {
			return Snippet([]byte(strings.Join(msgs, "; ")), 500)
		}
	}
	return Snippet([]byte(e.Message), 500)
}

// Refusal is the readable message for an answer that is not worth retrying,
// e.g. "400 Bad Request: Invalid file format." — the engine's own message
// when it gave one, else the start of its body.
func Refusal(res *Response) string {
	msg := ErrorMessage(res.Body)
	if msg == "" {
		msg = Snippet(res.Body, SnippetBytes)
	}
	if msg == "" {
		return res.Status
	}
	return res.Status + ": " + msg
}
