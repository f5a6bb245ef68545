package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

func errorJSON(msg, code string) []byte {
	b, _ := json.Marshal(domain.ErrorBody{Error: msg, Code: code}) // two strings: cannot fail
	return b
}

// statusTable is the one place domain errors become HTTP statuses. The
// first entry the error matches (errors.Is) wins; validation errors are
// handled before it, with their own codes.
var statusTable = []struct {
	target error
	status int
	code   string
}{
	{domain.ErrUnauthorized, fiber.StatusUnauthorized, "unauthorized"},
	{domain.ErrForbidden, fiber.StatusForbidden, "forbidden"},
	{domain.ErrNotFound, fiber.StatusNotFound, "not_found"},
	{domain.ErrConflict, fiber.StatusConflict, "conflict"},
	{domain.ErrTooLarge, fiber.StatusRequestEntityTooLarge, "too_large"},
	{domain.ErrRateLimited, fiber.StatusTooManyRequests, "rate_limited"},
	{domain.ErrStorageFull, fiber.StatusServiceUnavailable, "storage_full"},
	{domain.ErrUnavailable, fiber.StatusServiceUnavailable, "unavailable"},
	{domain.ErrIdempotencyKeyReused, fiber.StatusUnprocessableEntity, "idempotency_key_reused"},
}

// Messages for answers whose error text is not for clients.
const (
	msgInternal    = "internal server error"
	msgUnavailable = "the service is temporarily unavailable; retry later"
	msgStorageFull = "the service is out of storage space; nothing was stored, retry later"
)

// httpError is an answer decided by this adapter itself (unknown route,
// wrong method, not ready), not by the app layer.
type httpError struct {
	status    int
	code, msg string
}

func (e *httpError) Error() string { return e.msg }

func methodError(method, path, allow string) *httpError {
	return &httpError{
		status: fiber.StatusMethodNotAllowed, code: "method_not_allowed",
		msg: fmt.Sprintf("method %s is not allowed on %s; use %s", clip(method, 20), clip(path, 200), allow),
	}
}

func noRouteMessage(method, path string) string {
	return fmt.Sprintf("no endpoint %s %s", clip(method, 20), clip(path, 200))
}

// clip bounds client-supplied text echoed in messages.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// classify turns an error into the status, code and message sent to the
// client. internal reports that the error's text must stay in the log.
func classify(err error) (status int, code, msg string, internal bool) {
	var (
		ve *domain.ValidationError
		he *httpError
		fe *fiber.Error
	)
	if errors.As(err, &fe) && ambiguousFraming(fe.Message) {
		err = errAmbiguousLength
	}
	switch {
	case errors.As(err, &ve):
		return fiber.StatusBadRequest, ve.Code, ve.Msg, false
	case errors.As(err, &he):
		return he.status, he.code, he.msg, false
	case errors.As(err, &fe):
		// fasthttp's own refusals (unparsable request, oversized headers,
		// read timeout). Their texts quote the raw request: use the
		// status's standard phrase instead.
		return fe.Code, codeForStatus(fe.Code), strings.ToLower(http.StatusText(fe.Code)), fe.Code >= 500
	}
	for _, e := range statusTable {
		if errors.Is(err, e.target) {
			if e.status == fiber.StatusServiceUnavailable {
				// Unavailability comes from deep inside (a driver, a
				// broker, a full disk); its text says nothing useful to a
				// client.
				if e.target == domain.ErrStorageFull {
					return e.status, e.code, msgStorageFull, true
				}
				return e.status, e.code, msgUnavailable, true
			}
			return e.status, e.code, humanMessage(err, e.target), false
		}
	}
	return fiber.StatusInternalServerError, "internal", msgInternal, true
}

// ambiguousFraming tells fasthttp's own refusals of a request with two
// lengths (it refuses any repeated Content-Length, and one beside a
// Transfer-Encoding, before headerReceived sees the headers) by their text.
func ambiguousFraming(msg string) bool {
	return strings.Contains(msg, "duplicate content-length") || strings.Contains(msg, "content-length and transfer-encoding conflict")
}

// humanMessage is the error's text without the sentinel's own words, which
// the app layer appends by wrapping: "no transcription with this docId: not
// found" → "no transcription with this docId".
func humanMessage(err, sentinel error) string {
	msg := strings.TrimSuffix(err.Error(), ": "+sentinel.Error())
	if msg == "" {
		return sentinel.Error()
	}
	return msg
}

func codeForStatus(status int) string {
	text := http.StatusText(status)
	if text == "" {
		return "http_" + strconv.Itoa(status)
	}
	return strings.ReplaceAll(strings.ToLower(strings.ReplaceAll(text, "-", " ")), " ", "_")
}

// writeError answers with err's status and JSON body, replacing whatever the
// handler had written, and logs what must not reach the client.
func (s *server) writeError(c *fiber.Ctx, err error) {
	status, code, msg, internal := classify(err)
	if internal {
		s.log.ErrorContext(c.UserContext(), "request failed",
			"method", c.Method(), "path", c.Path(), "status", status, "error", err.Error())
	}
	switch status {
	case fiber.StatusUnauthorized:
		c.Set(fiber.HeaderWWWAuthenticate, "Bearer")
	case fiber.StatusTooManyRequests:
		var rl *app.RateLimitError
		if errors.As(err, &rl) {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(rl.RetryAfter))
		}
	case fiber.StatusServiceUnavailable:
		if c.GetRespHeader(fiber.HeaderRetryAfter) == "" {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(domain.RetryAfterUnavailable))
		}
	}
	// Also set by observe; repeated for the answers to requests fasthttp
	// could not parse, which never reach it.
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	c.Response().SetBodyRaw(errorJSON(msg, code))
}
