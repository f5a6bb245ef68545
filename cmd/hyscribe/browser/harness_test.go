package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/servicetest"
)

// chromium finds the browser: HYSCRIBE_TEST_CHROMIUM (set by `make test`,
// which installs Debian's chromium; then a missing browser is a failure),
// else chromium on the PATH, else the test is skipped.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("HYSCRIBE_TEST_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("HYSCRIBE_TEST_CHROMIUM=%s: %v (make test installs Debian's chromium)", p, err)
		}
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium: set HYSCRIBE_TEST_CHROMIUM or run make test")
	return ""
}

// browser starts a headless Chromium with its own profile (so two browsers
// are two people) and returns a context to drive its first tab.
func browser(t *testing.T, path string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("autoplay-policy", "no-user-gesture-required"),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// Confirmation dialogs (revoke, archive) are accepted, as a person would.
	chromedp.ListenTarget(ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			go func() { _ = chromedp.Run(ctx, page.HandleJavaScriptDialog(true)) }()
		}
	})
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("start chromium %s: %v", path, err)
	}
	return ctx
}

// run runs browser actions with a deadline, failing the test with what
// was being done.
func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 45*time.Second)
	defer cancel()
	if err := chromedp.Run(c, actions...); err != nil {
		var loc, body string
		_ = chromedp.Run(ctx, chromedp.Location(&loc))
		_ = chromedp.Run(ctx, chromedp.Text("main", &body, chromedp.ByQuery, chromedp.AtLeast(0)))
		t.Fatalf("%s: %v\nat %s\n%s", what, err, loc, clip(body, 1500))
	}
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// screenshotDir is where a test saves its screenshots: a temporary
// directory removed after the test, unless HYSCRIBE_SCREENSHOTS names one to
// keep them in for a person to look at (`make test
// HYSCRIBE_SCREENSHOTS=$PWD/.artifacts/screenshots`; a relative path is
// taken from this package's directory).
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("HYSCRIBE_SCREENSHOTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots kept in %s", abs)
	return abs
}

func shoot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	var png []byte
	run(t, ctx, "screenshot "+name, chromedp.FullScreenshot(&png, 100))
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// service is the whole hyscribe (API, web application, every stage) on
// loopback, with its own data dir, embedded Kafka and SQLite.
type service struct {
	svc    *cli.Service
	base   string
	getenv func(string) string
}

func startService(t *testing.T, vars map[string]string) *service {
	t.Helper()
	defaults := map[string]string{
		"HYSCRIBE_DATA_DIR":              t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":             "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR":   "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":      "2",
		"HYSCRIBE_WEBHOOK_ALLOW_PRIVATE": "true",
		"HYSCRIBE_SHUTDOWN_GRACE":        "500ms",
		"HYSCRIBE_STAGE_BACKOFF":         "50ms",
		"HYSCRIBE_LOG_LEVEL":             "warn",
	}
	for k, v := range vars {
		defaults[k] = v
	}
	getenv := func(k string) string { return defaults[k] }
	svc := servicetest.Start(t, getenv, cli.RoleAPI|cli.RoleWorker, cli.AllStages)
	return &service{svc: svc, base: "http://" + svc.HTTPAddr(), getenv: getenv}
}

// cli runs an operator command against the service's store.
func (s *service) cli(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var out, errb bytes.Buffer
	if err := cli.Run(context.Background(), args, s.getenv, &out, &errb); err != nil {
		t.Fatalf("hyscribe %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatalf("hyscribe %s printed %q: %v", strings.Join(args, " "), out.String(), err)
	}
	return m
}

// api calls the public API as a customer's system would.
func api(t *testing.T, method, url, key string, body []byte) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, bytes.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return res.StatusCode, m
}

// hook is a customer's webhook receiver: it records every request.
type hook struct {
	mu   sync.Mutex
	reqs []hookRequest
}

type hookRequest struct {
	ID    string // webhook-id
	Event string
	DocID string
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		EventType string `json:"event_type"`
		DocID     string `json:"docId"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	h.mu.Lock()
	h.reqs = append(h.reqs, hookRequest{ID: r.Header.Get("webhook-id"), Event: body.EventType, DocID: body.DocID})
	h.mu.Unlock()
}

func (h *hook) got() []hookRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookRequest(nil), h.reqs...)
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	servicetest.Eventually(t, what, d, func() (bool, string) { return cond(), "" })
}

type runtimeEvaluateParams = runtime.EvaluateParams

// signUp signs up a new organisation in the browser, saving a screenshot
// of the empty form as shot (none when shot is ""), and returns the
// account's ID from Settings, where sign-up lands.
func signUp(t *testing.T, b context.Context, s *service, shots, shot, org, email string) string {
	t.Helper()
	run(t, b, "open sign-up",
		chromedp.Navigate(s.base+"/app/signup"),
		chromedp.WaitVisible("#org", chromedp.ByID),
	)
	if shot != "" {
		shoot(t, b, shots, shot)
	}
	var accountID string
	run(t, b, "sign up",
		chromedp.SendKeys("#org", org, chromedp.ByID),
		chromedp.SendKeys("#email", email, chromedp.ByID),
		chromedp.SendKeys("#password", "a long enough password", chromedp.ByID),
		chromedp.Click("#signup", chromedp.ByID),
		chromedp.WaitVisible("#account-id", chromedp.ByID),
		chromedp.Text("#account-id", &accountID, chromedp.ByID),
	)
	return accountID
}
