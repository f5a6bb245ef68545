package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/adapters/blob"
	"github.com/hyscribe/hyscribe/adapters/httpapi/openapicheck"
	"github.com/hyscribe/hyscribe/adapters/metrics"
	"github.com/hyscribe/hyscribe/adapters/sqlite"
	"github.com/hyscribe/hyscribe/adapters/webhook"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// testClock is a ports.Clock the test moves by hand.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

func (c *testClock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

// syncBuffer collects log output from concurrent handlers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// store is what the tests need of the store: the ports the use cases take.
type store interface {
	ports.JobStore
	ports.AccountStore
	ports.ChecklistStore
	ports.RateCounter
	ports.IdempotencyStore
	ports.JobDeleter
	ports.JobLister
	ports.JobPager
	ports.DeliveryStore
	ports.AnalysisStore
	ports.ReviewStore
}

type options struct {
	cfg       Config
	maxUpload int64
	ready     func() bool
	readiness func(context.Context) error
	wrapStore func(store) store // to inject failures
}

// openStore opens the real SQLite store in dir.
func openStore(t *testing.T, dir string) store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(dir, "hyscribe.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// env is one running service: the real fiber app on a loopback listener,
// the real SQLite store and disk blob store in a temporary directory, the
// real use cases, and a clock the test controls.
type env struct {
	t      *testing.T
	base   string
	app    *fiber.App
	store  store
	blobs  *blob.Disk
	clock  *testClock
	reg    *metrics.Registry
	logs   *syncBuffer
	client *http.Client
	ready  atomic.Bool
}

// start is 12:00:45.2 on a fixed day: 14.8 s before the next rate window.
var start = time.Date(2025, 3, 1, 12, 0, 45, 200_000_000, time.UTC)

func newEnv(t *testing.T, opts ...func(*options)) *env {
	t.Helper()
	o := options{}
	for _, f := range opts {
		f(&o)
	}
	ctx := context.Background()
	dir := t.TempDir()
	st := openStore(t, dir)
	if o.wrapStore != nil {
		st = o.wrapStore(st)
	}
	blobs, err := blob.NewDisk(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &env{
		t: t, base: "http://" + ln.Addr().String(), store: st, blobs: blobs,
		clock: &testClock{now: start}, reg: metrics.NewRegistry(), logs: &syncBuffer{},
	}
	e.ready.Store(true)
	ready := o.ready
	if ready == nil {
		ready = e.ready.Load
	}
	signer := blob.NewSigner(e.base, []byte("test secret, 32 bytes long......"))
	e.app = New(o.cfg, Deps{
		App: app.Application{
			Commands: app.Commands{
				RateLimit:     app.NewRateLimit(st, e.clock),
				CreateJob:     app.NewCreateJob(st, st, signer, e.clock, 0),
				ReceiveUpload: app.NewReceiveUpload(st, blobs, signer, e.clock, o.maxUpload),
				DeleteJob:     app.NewDeleteJob(st, blobs, e.clock, nil),
				Resend:        app.NewResend(st, st, st, webhook.NewSender(webhook.Config{AllowPrivate: true}), e.clock, app.NewRateLimit(st, e.clock)),
			},
			Queries: app.Queries{
				Authenticate: app.NewAuthenticate(st, e.clock),
				GetJob:       app.NewGetJob(st, st, st, st, st, st),
				ExportJob:    app.NewExportJob(st),

				ListJobs: app.NewListJobs(st, st, st, st, st),
			},
		},
		Ready:     ready,
		Readiness: o.readiness,
		Metrics:   e.reg,
		Logger:    slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	served := make(chan error, 1)
	go func() { served <- e.app.Listener(ln) }()
	e.client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	t.Cleanup(func() {
		e.client.CloseIdleConnections()
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := e.app.ShutdownWithContext(sctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		_ = blobs.Close()
	})
	return e
}

// account creates an account and returns its API key.
func (e *env) account(plan domain.Plan) (domain.Account, string) {
	e.t.Helper()
	a, key, err := app.NewCreateAccount(e.store, e.clock).Handle(context.Background(), "Acme "+string(plan), plan, 3600)
	if err != nil {
		e.t.Fatal(err)
	}
	return a, key
}

// response is what a test looks at.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", r.body, err)
	}
	return m
}

// errorBody checks that r is an error answer of the given status and code
// and returns its message.
func (r response) wantError(t *testing.T, status int, code string) string {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
	var b struct {
		Error *string `json:"error"`
		Code  *string `json:"code"`
	}
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil || b.Error == nil || b.Code == nil || *b.Error == "" {
		t.Fatalf("error body %q is not {\"error\",\"code\"}: %v", r.body, err)
	}
	if *b.Code != code {
		t.Fatalf("code %q, want %q (error %q)", *b.Code, code, *b.Error)
	}
	return *b.Error
}

type header = map[string]string

// do sends one request and checks the answer against the OpenAPI document
// and the headers every answer carries.
func (e *env) do(method, path string, h header, body io.Reader) response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.base+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range h {
		if k == "Content-Length" {
			fmt.Sscan(v, &req.ContentLength)
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := e.client.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	r := response{status: res.StatusCode, header: res.Header, body: b}
	checkContract(e.t, method, path, r)
	return r
}

func bearer(key string) header { return header{"Authorization": "Bearer " + key} }

func (e *env) create(key string, body string) response {
	e.t.Helper()
	h := bearer(key)
	h["Content-Type"] = "application/json"
	return e.do("POST", "/api/createTranscription", h, strings.NewReader(body))
}

func (e *env) poll(key, docID string) response {
	e.t.Helper()
	return e.do("GET", "/api/getTranscription?docId="+docID, bearer(key), nil)
}

// newJob creates a job and returns its docId and upload path (relative to base).
func (e *env) newJob(key string) (string, string) {
	e.t.Helper()
	r := e.create(key, `{"type":"single_voice"}`)
	if r.status != 200 {
		e.t.Fatalf("create: %d %s", r.status, r.body)
	}
	m := r.json(e.t)
	id, _ := m["docId"].(string)
	u, _ := m["uploadUrl"].(string)
	if !strings.HasPrefix(u, e.base+"/upload/"+id+"?") {
		e.t.Fatalf("uploadUrl %q is not under %s/upload/%s", u, e.base, id)
	}
	return id, strings.TrimPrefix(u, e.base)
}

// openAPI is the embedded document, parsed once.
var openAPI = sync.OnceValue(func() map[string]any {
	var m map[string]any
	if err := json.Unmarshal(openAPIDocument, &m); err != nil {
		panic(err)
	}
	return m
})

// quotedParam is a "{name}" path parameter after regexp.QuoteMeta.
var quotedParam = regexp.MustCompile(`\\\{[^/]+?\\\}`)

// operationsAt finds the OpenAPI path item that serves path.
func operationsAt(path string) (string, map[string]any) {
	for tmpl, item := range openAPI()["paths"].(map[string]any) {
		re := "^" + quotedParam.ReplaceAllString(regexp.QuoteMeta(tmpl), `[^/]+`) + "$"
		if regexp.MustCompile(re).MatchString(path) {
			return tmpl, item.(map[string]any)
		}
	}
	return "", nil
}

// checkContract verifies that an answer is one the OpenAPI document
// describes: a documented status for the operation, the error schema for
// every error, and the headers every answer carries.
func checkContract(t *testing.T, method, rawPath string, r response) {
	t.Helper()
	path, _, _ := strings.Cut(rawPath, "?")
	if got := r.header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("%s %s: X-Content-Type-Options %q", method, path, got)
	}
	if got := r.header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("%s %s: Cache-Control %q", method, path, got)
	}
	if r.status >= 400 && method != "HEAD" {
		var b map[string]any
		if err := json.Unmarshal(r.body, &b); err != nil {
			t.Errorf("%s %s: %d body %q is not JSON", method, path, r.status, r.body)
		} else if msg, _ := b["error"].(string); msg == "" || b["code"] == nil {
			t.Errorf("%s %s: %d body %q lacks error/code", method, path, r.status, r.body)
		}
		if ct := r.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s %s: error Content-Type %q", method, path, ct)
		}
	}
	tmpl, item := operationsAt(path)
	if item == nil {
		if r.status != 404 {
			t.Errorf("%s %s: undocumented path answered %d", method, path, r.status)
		}
		return
	}
	op, ok := item[strings.ToLower(method)].(map[string]any)
	if !ok {
		if r.status != 405 || r.header.Get("Allow") == "" {
			t.Errorf("%s %s: undocumented method answered %d (Allow %q)", method, path, r.status, r.header.Get("Allow"))
		}
		return
	}
	responses := op["responses"].(map[string]any)
	if _, ok := responses[fmt.Sprint(r.status)]; !ok {
		t.Errorf("%s %s: status %d is not documented for %s", method, path, r.status, tmpl)
		return
	}
	if method != "HEAD" {
		if err := schemas().Response(method, tmpl, r.status, r.header.Get("Content-Type"), r.body); err != nil {
			t.Errorf("%s %s: %v", method, path, err)
		}
	}
}

// schemas validates bodies against the embedded document's schemas.
var schemas = sync.OnceValue(func() *openapicheck.Doc {
	d, err := openapicheck.New(openAPIDocument)
	if err != nil {
		panic(err)
	}
	return d
})
