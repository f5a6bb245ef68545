package httpapi

import (
	"context"
	_ "embed"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/adapters/forwarded"
	"github.com/hyscribe/hyscribe/adapters/metrics"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// Config tunes the HTTP adapter. Zero values take the defaults noted.
type Config struct {
	// MetricsElsewhere leaves /metrics off this server: the process serves
	// it on its operators' listener (HYSCRIBE_ADMIN_ADDR) instead.
	MetricsElsewhere bool
	// PollLimit is getTranscription's requests per minute per API key
	// (default domain.PollRateLimit, the spec's 60).
	PollLimit int
	// CreateLimit is createTranscription's requests per minute per API key
	// (default domain.DefaultCreateRateLimit).
	CreateLimit int
	// ListLimit and ResendLimit are listTranscriptions's and resendEvent's
	// requests per minute per API key, each its own counter (default
	// domain.PollRateLimit, the spec's 60, for both).
	ListLimit, ResendLimit int
	// ReadTimeout bounds reading one request, headers and body, on every
	// route but the upload (default 1 minute).
	ReadTimeout time.Duration
	// UploadTimeout bounds reading one upload PUT, whose body may be
	// hundreds of megabytes (default 1 hour, the life of an upload address).
	UploadTimeout time.Duration
	// WriteTimeout bounds writing one response (default 1 minute).
	WriteTimeout time.Duration
	// IdleTimeout closes keep-alive connections idle this long (default 2 minutes).
	IdleTimeout time.Duration
	// RequestTimeout is every request's deadline, web pages included
	// (default DefaultRequestTimeout): work still waiting on the store
	// then is abandoned and the answer is 503 with Retry-After. An upload
	// PUT is bounded by UploadTimeout and its rate floor instead; only its
	// store work, before and after the body, gets RequestTimeout.
	RequestTimeout time.Duration

	// An upload keeps its UploadTimeout only while it makes progress: at
	// least UploadMinRate bytes a second (default 4 KiB), measured over
	// every UploadRateWindow (default 30 s); a stalled one is cut off at the
	// end of the window. UploadsPerClient bounds the uploads one client
	// address has in progress at once (default 16). See docs/security.md.
	UploadMinRate    int64
	UploadRateWindow time.Duration
	UploadsPerClient int

	// HeavyPerKey bounds the listTranscriptions and exportTranscription
	// requests one API key has in progress at once in this process
	// (default 4): each builds an answer of up to a few hundred KiB, and a
	// key's further ones wait for a 429 instead of multiplying that.
	HeavyPerKey int

	// TrustedProxies are the proxies (HYSCRIBE_TRUSTED_PROXIES) whose
	// X-Forwarded-For names the client every per-address limit counts, on
	// this server and the web application under it; none: the peer.
	TrustedProxies forwarded.Proxies

	// PublicURL is the service's address (HYSCRIBE_PUBLIC_URL), named as
	// the server of the OpenAPI document served; "" keeps the document's
	// own.
	PublicURL string
}

func (c Config) withDefaults() Config {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	if c.PollLimit <= 0 {
		c.PollLimit = domain.PollRateLimit
	}
	if c.CreateLimit <= 0 {
		c.CreateLimit = domain.DefaultCreateRateLimit
	}
	if c.ListLimit <= 0 {
		c.ListLimit = domain.PollRateLimit
	}
	if c.ResendLimit <= 0 {
		c.ResendLimit = domain.PollRateLimit
	}
	def(&c.ReadTimeout, time.Minute)
	def(&c.UploadTimeout, domain.UploadWindow)
	def(&c.WriteTimeout, time.Minute)
	def(&c.IdleTimeout, 2*time.Minute)
	def(&c.RequestTimeout, DefaultRequestTimeout)
	def(&c.UploadRateWindow, 30*time.Second)
	if c.UploadMinRate <= 0 {
		c.UploadMinRate = 4 << 10
	}
	if c.HeavyPerKey <= 0 {
		c.HeavyPerKey = 4
	}
	if c.UploadsPerClient <= 0 {
		c.UploadsPerClient = 16
	}
	return c
}

// DefaultRequestTimeout is Config.RequestTimeout's default: far above a
// healthy request (milliseconds), well below a client's patience.
const DefaultRequestTimeout = 10 * time.Second

// Deps are the use cases and services the adapter calls.
type Deps struct {
	// App holds the use cases. Required: Commands.RateLimit, CreateJob,
	// ReceiveUpload, DeleteJob and Resend, Queries.Authenticate, GetJob,
	// ExportJob and ListJobs; Queries.Poll answers getTranscription when set, else
	// RateLimit and GetJob do, one after the other.
	App app.Application
	// Ready reports whether the process can serve (store open, consumers
	// running); nil means always ready.
	Ready func() bool
	// Readiness reports whether the process can do its work now: its store
	// and Kafka answer (GET /readyz, the orchestrator's readiness probe;
	// /healthz stays the liveness probe). Nil: Ready decides alone.
	Readiness func(ctx context.Context) error
	// Metrics receives the HTTP metrics and is served on /metrics with
	// whatever other components registered; nil: a private registry.
	Metrics *metrics.Registry
	// Web registers the web application's routes under /app (nil: none).
	Web func(fiber.Router)
	// Logger gets one line per request and the full chain of every 5xx;
	// nil: no logging.
	Logger *slog.Logger
}

// Paths served. The upload path lives on the "upload host", which in the
// embedded deployment is this same server.
const (
	pathCreate  = "/api/createTranscription"
	pathPoll    = "/api/getTranscription"
	pathUpload  = "/upload/:docId"
	pathHealth  = "/healthz"
	pathReady   = "/readyz"
	pathMetrics = "/metrics"
	pathOpenAPI = "/api/openapi.json"
	pathExport  = "/api/exportTranscription"
	pathDelete  = "/api/deleteTranscription"
	pathList    = "/api/listTranscriptions"
	pathResend  = "/api/resendEvent"
	// pathWeb is the web application's prefix; its pages are one metrics
	// route.
	pathWeb = "/app"

	uploadPrefix = "/upload/"
)

// Idempotent creation (IETF httpapi draft): the request's key, and the
// mark on an answer that repeats the first one.
const (
	headerIdempotencyKey     = "Idempotency-Key"
	headerIdempotentReplayed = "Idempotent-Replayed"
)

// Rate-limit scopes: each has its own counter per API key.
const (
	scopePoll   = "poll"
	scopeCreate = "create"
	scopeExport = "export"
	scopeDelete = "delete"
	scopeList   = "list"
	scopeResend = "resend"
)

//go:embed openapi.json
var openAPIDocument []byte

type server struct {
	cfg       Config
	openapi   []byte // openAPIDocument with the server's address
	deps      Deps
	commands  app.Commands // deps.App's
	queries   app.Queries
	table     []route
	log       *slog.Logger
	requests  *metrics.CounterVec
	durations *metrics.HistogramVec
	// refused, uploads and heavy are the screening of screen.go: heavy
	// holds each API key's lists and exports in progress.
	refused refusals
	uploads slots
	heavy   slots
}

// route is one served operation; Name is its OpenAPI operationId. Key,
// when set, is the middleware that authenticates the API key first
// (keyed): the operations of the authenticated group.
type route struct {
	method, path, name string
	key                fiber.Handler
	handler            fiber.Handler
}

func (s *server) routes() []route {
	return []route{
		{fiber.MethodPost, pathCreate, "createTranscription", s.keyed(scopeCreate, s.cfg.CreateLimit), s.createTranscription},
		// Poll counts inside its use case (app.Poll), with the job read.
		{fiber.MethodGet, pathPoll, "getTranscription", s.keyed("", 0), s.getTranscription},
		{fiber.MethodPut, pathUpload, "uploadAudio", nil, s.uploadAudio},
		{fiber.MethodGet, pathHealth, "healthz", nil, s.healthz},
		{fiber.MethodGet, pathReady, "readyz", nil, s.readyz},
		{fiber.MethodGet, pathMetrics, "metrics", nil, s.serveMetrics},
		{fiber.MethodGet, pathOpenAPI, "openapi", nil, s.serveOpenAPI},
		{fiber.MethodGet, pathExport, "exportTranscription", s.keyed(scopeExport, s.cfg.PollLimit), s.exportTranscription},
		{fiber.MethodPost, pathDelete, "deleteTranscription", s.keyed(scopeDelete, s.cfg.CreateLimit), s.deleteTranscription},
		{fiber.MethodGet, pathList, "listTranscriptions", s.keyed(scopeList, s.cfg.ListLimit), s.listTranscriptions},
		{fiber.MethodPost, pathResend, "resendEvent", s.keyed(scopeResend, s.cfg.ResendLimit), s.resendEvent},
	}
}

// keyed is the authenticated group's middleware: it resolves the
// request's API key (401 without a valid one), counts the request against
// the key's limit in scope ("": the handler's use case counts), and puts
// the principal where principalOf finds it. Its errors are answered by
// observe, as a handler's are.
func (s *server) keyed(scope string, limit int) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, err := s.queries.Authenticate.Handle(c.UserContext(), c.Get(fiber.HeaderAuthorization))
		if err != nil {
			return err
		}
		if scope != "" {
			if err := s.commands.RateLimit.Allow(c.UserContext(), scope, p.Key.ID, limit); err != nil {
				return err
			}
		}
		c.Locals(principalKey, p)
		return c.Next()
	}
}

type principalKeyType struct{}

// principalKey holds the authenticated group's app.Principal.
var principalKey principalKeyType

// principalOf is the principal keyed let through.
func principalOf(c *fiber.Ctx) app.Principal {
	p, _ := c.Locals(principalKey).(app.Principal)
	return p
}

// New builds the HTTP application. Serve it with app.Listener or app.Listen
// and stop it with app.ShutdownWithContext. It panics if a use case is
// missing, like the app constructors do.
func New(cfg Config, deps Deps) *fiber.App {
	cmd, q := deps.App.Commands, deps.App.Queries
	for name, missing := range map[string]bool{
		"Authenticate": q.Authenticate == nil, "RateLimit": cmd.RateLimit == nil, "CreateJob": cmd.CreateJob == nil,
		"GetJob": q.GetJob == nil, "ReceiveUpload": cmd.ReceiveUpload == nil, "ExportJob": q.ExportJob == nil, "DeleteJob": cmd.DeleteJob == nil,
		"Resend": cmd.Resend == nil, "ListJobs": q.ListJobs == nil,
	} {
		if missing {
			panic("httpapi.New: Deps.App's " + name + " is required")
		}
	}
	if q.Poll == nil {
		deps.App.Queries.Poll = app.NewPoll(cmd.RateLimit, q.GetJob, nil)
	}
	if deps.Metrics == nil {
		deps.Metrics = metrics.NewRegistry()
	}
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	s := &server{cfg: cfg.withDefaults(), deps: deps, commands: deps.App.Commands, queries: deps.App.Queries, log: deps.Logger}
	s.table = s.routes()
	if cfg.MetricsElsewhere {
		s.table = slices.DeleteFunc(s.table, func(r route) bool { return r.path == pathMetrics })
	}
	s.openapi = servedOpenAPI(openAPIDocument, s.cfg.PublicURL)
	s.requests = deps.Metrics.Counter("http_requests_total",
		"HTTP requests served, by route pattern, method and status code.", "route", "method", "code")
	s.durations = deps.Metrics.Histogram("http_request_duration_seconds",
		"Time to serve an HTTP request, by route pattern (upload times include receiving the body).", nil, "route")

	a := fiber.New(fiber.Config{
		DisableStartupMessage: true,
		// Upload bodies are streamed to the blob store instead of being
		// buffered whole in memory (fasthttp's default). With streaming,
		// fasthttp never refuses a body as too large itself: every limit
		// is ours and answered in JSON. BodyLimit is therefore left at its
		// default; it only decides how much fasthttp prefetches (8 KiB).
		StreamRequestBody: true,
		// fasthttp would otherwise parse a multipart body before the
		// handler runs, swallowing an upload sent with that content type.
		DisablePreParseMultipartForm: true,
		// Strings from the request (docId, headers) outlive fasthttp's
		// buffers when the app layer keeps them; copy them.
		Immutable: true,
		// Serve exactly the documented paths: no case folding, no
		// optional trailing slash.
		CaseSensitive: true,
		StrictRouting: true,
		// An empty 200 (upload) has no body, so no content type either.
		DisableDefaultContentType: true,
		// Answers are JSON for programs, never embedded in HTML: & < >
		// stay as they are, so an uploadUrl pasted from a terminal works
		// (encoding/json would write its & as \u0026).
		JSONEncoder:  marshalUnescaped,
		ReadTimeout:  s.cfg.ReadTimeout,
		WriteTimeout: s.cfg.WriteTimeout,
		IdleTimeout:  s.cfg.IdleTimeout,
		// Reached only for requests fasthttp cannot parse (bad request
		// line, oversized headers, read timeouts); handler errors are
		// answered in observe.
		ErrorHandler: func(c *fiber.Ctx, err error) error {
			s.writeError(c, err)
			return nil
		},
	})
	a.Use(forwarded.Middleware(cfg.TrustedProxies), s.observe)
	for _, r := range s.table {
		hs := []fiber.Handler{s.label(r.path)}
		if r.key != nil {
			hs = append(hs, r.key)
		}
		a.Add(r.method, r.path, append(hs, r.handler)...).Name(r.name)
		// Registered after the operation, so it only catches other methods,
		// HEAD included (app.Add, unlike app.Get, does not add HEAD).
		a.All(r.path, s.label(r.path), s.methodNotAllowed(r.path, r.method))
	}
	if deps.Web != nil {
		deps.Web(a.Group(pathWeb, s.label(pathWeb)))
	}
	a.Use(s.noRoute)

	srv := a.Server()
	srv.HeaderReceived = s.headerReceived
	srv.Handler = s.guardConn(srv.Handler)
	return a
}

// allowFor is the Allow header of a path served here, "" for an unknown path.
func (s *server) allowFor(path string) string {
	for _, r := range s.table {
		if r.path == path {
			return r.method
		}
	}
	if id, ok := strings.CutPrefix(path, uploadPrefix); ok && id != "" && !strings.Contains(id, "/") {
		return fiber.MethodPut
	}
	return ""
}

// routeLabel is the metrics label of a path: its route pattern, or
// "unmatched", so that scanners cannot explode the label set.
func (s *server) routeLabel(path string) string {
	if s.allowFor(path) == "" {
		return "unmatched"
	}
	if strings.HasPrefix(path, uploadPrefix) {
		return pathUpload
	}
	return path
}

// methodLabel keeps the metrics' method label to the standard methods.
func methodLabel(m string) string {
	if knownMethod(m) {
		return m
	}
	return "OTHER"
}

// knownMethod reports whether fiber routes m. fiber answers any other
// method itself with a plain-text 400, before any middleware could run.
func knownMethod(m string) bool {
	switch m {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodPost, fiber.MethodPut, fiber.MethodDelete,
		fiber.MethodConnect, fiber.MethodOptions, fiber.MethodTrace, fiber.MethodPatch:
		return true
	}
	return false
}
