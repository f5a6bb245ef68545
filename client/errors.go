package client

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Error is an answer of the service other than 2xx: its status, and the
// body's human message and machine code. errors.Is matches it against the
// sentinel of its status (ErrNotFound, ErrRateLimited, …).
type Error struct {
	StatusCode int
	Code       string        // machine code, e.g. "not_found"
	Message    string        // the body's "error"
	RetryAfter time.Duration // from Retry-After (429, 503), else 0
}

func (e *Error) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("hyscribe: HTTP %d", e.StatusCode)
	}
	return fmt.Sprintf("hyscribe: HTTP %d: %s", e.StatusCode, e.Message)
}

// Is reports whether target is the sentinel of e's status.
func (e *Error) Is(target error) bool {
	s, ok := target.(*statusError)
	if !ok {
		return false
	}
	if s.status == http.StatusInternalServerError {
		return e.StatusCode >= 500 && e.StatusCode != http.StatusServiceUnavailable
	}
	return s.status == e.StatusCode
}

type statusError struct {
	status int
	text   string
}

func (s *statusError) Error() string { return s.text }

// Sentinels, one per status the service answers.
// Test with errors.Is(err, client.ErrNotFound); errors.As(err, &*Error)
// gives the message and Retry-After.
var (
	ErrBadRequest       error = &statusError{http.StatusBadRequest, "hyscribe: bad request"}              // 400: missing docId, invalid body
	ErrUnauthorized     error = &statusError{http.StatusUnauthorized, "hyscribe: unauthorized"}           // 401: missing or invalid API key
	ErrForbidden        error = &statusError{http.StatusForbidden, "hyscribe: forbidden"}                 // 403: not on the Business plan; bad upload address
	ErrNotFound         error = &statusError{http.StatusNotFound, "hyscribe: not found"}                  // 404: no such job for this key
	ErrMethodNotAllowed error = &statusError{http.StatusMethodNotAllowed, "hyscribe: method not allowed"} // 405
	ErrConflict         error = &statusError{http.StatusConflict, "hyscribe: conflict"}                   // 409: not transcribed yet; already uploaded
	ErrTooLarge         error = &statusError{http.StatusRequestEntityTooLarge, "hyscribe: too large"}     // 413
	ErrUnprocessable    error = &statusError{http.StatusUnprocessableEntity, "hyscribe: unprocessable"}   // 422: Idempotency-Key reused with another body
	ErrRateLimited      error = &statusError{http.StatusTooManyRequests, "hyscribe: rate limited"}        // 429: see Error.RetryAfter
	ErrServer           error = &statusError{http.StatusInternalServerError, "hyscribe: server error"}    // 500 and other 5xx but 503
	ErrUnavailable      error = &statusError{http.StatusServiceUnavailable, "hyscribe: unavailable"}      // 503
)

// apiError reads a non-2xx answer into an *Error.
func apiError(res *http.Response) error {
	e := &Error{StatusCode: res.StatusCode, RetryAfter: retryAfter(res.Header)}
	var body struct {
		Error string `json:"error"`
		Code  string `json:"code"`
	}
	b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if json.Unmarshal(b, &body) == nil {
		e.Message, e.Code = body.Error, body.Code
	}
	return e
}
