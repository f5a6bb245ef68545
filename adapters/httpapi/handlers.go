package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/adapters/forwarded"
	"github.com/hyscribe/hyscribe/adapters/metrics"
	"github.com/hyscribe/hyscribe/adapters/redact"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

type routeKeyType struct{}

// routeKey holds the matched route pattern for metrics and logs.
var routeKey routeKeyType

// observe wraps every routed request: it turns a panic into an error,
// answers any error with its JSON body, sets the headers every response
// carries, and records the request's metrics and log line. Errors are
// answered here rather than by fiber's ErrorHandler so that the status is
// known when it is recorded.
func (s *server) observe(c *fiber.Ctx) error {
	start := time.Now()
	// Answers are per caller and per moment: never cached, never sniffed.
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderCacheControl, "no-store")

	cancel := s.deadline(c)
	if err := s.refused.take(&c.Request().Header); err != nil {
		s.writeError(c, err) // screened out when its headers arrived (screen.go)
	} else if err := nextRecovered(c); err != nil {
		s.writeError(c, pastDeadline(c.UserContext(), err))
	}
	cancel()

	route, _ := c.Locals(routeKey).(string)
	if route == "" {
		route = "unmatched"
	}
	status := c.Response().StatusCode()
	elapsed := time.Since(start)
	s.record(route, methodLabel(c.Method()), status, elapsed)
	// The path only: query strings carry upload signatures, and headers
	// carry API keys; neither is ever logged. One-time tokens in the path
	// (/app/invite/…, /app/reset/…) are redacted here whatever the logger.
	s.log.LogAttrs(c.UserContext(), slog.LevelInfo, "http request",
		slog.String("method", c.Method()), slog.String("route", route), slog.String("path", clip(redact.Secrets(c.Path()), 200)),
		slog.Int("status", status), slog.Duration("duration", elapsed))
	return nil
}

// deadline gives the request its deadline (Config.RequestTimeout) through
// its user context, which every use case and store call receives. An
// upload's body may take up to UploadTimeout: its context carries the
// deadline for its store work only (app.WithStoreTimeout).
func (s *server) deadline(c *fiber.Ctx) context.CancelFunc {
	if c.Method() == fiber.MethodPut && strings.HasPrefix(c.Path(), uploadPrefix) {
		c.SetUserContext(app.WithStoreTimeout(c.UserContext(), s.cfg.RequestTimeout))
		return func() {}
	}
	ctx, cancel := context.WithTimeout(c.UserContext(), s.cfg.RequestTimeout)
	c.SetUserContext(ctx)
	return cancel
}

// pastDeadline makes the failure of a request whose deadline passed (or of
// store work that ran out of its own) a domain.ErrUnavailable, whatever
// the layer below made of the interruption: the answer is then 503 with
// Retry-After, and err stays in the chain for the log.
func pastDeadline(ctx context.Context, err error) error {
	if errors.Is(err, domain.ErrUnavailable) || errors.Is(err, domain.ErrValidation) {
		return err
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: past the deadline: %w", domain.ErrUnavailable, err)
	}
	return err
}

func (s *server) record(route, method string, status int, elapsed time.Duration) {
	s.requests.With(route, method, strconv.Itoa(status)).Inc()
	s.durations.With(route).Observe(elapsed.Seconds())
}

// nextRecovered runs the rest of the chain; a panic becomes an error (a 500
// for the client, the value and stack for the log) and the server goes on.
func nextRecovered(c *fiber.Ctx) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic serving %s %s: %v\n%s", c.Method(), c.Path(), v, debug.Stack())
		}
	}()
	return c.Next()
}

// label marks the route pattern a request matched.
func (s *server) label(path string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Locals(routeKey, path)
		return c.Next()
	}
}

// methodNotAllowed answers every method but the served one on a path.
func (s *server) methodNotAllowed(path, allow string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderAllow, allow)
		return methodError(c.Method(), path, allow)
	}
}

// noRoute answers everything no route matched.
func (s *server) noRoute(c *fiber.Ctx) error {
	return &httpError{status: fiber.StatusNotFound, code: "not_found", msg: noRouteMessage(c.Method(), c.Path())}
}

// createTranscription is POST /api/createTranscription (spec §4.1).
func (s *server) createTranscription(c *fiber.Ctx) error {
	ctx := c.UserContext()
	p := principalOf(c)
	// Refuse other plans before reading what may be a large body.
	a := app.KeyActor(p)
	if err := s.commands.CreateJob.Allowed(a); err != nil {
		return err
	}
	// Content-Type is not checked: the body is parsed as JSON whatever it
	// says, and a body that is not JSON is a 400 that says so (docs/decisions.md, API
	// has no 415).
	body, err := readBody(c, domain.MaxCreateBody)
	if err != nil {
		return err
	}
	key, err := domain.ParseIdempotencyKey(c.Get(headerIdempotencyKey))
	if err != nil {
		return err
	}
	req, err := domain.ParseCreateRequest(body)
	if err != nil {
		return err
	}
	res, replayed, err := s.commands.CreateJob.Handle(ctx, a, app.CreateCommand{Request: req, IdempotencyKey: key})
	if err != nil {
		return err
	}
	if replayed {
		c.Set(headerIdempotentReplayed, "true")
	}
	return c.Status(fiber.StatusOK).JSON(res)
}

// readBody reads the whole request body, refusing more than limit bytes
// without reading them when Content-Length already says so.
func readBody(c *fiber.Ctx, limit int64) ([]byte, error) {
	tooLarge := fmt.Errorf("request body is larger than the %d KiB limit: %w", limit>>10, domain.ErrTooLarge)
	if int64(c.Request().Header.ContentLength()) > limit {
		return nil, tooLarge
	}
	b, err := io.ReadAll(io.LimitReader(bodyOf(c), limit+1))
	if err != nil {
		return nil, domain.Invalid("unreadable_body", "the request body could not be read: the connection failed or timed out")
	}
	if int64(len(b)) > limit {
		return nil, tooLarge
	}
	return b, nil
}

// getTranscription is GET /api/getTranscription (spec §4.3).
func (s *server) getTranscription(c *fiber.Ctx) error {
	ctx := c.UserContext()
	p := principalOf(c)
	view, err := s.queries.Poll.Handle(ctx, scopePoll, p, c.Query("docId"), s.cfg.PollLimit)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusOK).JSON(view)
}

// uploadAudio is PUT {uploadUrl} (spec §4.2, docs/decisions.md, Upload): the body is
// streamed to the blob store, never held in memory.
func (s *server) uploadAudio(c *fiber.Ctx) error {
	expires, signature, err := parseUploadQuery(c.Query("expires"), c.Query("signature"))
	if err != nil {
		return err
	}
	ip := forwarded.ClientIP(c)
	if !s.uploads.acquire(ip, s.cfg.UploadsPerClient) {
		bodyOf(c).abandon() // answer now and close, rather than wait for the body
		return tooManyUploads(c, s.cfg.UploadsPerClient)
	}
	defer s.uploads.release(ip)
	body := bodyOf(c)
	paced := newPacedBody(body, c.Context().Conn(), s.cfg.UploadRateWindow, s.cfg.UploadMinRate, s.cfg.UploadTimeout)
	err = s.commands.ReceiveUpload.Handle(c.UserContext(), app.UploadRequest{
		DocID: domain.DocID(c.Params("docId")), Expires: expires, Signature: signature,
		Body: paced, ContentLength: uploadLength(&c.Request().Header),
	})
	if err != nil && paced.err != nil {
		return domain.Invalid("upload_too_slow", "the upload fell below %d bytes a second over %s; PUT the file again", s.cfg.UploadMinRate, s.cfg.UploadRateWindow)
	}
	if err != nil && body.err != nil && !errors.Is(err, domain.ErrTooLarge) {
		// The client's side of the stream broke (closed early, stalled past
		// the deadline): not a server failure, and nothing was stored.
		return domain.Invalid("incomplete_upload", "the upload ended before all of its bytes arrived; PUT the file again")
	}
	if err != nil {
		return err
	}
	c.Status(fiber.StatusOK) // empty body
	return nil
}

// maxExpiresDigits bounds the expires parameter: unix seconds have 10
// digits until the year 2286.
const maxExpiresDigits = 12

// parseUploadQuery reads the expires and signature parameters of an upload
// address. Anything missing or garbled is domain.ErrForbidden: the address
// was not one we issued.
func parseUploadQuery(expires, signature string) (time.Time, string, error) {
	if expires == "" || len(expires) > maxExpiresDigits {
		return time.Time{}, "", fmt.Errorf("upload address has a missing or malformed expires parameter: %w", domain.ErrForbidden)
	}
	for i := 0; i < len(expires); i++ {
		if expires[i] < '0' || expires[i] > '9' {
			return time.Time{}, "", fmt.Errorf("upload address has a missing or malformed expires parameter: %w", domain.ErrForbidden)
		}
	}
	secs, _ := strconv.ParseInt(expires, 10, 64) // at most 12 digits: cannot overflow
	if len(signature) != 64 {
		return time.Time{}, "", fmt.Errorf("upload address has a missing or malformed signature: %w", domain.ErrForbidden)
	}
	for i := 0; i < len(signature); i++ {
		c := signature[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return time.Time{}, "", fmt.Errorf("upload address has a missing or malformed signature: %w", domain.ErrForbidden)
		}
	}
	return time.Unix(secs, 0), signature, nil
}

// healthz is GET /healthz (docs/architecture.md, Operating contract): 200 once ready.
func (s *server) healthz(c *fiber.Ctx) error {
	if s.deps.Ready != nil && !s.deps.Ready() {
		return &httpError{status: fiber.StatusServiceUnavailable, code: "not_ready", msg: "the service is starting or stopping and cannot serve yet"}
	}
	return c.JSON(fiber.Map{"status": "ok"})
}

// serveMetrics is GET /metrics in the Prometheus text format.
func (s *server) serveMetrics(c *fiber.Ctx) error {
	var buf bytes.Buffer
	if err := s.deps.Metrics.WriteText(&buf); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	c.Set(fiber.HeaderContentType, metrics.ContentType)
	return c.Send(buf.Bytes())
}

// serveOpenAPI is GET /api/openapi.json, the description of all of the above.
func (s *server) serveOpenAPI(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(s.openapi)
}
