package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// outageService is an API on Postgres through a proxy the test controls,
// with a short request deadline, an account with a key, a job waiting for
// its upload, and a person signed in to the web application.
type outageService struct {
	proxy   *pgtest.Proxy
	api     string // host:port
	key     string
	docID   string
	upload  string // the job's upload address
	browser *http.Client
}

// requestDeadline is the services' HYSCRIBE_REQUEST_TIMEOUT here: short,
// so that the outage outlasts it many times over.
const requestDeadline = 2 * time.Second

func startOutageService(t *testing.T) *outageService {
	t.Helper()
	direct := pgtest.URL(t) // fails without Postgres, through testenv
	proxy, viaProxy := pgtest.NewProxy(t, direct)
	vars := map[string]string{
		"DATABASE_URL":                 viaProxy,
		"HYSCRIBE_DATA_DIR":            t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":    "1",
		"HYSCRIBE_REQUEST_TIMEOUT":     requestDeadline.String(),
		"HYSCRIBE_KEY_CACHE_TTL":       "0", // every request asks the store
		"HYSCRIBE_SHUTDOWN_GRACE":      "500ms",
		"HYSCRIBE_LOG_LEVEL":           "warn",
	}
	direct_ := env(map[string]string{"DATABASE_URL": direct})
	created := runCLI(t, direct_, "account", "create", "--name", "outage", "--plan", "business", "--seconds", "3600")
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("a long enough password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runCLI(t, direct_, "user", "create", "--account", created["accountId"].(string), "--email", "lead@example.am", "--password-file", pw, "--role", "owner")
	svc := startService(t, vars, cli.RoleAPI, nil)
	o := &outageService{proxy: proxy, api: svc.HTTPAddr(), key: created["apiKey"].(string), browser: browserless(t)}

	var job struct{ DocID, UploadURL string }
	call(t, "POST", "http://"+o.api+"/api/createTranscription", o.key, strings.NewReader(`{"type":"single_voice"}`), 200, &job)
	o.docID, o.upload = job.DocID, job.UploadURL
	base := "http://" + o.api
	page := body(t, get(t, o.browser, base+"/app/signin"))
	res := postForm(t, o.browser, base+"/app/signin", url.Values{"_csrf": {csrfOf(t, page)}, "email": {"lead@example.am"}, "password": {"a long enough password"}})
	if res.Request.URL.Path != "/app/recordings" {
		t.Fatalf("sign-in ended at %s (%d)", res.Request.URL, res.StatusCode)
	}
	res.Body.Close()
	return o
}

// outageRequest is one request sent during an outage and what came back.
type outageRequest struct {
	name    string
	req     func() *http.Request
	web     bool // a page of the web application, not the JSON API
	status  int
	retry   string
	body    string
	err     error
	elapsed time.Duration
}

func (o *outageService) requests(t *testing.T) []*outageRequest {
	base := "http://" + o.api
	mono, err := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	api := func(method, u, body string) func() *http.Request {
		return func() *http.Request {
			req, _ := http.NewRequest(method, u, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+o.key)
			req.Header.Set("Content-Type", "application/json")
			return req
		}
	}
	var out []*outageRequest
	for i := range 6 {
		out = append(out, &outageRequest{name: fmt.Sprintf("poll %d", i), req: api("GET", base+"/api/getTranscription?docId="+o.docID, "")})
	}
	for i := range 3 {
		out = append(out, &outageRequest{name: fmt.Sprintf("create %d", i), req: api("POST", base+"/api/createTranscription", `{"type":"single_voice"}`)})
	}
	out = append(out,
		&outageRequest{name: "list", req: api("GET", base+"/api/listTranscriptions", "")},
		&outageRequest{name: "upload", req: func() *http.Request {
			req, _ := http.NewRequest("PUT", o.upload, bytes.NewReader(mono))
			return req
		}},
	)
	for _, p := range []string{"/app/recordings", "/app/settings", "/app/usage"} {
		out = append(out, &outageRequest{name: "web " + p, web: true, req: func() *http.Request {
			req, _ := http.NewRequest("GET", base+p, nil)
			return req
		}})
	}
	return out
}

// sendAll sends every request at once and waits for their answers, each
// within bound.
func (o *outageService) sendAll(t *testing.T, reqs []*outageRequest, bound time.Duration) {
	t.Helper()
	var wg sync.WaitGroup
	for _, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Timeout: bound, Jar: o.browser.Jar}
			start := time.Now()
			res, err := c.Do(r.req())
			r.elapsed = time.Since(start)
			if err != nil {
				r.err = err
				return
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			r.status, r.retry, r.body = res.StatusCode, res.Header.Get("Retry-After"), string(b)
		}()
	}
	wg.Wait()
}

// check asserts the outage's answer: 503 with a Retry-After of whole
// seconds, and a body that says the service is unavailable in words for
// people and names nothing inside (JSON with error for the API, the
// Armenian page for the web application, whose visitor has no language
// cookie).
func (r *outageRequest) check(t *testing.T, wantWords string) {
	t.Helper()
	if r.err != nil {
		t.Errorf("%s: no answer (%v after %s)", r.name, r.err, r.elapsed.Round(time.Millisecond))
		return
	}
	if r.status != http.StatusServiceUnavailable {
		t.Errorf("%s: %d %.300s, want 503", r.name, r.status, r.body)
		return
	}
	if n, err := strconv.Atoi(r.retry); err != nil || n < 1 {
		t.Errorf("%s: Retry-After %q, want whole seconds", r.name, r.retry)
	}
	for _, leak := range []string{"postgres", "127.0.0.1", "deadline", "context"} {
		if strings.Contains(strings.ToLower(r.body), leak) {
			t.Errorf("%s: the answer names %q: %.300s", r.name, leak, r.body)
		}
	}
	if r.web {
		if !strings.Contains(r.body, wantWords) {
			t.Errorf("%s: the page does not say %q: %.500s", r.name, wantWords, r.body)
		}
		return
	}
	var e struct{ Error, Code string }
	if err := json.Unmarshal([]byte(r.body), &e); err != nil || !strings.Contains(e.Error, "unavailable") || e.Code != "unavailable" {
		t.Errorf("%s: body %.300s, want JSON whose error says the service is unavailable", r.name, r.body)
	}
}

// TestSilentPostgresAnswers503WithinTheDeadline holds every byte between
// the service and Postgres, as a stalled database or a half-open network
// path does, for longer than any request may take. Every request, API and
// web, is answered 503 with Retry-After once its deadline
// (HYSCRIBE_REQUEST_TIMEOUT) has passed, the upload too; nothing waits
// for the database to speak again. Once it does, the same requests work.
func TestSilentPostgresAnswers503WithinTheDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service on Postgres")
	}
	o := startOutageService(t)
	reqs := o.requests(t)
	o.proxy.Hold()
	released := false
	defer func() {
		if !released {
			o.proxy.Release()
		}
	}()
	// A generous bound, well past the deadline, well short of the hold:
	// a request still waiting for Postgres when it passes got no answer.
	// Not a speed claim; the hold lasts until every answer is in.
	o.sendAll(t, reqs, requestDeadline+8*time.Second)
	slowest := time.Duration(0)
	for _, r := range reqs {
		r.check(t, "կարճ ժամանակով անհասանելի")
		slowest = max(slowest, r.elapsed)
	}
	t.Logf("%d requests answered during the hold, the slowest after %s (deadline %s)", len(reqs), slowest.Round(time.Millisecond), requestDeadline)
	o.proxy.Release()
	released = true

	waitFor(t, "the API to answer once Postgres speaks again", 30*time.Second, func() (bool, string) {
		a := poll(t, o.api, o.key, o.docID)
		return a.status == http.StatusOK, a.raw
	})
	if res := get(t, o.browser, "http://"+o.api+"/app/recordings"); res.StatusCode != http.StatusOK {
		t.Fatalf("the history page after the hold: %d", res.StatusCode)
	}
}

// TestWebAppDuringPostgresOutageAnswers503 stops Postgres (the proxy
// refuses and drops every connection, as a restart does) under a person
// signed in to the web application: their pages are a 503 page with
// Retry-After that says, in the page's language, that the service is
// briefly unavailable — not a 500 — and they come back with the database.
func TestWebAppDuringPostgresOutageAnswers503(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service on Postgres")
	}
	o := startOutageService(t)
	base := "http://" + o.api
	o.proxy.Cut()
	defer o.proxy.Restore()
	for _, lang := range []struct{ cookie, words string }{
		{"", "կարճ ժամանակով անհասանելի"},
		{"en", "briefly unavailable"},
	} {
		for _, p := range []string{"/app/recordings", "/app/settings", "/app/recordings/" + o.docID} {
			req, _ := http.NewRequest("GET", base+p, nil)
			if lang.cookie != "" {
				req.AddCookie(&http.Cookie{Name: "hyscribe_lang", Value: lang.cookie})
			}
			c := &http.Client{Timeout: requestDeadline + 8*time.Second, Jar: o.browser.Jar}
			res, err := c.Do(req)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			r := &outageRequest{name: p + " (" + lang.cookie + ")", web: true, status: res.StatusCode, retry: res.Header.Get("Retry-After"), body: body(t, res)}
			r.check(t, lang.words)
			if lang.cookie == "en" && strings.Contains(r.body, "Ծառայությունը") || lang.cookie == "" && strings.Contains(r.body, "briefly") {
				t.Errorf("%s: the page mixes languages: %.500s", r.name, r.body)
			}
		}
	}
	o.proxy.Restore()
	waitFor(t, "the history page once Postgres is back", 30*time.Second, func() (bool, string) {
		res := get(t, o.browser, base+"/app/recordings")
		res.Body.Close()
		return res.StatusCode == http.StatusOK, res.Status
	})
}
