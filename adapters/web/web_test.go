package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/adapters/analysis"
	"github.com/hyscribe/hyscribe/adapters/blob"
	"github.com/hyscribe/hyscribe/adapters/httpapi"
	"github.com/hyscribe/hyscribe/adapters/mp3"
	"github.com/hyscribe/hyscribe/adapters/password"
	"github.com/hyscribe/hyscribe/adapters/sqlite"
	"github.com/hyscribe/hyscribe/adapters/web"
	"github.com/hyscribe/hyscribe/adapters/webhook"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// site is the web application on a real SQLite store and disk blobs,
// served by fiber and spoken to over HTTP through app.Test.
type site struct {
	t     testing.TB
	app   *fiber.App
	store siteStore
	blobs *blob.Disk
	// uc is the application the pages run on; hasher is its.
	uc     app.Application
	hasher ports.PasswordHasher
	// analyze refreshes the store's planner statistics (Postgres), nil
	// when the store keeps none.
	analyze func()
}

// siteStore is what the web application needs of a store adapter (SQLite,
// or Postgres in the benchmarks).
type siteStore = app.WebStore

func newSite(t testing.TB, cfg web.Config) *site {
	t.Helper()
	// Cheap hashing keeps the tests fast; the parameters are in the hash.
	return newSiteHashing(t, cfg, password.Hasher{Params: password.Params{Memory: 1024, Time: 1, Threads: 1}})
}

func newSiteHashing(t testing.TB, cfg web.Config, hasher ports.PasswordHasher) *site {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newSiteWith(t, cfg, st, hasher)
}

// newSiteOn is the site on another store (Postgres, in the benchmarks).
func newSiteOn(t testing.TB, cfg web.Config, st siteStore) *site {
	t.Helper()
	return newSiteWith(t, cfg, st, password.Hasher{Params: password.Params{Memory: 1024, Time: 1, Threads: 1}})
}

func newSiteWith(t testing.TB, cfg web.Config, st siteStore, hasher ports.PasswordHasher) *site {
	t.Helper()
	blobs, err := blob.NewDisk(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	clock := ports.SystemClock{}
	sender := webhook.NewSender(webhook.Config{Timeout: 2 * time.Second, AllowPrivate: true})
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://example.test"
	}
	uc := siteApplication(st, blobs, hasher, blob.NewSigner(cfg.PublicURL, []byte("test secret")), sender, clock)
	w := web.New(cfg, web.Deps{App: uc, Logger: slog.New(slog.NewTextHandler(tWriter{t}, nil)),
		CheckAudio: mp3.CheckHead, OpenAPI: httpapi.OpenAPI()})
	a := fiber.New(fiber.Config{DisableStartupMessage: true})
	w.Register(a.Group(web.Prefix))
	return &site{t: t, app: a, store: st, blobs: blobs, uc: uc, hasher: hasher}
}

// siteApplication is the web application's use cases on st, wired as
// cmd/hyscribe wires them (app.NewWebApplication).
func siteApplication(st siteStore, blobs ports.BlobStore, hasher ports.PasswordHasher, signer ports.UploadSigner, sender ports.WebhookSender, clock ports.Clock) app.Application {
	return app.NewWebApplication(app.WebPorts{
		Store:     st,
		Blobs:     blobs,
		Hasher:    hasher,
		Signer:    signer,
		Sender:    sender,
		Analyzer:  analysis.New(),
		Clock:     clock,
		UploadTTL: time.Hour,
	})
}

type resp struct {
	code   int
	header http.Header
	body   string
}

// do sends one request; cookies are given as a map.
func (s *site) do(method, path string, form url.Values, cookies map[string]string, headers ...string) resp {
	s.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	// No wall-clock limit (-1): a request's verdict must not depend on the
	// machine's load (30 argon2id sign-ins at once took over 10 s on a
	// loaded 2-core machine); a request that never ends is go test's
	// -timeout's to catch.
	res, err := s.app.Test(req, -1)
	if err != nil {
		s.t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	return resp{code: res.StatusCode, header: res.Header, body: string(b)}
}

// signUp makes an account and returns its session cookies and CSRF token.
func (s *site) signUp(email string) (map[string]string, string, domain.AccountID) {
	s.t.Helper()
	in, err := s.uc.Commands.SignUp.Handle(context.Background(), app.SignUpRequest{AccountName: "Org " + email, Email: email, Password: "a long enough password"})
	if err != nil {
		s.t.Fatal(err)
	}
	return map[string]string{"hyscribe_session": in.Token}, in.Session.CSRF, in.User.AccountID
}

// job saves a transcribed job of account with title and audio.
func (s *site) job(account domain.AccountID, title string, audio []byte, metadata string) domain.DocID {
	s.t.Helper()
	return s.jobOf(account, domain.CreateRequest{Type: domain.TypeSingleVoice, Metadata: json.RawMessage(metadata)}, title, audio)
}

// jobOf saves a transcribed job of account created by req.
func (s *site) jobOf(account domain.AccountID, req domain.CreateRequest, title string, audio []byte) domain.DocID {
	s.t.Helper()
	ctx := context.Background()
	now := time.Now()
	id := domain.DocID(app.NewID())
	j, evs := domain.NewJob(id, account, req, now, time.Hour)
	if err := s.store.CreateJob(ctx, j, evs); err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.blobs.Put(ctx, string(id), bytes.NewReader(audio), 1<<30); err != nil {
		s.t.Fatal(err)
	}
	err := s.store.UpdateJob(ctx, id, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
		var all []domain.Event
		step := func(evs []domain.Event, err error) {
			if err != nil {
				s.t.Fatal(err)
			}
			all = append(all, evs...)
		}
		step(j.ReceiveUpload(now, string(id), int64(len(audio))))
		a.BalanceMs = 1e9
		step(j.Measure(now, domain.AudioInfo{Format: "mp3", Duration: 12, Channels: 1, SampleRate: 16000}, a, time.Hour))
		step(j.StartConverting(now))
		step(j.Recognize(now, title+" text", []domain.Segment{{Start: 0, End: 2, Text: title + " text"}, {Start: 2.5, End: 4, Text: "second line"}}))
		step(j.Complete(now, title, "summary of "+title, "hy-AM"))
		return all, nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return id
}

func TestPagesNeedASession(t *testing.T) {
	s := newSite(t, web.Config{SignUp: true})
	for _, p := range []string{"/app/recordings", "/app/recordings/x", "/app/settings", "/app/checklists", "/app/analytics"} {
		r := s.do("GET", p, nil, nil)
		if r.code != 303 || !strings.HasPrefix(r.header.Get("Location"), "/app/signin?next=") {
			t.Errorf("GET %s signed out: %d %s, want 303 to sign-in", p, r.code, r.header.Get("Location"))
		}
	}
	if r := s.do("GET", "/app/recordings/status?id=x", nil, nil); r.code != 401 || !strings.Contains(r.body, `"error"`) {
		t.Errorf("live status signed out: %d %s", r.code, r.body)
	}
}

func TestAnotherAccountsRecordingIsTheSame404AsAMissingOne(t *testing.T) {
	s := newSite(t, web.Config{})
	_, _, owner := s.signUp("owner@example.am")
	doc := s.job(owner, "Գաղտնի զանգ", []byte("ID3 audio bytes"), `{}`)
	other, _, _ := s.signUp("other@example.am")
	mine, _, _ := s.signUp("owner2@example.am")
	_ = mine
	a := s.do("GET", "/app/recordings/"+string(doc), nil, other)
	b := s.do("GET", "/app/recordings/does-not-exist", nil, other)
	same := strings.ReplaceAll(a.body, string(doc), "X") == strings.ReplaceAll(b.body, "does-not-exist", "X")
	if a.code != 404 || b.code != 404 || !same || strings.Contains(a.body, "Գաղտնի") {
		t.Fatalf("other account: %d; missing: %d; same body: %v", a.code, b.code, same)
	}
	for _, p := range []string{"/audio"} {
		if r := s.do("GET", "/app/recordings/"+string(doc)+p, nil, other); r.code != 404 {
			t.Errorf("other account's %s: %d", p, r.code)
		}
	}
	if r := s.do("GET", "/app/recordings/status?id="+string(doc), nil, other); strings.Contains(r.body, string(doc)) {
		t.Errorf("live status leaks another account's job: %s", r.body)
	}
}

func TestAudioAnswersRanges(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("a@example.am")
	audio, err := os.ReadFile("../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	doc := s.job(acct, "t", audio, `{}`)
	path := "/app/recordings/" + string(doc) + "/audio"
	n := len(audio)
	whole := s.do("GET", path, nil, ck)
	if whole.code != 200 || whole.body != string(audio) || whole.header.Get("Accept-Ranges") != "bytes" || whole.header.Get("Content-Type") != "audio/mpeg" {
		t.Fatalf("whole file: %d, %d bytes, headers %v", whole.code, len(whole.body), whole.header)
	}
	for _, tc := range []struct {
		rng        string
		start, end int
	}{{"bytes=100-199", 100, 199}, {"bytes=0-", 0, n - 1}, {fmt.Sprintf("bytes=%d-", n-10), n - 10, n - 1}, {"bytes=-25", n - 25, n - 1}} {
		r := s.do("GET", path, nil, ck, "Range", tc.rng)
		want := fmt.Sprintf("bytes %d-%d/%d", tc.start, tc.end, n)
		if r.code != 206 || r.header.Get("Content-Range") != want || r.body != string(audio[tc.start:tc.end+1]) {
			t.Errorf("Range %s: %d %q, %d bytes; want 206 %q", tc.rng, r.code, r.header.Get("Content-Range"), len(r.body), want)
		}
	}
	r := s.do("GET", path, nil, ck, "Range", fmt.Sprintf("bytes=%d-", n+5))
	if r.code != 416 || r.header.Get("Content-Range") != fmt.Sprintf("bytes */%d", n) || !strings.Contains(r.body, `"error"`) {
		t.Errorf("unsatisfiable range: %d %q %s", r.code, r.header.Get("Content-Range"), r.body)
	}
}

func TestFormsNeedTheirCSRFTokenAndOrigin(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, csrf, acct := s.signUp("a@example.am")
	keys := func() int {
		ks, _ := s.store.ListAPIKeys(context.Background(), acct)
		return len(ks)
	}
	for name, tc := range map[string]struct {
		form    url.Values
		headers []string
	}{
		"no token":    {url.Values{}, nil},
		"wrong token": {url.Values{"_csrf": {"x" + csrf}}, nil},
		"other site":  {url.Values{"_csrf": {csrf}}, []string{"Origin", "https://evil.example"}},
	} {
		r := s.do("POST", "/app/settings/keys", tc.form, ck, tc.headers...)
		if r.code != 403 || keys() != 0 {
			t.Errorf("%s: %d, %d keys; want 403 and none", name, r.code, keys())
		}
	}
	r := s.do("POST", "/app/settings/keys", url.Values{"_csrf": {csrf}}, ck, "Origin", "http://example.com")
	if r.code != 303 || keys() != 1 {
		t.Fatalf("with the token: %d, %d keys", r.code, keys())
	}
	// Signed-out forms: the token must match the cookie.
	if r := s.do("POST", "/app/signin", url.Values{"email": {"a@example.am"}, "password": {"a long enough password"}}, nil); r.code != 403 {
		t.Errorf("sign-in without a token: %d", r.code)
	}
}

func TestSignInIsRateLimitedAndCookiesAreLocked(t *testing.T) {
	s := newSite(t, web.Config{SecureCookies: true})
	s.signUp("a@example.am")
	anon := map[string]string{"hyscribe_csrf": strings.Repeat("t", 40)}
	try := func(pw string) resp {
		return s.do("POST", "/app/signin", url.Values{"_csrf": {anon["hyscribe_csrf"]}, "email": {"A@Example.am"}, "password": {pw}}, anon)
	}
	ok := try("a long enough password")
	cookie := ok.header.Get("Set-Cookie")
	if ok.code != 303 || !strings.Contains(cookie, "__Host-hyscribe_session=") || !strings.Contains(cookie, "HttpOnly") ||
		!strings.Contains(cookie, "secure") || !strings.Contains(strings.ToLower(cookie), "samesite=lax") || !strings.Contains(cookie, "path=/") {
		t.Fatalf("sign-in: %d, Set-Cookie %q", ok.code, ok.header.Values("Set-Cookie"))
	}
	for i := 2; i <= 10; i++ {
		if r := try("wrong password!"); r.code != 401 {
			t.Fatalf("attempt %d: %d", i, r.code)
		}
	}
	if r := try("a long enough password"); r.code != 429 || r.header.Get("Retry-After") == "" {
		t.Fatalf("11th attempt in a minute: %d, want 429 even with the right password", r.code)
	}
}

func TestCustomerTextIsEscapedAndScriptsAreOnlyOurs(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("a@example.am")
	doc := s.job(acct, `<script>alert(1)</script>`, []byte("x"), `{"n":"\"><img src=x onerror=alert(2)>"}`)
	for _, p := range []string{"/app/recordings", "/app/recordings/" + string(doc), "/app/recordings?q=" + url.QueryEscape(`"><script>`)} {
		r := s.do("GET", p, nil, ck)
		if r.code != 200 {
			t.Fatalf("GET %s: %d", p, r.code)
		}
		if strings.Contains(r.body, "<script>alert") || strings.Contains(r.body, "<img src=x") || strings.Contains(r.body, `"><script>`) {
			t.Errorf("%s puts customer text into HTML unescaped", p)
		}
		csp := r.header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || r.header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: CSP %q, X-Frame-Options %q", p, csp, r.header.Get("X-Frame-Options"))
		}
	}
}

func TestHistoryFiltersSearchesAndPages(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("a@example.am")
	for i := 0; i < 27; i++ {
		s.job(acct, fmt.Sprintf("Զանգ %02d", i), []byte("x"), `{}`)
	}
	s.job(acct, "Առաքման ՀԱՐՑ", []byte("x"), `{}`)
	rows := func(body string) int { return strings.Count(body, "<tr data-live-id=") }
	first := s.do("GET", "/app/recordings", nil, ck)
	if rows(first.body) != 25 || !strings.Contains(first.body, "rel=\"next\"") {
		t.Fatalf("first page: %d rows", rows(first.body))
	}
	// Pages are keyset pages: the links carry the place, not a number.
	link := func(body, rel string) string {
		m := regexp.MustCompile(`href="([^"]+)" rel="` + rel + `"`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no %s link", rel)
		}
		return html.UnescapeString(m[1])
	}
	second := s.do("GET", link(first.body, "next"), nil, ck)
	if rows(second.body) != 3 || strings.Contains(second.body, `rel="next"`) {
		t.Fatalf("second page: %d rows, want 3 and no next page", rows(second.body))
	}
	if back := s.do("GET", link(second.body, "prev"), nil, ck); rows(back.body) != 25 || strings.Contains(back.body, `rel="prev"`) {
		t.Fatalf("back from the second page: %d rows, want the first 25 and no previous page", rows(back.body))
	}
	found := s.do("GET", "/app/recordings?q="+url.QueryEscape("առաքման հարց"), nil, ck)
	if rows(found.body) != 1 || !strings.Contains(found.body, "Առաքման ՀԱՐՑ") {
		t.Fatalf("search in Armenian, other case: %d rows", rows(found.body))
	}
	none := s.do("GET", "/app/recordings?status=failed", nil, ck)
	if rows(none.body) != 0 {
		t.Fatalf("status=failed: %d rows", rows(none.body))
	}
	bad := s.do("GET", "/app/recordings?from=yesterday", nil, ck)
	if bad.code != 200 || !strings.Contains(bad.body, `id="page-error"`) || !strings.Contains(bad.body, "yesterday") {
		t.Fatalf("bad date: %d", bad.code)
	}
}

func TestMembersCannotChangeTheAccount(t *testing.T) {
	s := newSite(t, web.Config{})
	_, _, acct := s.signUp("owner@example.am")
	ck := s.member(acct, "member@example.am")
	csrf := ck["_csrf"]
	if r := s.do("POST", "/app/settings/keys", url.Values{"_csrf": {csrf}}, ck); r.code != 403 {
		t.Fatalf("member creating a key: %d", r.code)
	}
	if r := s.do("GET", "/app/settings", nil, ck); r.code != 200 || strings.Contains(r.body, `id="create-key"`) {
		t.Fatalf("member's settings page: %d, offers key creation: %v", r.code, strings.Contains(r.body, `id="create-key"`))
	}
}

func TestInvitationWorksOnce(t *testing.T) {
	s := newSite(t, web.Config{})
	_, _, acct := s.signUp("owner@example.am")
	_, token, err := app.NewInviteUser(s.store, ports.SystemClock{}).Handle(context.Background(), acct, "new@example.am", domain.RoleMember)
	if err != nil {
		t.Fatal(err)
	}
	anon := map[string]string{"hyscribe_csrf": strings.Repeat("c", 40)}
	if r := s.do("GET", "/app/invite/"+token, nil, anon); r.code != 200 || !strings.Contains(r.body, "new@example.am") {
		t.Fatalf("invitation page: %d", r.code)
	}
	r := s.do("POST", "/app/invite/"+token, url.Values{"_csrf": {anon["hyscribe_csrf"]}, "password": {"my new password"}}, anon)
	if r.code != 303 || !strings.Contains(r.header.Get("Set-Cookie"), "hyscribe_session=") {
		t.Fatalf("accept: %d %v", r.code, r.header)
	}
	if r := s.do("POST", "/app/invite/"+token, url.Values{"_csrf": {anon["hyscribe_csrf"]}, "password": {"another password"}}, anon); r.code != 404 {
		t.Fatalf("second use: %d, want 404", r.code)
	}
	if _, err := s.uc.Commands.SignIn.Handle(context.Background(), "new@example.am", "my new password", "1.1.1.1"); err != nil {
		t.Fatalf("sign in with the chosen password: %v", err)
	}
}

func TestResendGoesToTheReceiverInForceNow(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, csrf, acct := s.signUp("a@example.am")
	doc := s.job(acct, "t", []byte("x"), `{}`)
	type hit struct {
		id     string
		secret string
		signed error
	}
	var old, now []hit
	receiver := func(into *[]hit, secret string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			var body struct{ Secret string }
			_ = json.Unmarshal(b, &body)
			*into = append(*into, hit{r.Header.Get("webhook-id"), body.Secret, webhook.Verify(secret, r.Header, b, time.Now(), time.Minute)})
		}))
	}
	oldRcv, nowRcv := receiver(&old, "old-secret"), receiver(&now, "new-secret")
	defer oldRcv.Close()
	defer nowRcv.Close()
	d := domain.Delivery{ID: "d1", EventID: "ev-1", DocID: doc, AccountID: acct, EventType: domain.EventTranscriptReady, URL: oldRcv.URL,
		Payload: []byte(`{"event_type":"transcript_ready","secret":"old-secret","docId":"` + string(doc) + `"}`), Status: domain.DeliveryFailed, CreatedAt: time.Now()}
	if _, err := s.store.BeginDelivery(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	resend := func(ck map[string]string, csrf string) resp {
		return s.do("POST", "/app/recordings/"+string(doc)+"/deliveries/d1/resend", url.Values{"_csrf": {csrf}}, ck)
	}

	// The account polls now: nothing is sent, and the page says why.
	if r := resend(ck, csrf); r.code != 400 || !strings.Contains(r.body, "Settings") && !strings.Contains(r.body, "Կարգավորումներում") || len(old)+len(now) != 0 {
		t.Fatalf("resend without a receiver: %d, %d+%d sent; body has no reason", r.code, len(old), len(now))
	}

	hook, secret := nowRcv.URL, "new-secret"
	if _, err := app.NewUpdateAccount(s.store).Handle(context.Background(), acct, domain.RoleOwner, app.AccountChanges{WebhookURL: &hook, WebhookSecret: &secret}); err != nil {
		t.Fatal(err)
	}
	other, otherCSRF, _ := s.signUp("b@example.am")
	if r := resend(other, otherCSRF); r.code != 404 || len(old)+len(now) != 0 {
		t.Fatalf("another account's resend: %d, %d+%d sent", r.code, len(old), len(now))
	}
	if r := resend(ck, csrf); r.code != 303 {
		t.Fatalf("resend: %d %s", r.code, r.body)
	}
	if len(old) != 0 || len(now) != 1 || now[0].id != "ev-1" || now[0].secret != "new-secret" || now[0].signed != nil {
		t.Fatalf("resend reached the old receiver %d times and the current one with %+v; want one request there, webhook-id ev-1, signed and carrying the new secret", len(old), now)
	}
	ds, _ := s.store.Deliveries(context.Background(), doc)
	if len(ds) != 2 || ds[1].Status != domain.DeliveryDelivered || !ds[1].IsResend() || ds[1].URL != nowRcv.URL {
		t.Fatalf("delivery log after resend: %+v", ds)
	}
	page := s.do("GET", "/app/recordings/"+string(doc), nil, ck).body
	if !strings.Contains(page, oldRcv.URL) || !strings.Contains(page, nowRcv.URL) {
		t.Fatalf("the delivery log does not show where each attempt went (%s, then %s)", oldRcv.URL, nowRcv.URL)
	}
}

// TestEveryMessageIsTranslated finds every message key the templates and
// handlers use and checks both languages have it.
func TestEveryMessageIsTranslated(t *testing.T) {
	keyRe := regexp.MustCompile(`(?:\bt \$?[lL]a?n?g?\S* |\bt \.Lang |tf \$l |text\([a-zA-Z.]+, |titleKey: |newView\(c, [a-z]+, )"([a-z][a-z0-9.]*[a-z0-9])"`)
	files, _ := filepath.Glob("templates/*.html")
	gofiles, _ := filepath.Glob("*.go")
	seen := 0
	for _, f := range append(files, gofiles...) {
		b, _ := os.ReadFile(f)
		for _, m := range keyRe.FindAllStringSubmatch(string(b), -1) {
			seen++
			if !web.HasMessage(m[1]) {
				t.Errorf("%s uses message %q, which has no translation", f, m[1])
			}
		}
	}
	if seen < 100 {
		t.Fatalf("found only %d message uses: the pattern no longer matches the code", seen)
	}
}

// tWriter sends the site's log to the test's log.
type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
