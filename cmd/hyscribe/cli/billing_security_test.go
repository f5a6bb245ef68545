package cli_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
	"github.com/hyscribe/hyscribe/domain"
)

// heldModel is a chat model that holds every request until released, so a
// job waits in converting with its transcript already stored (the enrich
// stage asks the model for its title and summary).
type heldModel struct {
	url     string
	asked   chan struct{}
	release chan struct{}
	once    sync.Once
}

func newHeldModel(t *testing.T) *heldModel {
	t.Helper()
	m := &heldModel{asked: make(chan struct{}, 64), release: make(chan struct{})}
	srv := newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case m.asked <- struct{}{}:
		default:
		}
		select {
		case <-m.release:
		case <-r.Context().Done():
			return
		}
		http.Error(w, `{"error":{"message":"released"}}`, http.StatusServiceUnavailable)
	}))
	m.url = srv
	t.Cleanup(m.free)
	return m
}

func (m *heldModel) free() { m.once.Do(func() { close(m.release) }) }

// securityRig is the whole service on loopback with an account, its owner
// (signed in through the forms when asked) and an API key.
type securityRig struct {
	vars    map[string]string
	base    string
	account string
	key     string
	owner   string // the owner's e-mail
	logs    string // the service's log file
	model   *heldModel
}

const rigPassword = "a long enough password"

// newSecurityRig starts the service with the held chat model and extra
// settings; the account holds seconds.
func newSecurityRig(t *testing.T, seconds string, extra map[string]string) *securityRig {
	t.Helper()
	if testing.Short() {
		t.Skip("starts the whole service")
	}
	engine := asrtest.NewEngine(t)
	model := newHeldModel(t)
	vars := map[string]string{
		"HYSCRIBE_DATA_DIR":            t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":    "1",
		"HYSCRIBE_ASR_URL":             engine.URL(),
		"HYSCRIBE_LLM_URL":             model.url,
		"HYSCRIBE_SHUTDOWN_GRACE":      "200ms",
		"HYSCRIBE_LOG_LEVEL":           "info",
	}
	for k, v := range extra {
		vars[k] = v
		if v == "" {
			delete(vars, k) // the default, e.g. no chat model
		}
	}
	acct := runCLI(t, env(vars), "account", "create", "--name", "rig", "--plan", "business", "--seconds", seconds)
	r := &securityRig{vars: vars, account: acct["accountId"].(string), key: acct["apiKey"].(string), owner: "owner@example.am", model: model}
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte(rigPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runCLI(t, env(vars), "user", "create", "--account", r.account, "--email", r.owner, "--password-file", pw, "--role", "owner")
	cfg, err := cli.LoadConfig(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	logs, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	r.logs = logs.Name()
	svc, err := cli.Start(context.Background(), cfg, cli.RoleAPI|cli.RoleWorker, cli.AllStages, logs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		model.free()
		svc.Stop()
		logs.Close()
	})
	r.base = "http://" + svc.HTTPAddr()
	return r
}

// newLoopbackServer serves h on a loopback port until the test ends and
// returns its base URL.
func newLoopbackServer(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// signIn signs email in through the sign-in form and returns its browser.
func (r *securityRig) signIn(t *testing.T, email, password string) *http.Client {
	t.Helper()
	c := browserless(t)
	page := body(t, get(t, c, r.base+"/app/signin"))
	res := postForm(t, c, r.base+"/app/signin", url.Values{"_csrf": {csrfOf(t, page)}, "email": {email}, "password": {password}})
	b := body(t, res)
	if !strings.HasPrefix(res.Request.URL.Path, "/app/recordings") {
		t.Fatalf("sign-in of %s ended at %s (%d): %.400s", email, res.Request.URL, res.StatusCode, b)
	}
	return c
}

// secondsRemaining reads the account's balance with the CLI.
func (r *securityRig) secondsRemaining(t *testing.T) float64 {
	t.Helper()
	return runCLI(t, env(r.vars), "account", "update", "--account", r.account)["secondsRemaining"].(float64)
}

// TestNothingOfATranscriptShowsBeforeTranscribedAndDeletingThenRefundsNothing
// holds a job in converting with its transcript stored (the chat model
// that titles it does not answer) and looks for the transcript everywhere
// a person or an integrator can: the poll, the recording's page, the
// history's search and the exports. None shows a word of it. Deleting the
// job then refunds nothing: its seconds went to recognition.
func TestNothingOfATranscriptShowsBeforeTranscribedAndDeletingThenRefundsNothing(t *testing.T) {
	r := newSecurityRig(t, "600", nil)
	audio, err := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	doc := createAndUpload(t, strings.TrimPrefix(r.base, "http://"), r.key, "single_voice", audio)
	select {
	case <-r.model.asked:
	case <-time.After(30 * time.Second):
		t.Fatal("the job never reached the title and summary (enrich) stage")
	}
	p := poll(t, strings.TrimPrefix(r.base, "http://"), r.key, doc)
	if p.body["status"] != "converting" {
		t.Fatalf("premise: the job is converting with its transcript stored; poll says %s", p.raw)
	}
	duration, _ := p.body["duration"].(float64)
	if duration <= 0 {
		t.Fatalf("premise: the job was measured; poll says %s", p.raw)
	}
	charged := r.secondsRemaining(t)
	if charged > 600-duration+0.01 {
		t.Fatalf("premise: the job's %.3f s are reserved; %.3f s remain", duration, charged)
	}
	word := strings.Fields(asrtest.DefaultTexts[0])[0]
	word = strings.TrimRight(word, ",")

	web := r.signIn(t, r.owner, rigPassword)
	page := body(t, get(t, web, r.base+"/app/recordings/"+doc))
	if !strings.Contains(page, doc) && !strings.Contains(page, "converting") {
		t.Fatalf("premise: the recording's page shows the job: %.600s", page)
	}
	if strings.Contains(page, word) {
		t.Errorf("the recording's page of a converting job shows its transcript (%q)", word)
	}
	hist := body(t, get(t, web, r.base+"/app/recordings?q="+url.QueryEscape(word)))
	if strings.Contains(hist, doc) {
		t.Errorf("a search for a word of a converting job's transcript finds it")
	}
	if strings.Contains(hist, word+" ") || strings.Contains(hist, "<mark>"+word) {
		t.Errorf("the history shows a word of a converting job's transcript")
	}
	for _, f := range []string{"txt", "json", "srt"} {
		res := get(t, web, r.base+"/app/recordings/"+doc+"/export/"+f)
		if b := body(t, res); res.StatusCode == 200 || strings.Contains(b, word) {
			t.Errorf("the %s export of a converting job answers %d: %.200s", f, res.StatusCode, b)
		}
	}

	call(t, "POST", r.base+"/api/deleteTranscription", r.key, strings.NewReader(`{"docId":"`+doc+`"}`), 200, nil)
	if after := r.secondsRemaining(t); after > charged+0.001 {
		t.Errorf("deleting a job whose audio went to recognition refunded %.3f s (%.3f → %.3f)", after-charged, charged, after)
	}
}

// user adds a person with rigPassword to the rig's account and returns
// their user ID.
func (r *securityRig) user(t *testing.T, email, role string) string {
	t.Helper()
	pw := filepath.Join(t.TempDir(), "pw-"+email)
	if err := os.WriteFile(pw, []byte(rigPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return runCLI(t, env(r.vars), "user", "create", "--account", r.account, "--email", email, "--password-file", pw, "--role", role)["userId"].(string)
}

// resetLink has the operator make a reset link for email and returns its
// path on the rig.
func (r *securityRig) resetLink(t *testing.T, email string) string {
	t.Helper()
	link, _ := runCLI(t, env(r.vars), "user", "reset-link", "--email", email)["resetLink"].(string)
	u, err := url.Parse(link)
	if err != nil || !strings.HasPrefix(u.Path, "/app/reset/") {
		t.Fatalf("reset-link printed %q", link)
	}
	return u.Path
}

// post sends a form of a signed-in browser with the CSRF token of the page
// at from.
func (r *securityRig) post(t *testing.T, c *http.Client, from, to string, f url.Values) *http.Response {
	t.Helper()
	f.Set("_csrf", csrfOf(t, body(t, get(t, c, r.base+from))))
	return postForm(t, c, r.base+to, f)
}

// TestResetLinksEndWithPasswordChangeRoleChangeAndRemoval hands out a reset
// link, then has the person change their own password, be demoted, be
// removed, or be given a newer link: each time the old link must be dead
// (404), and it must not set a password or sign anyone in.
func TestResetLinksEndWithPasswordChangeRoleChangeAndRemoval(t *testing.T) {
	r := newSecurityRig(t, "60", nil)
	owner := r.signIn(t, r.owner, rigPassword)
	alive := func(path string) bool {
		t.Helper()
		res := get(t, browserless(t), r.base+path)
		body(t, res)
		return res.StatusCode == 200
	}
	spend := func(path string) *http.Response {
		t.Helper()
		c := browserless(t)
		res := get(t, c, r.base+path)
		page := body(t, res)
		if res.StatusCode != 200 {
			return res
		}
		return postForm(t, c, r.base+path, url.Values{"_csrf": {csrfOf(t, page)}, "password": {"the attacker's password"}})
	}

	// A password change by the person.
	r.user(t, "changer@example.am", "member")
	link := r.resetLink(t, "changer@example.am")
	if !alive(link) {
		t.Fatal("premise: a fresh reset link opens its page")
	}
	changer := r.signIn(t, "changer@example.am", rigPassword)
	res := r.post(t, changer, "/app/password", "/app/password", url.Values{"current": {rigPassword}, "password": {"a brand new password"}, "confirm": {"a brand new password"}})
	body(t, res)
	if res.StatusCode >= 400 {
		t.Fatalf("premise: the password change answered %d", res.StatusCode)
	}
	r.signIn(t, "changer@example.am", "a brand new password")
	if alive(link) {
		t.Error("a reset link made before the person changed their password still opens")
	}
	if res := spend(link); res.Request.URL.Path == "/app/recordings" {
		t.Error("a reset link made before a password change set a new password and signed its holder in")
	}

	// A demotion by an owner.
	id := r.user(t, "second@example.am", "owner")
	link = r.resetLink(t, "second@example.am")
	res = r.post(t, owner, "/app/team", "/app/team/"+id+"/role", url.Values{"role": {"member"}})
	body(t, res)
	if res.StatusCode >= 400 {
		t.Fatalf("premise: the demotion answered %d", res.StatusCode)
	}
	if alive(link) {
		t.Error("a reset link made before the person was demoted still opens")
	}

	// A removal.
	id = r.user(t, "leaver@example.am", "member")
	link = r.resetLink(t, "leaver@example.am")
	res = r.post(t, owner, "/app/team", "/app/team/"+id+"/remove", url.Values{})
	body(t, res)
	if alive(link) {
		t.Error("a reset link of a removed person still opens")
	}

	// A newer link, and a reset through it.
	r.user(t, "forgetful@example.am", "member")
	first := r.resetLink(t, "forgetful@example.am")
	second := r.resetLink(t, "forgetful@example.am")
	if alive(first) {
		t.Error("an older reset link still opens after a newer one was made")
	}
	if res := spend(second); res.Request.URL.Path != "/app/recordings" {
		t.Fatalf("premise: the newest link resets the password; it ended at %s", res.Request.URL)
	}
	if alive(second) {
		t.Error("a used reset link still opens")
	}
}

// TestLogsHoldNoTokensSignaturesOrKeys runs the service at debug level
// through invitations, reset links, signed uploads, API keys and a
// receiver whose address carries a token, then greps the whole log for
// each secret.
func TestLogsHoldNoTokensSignaturesOrKeys(t *testing.T) {
	r := newSecurityRig(t, "600", map[string]string{"HYSCRIBE_LOG_LEVEL": "debug", "HYSCRIBE_LLM_URL": "", "HYSCRIBE_WEBHOOK_ALLOW_PRIVATE": "true"})
	// A receiver that is not listening: the error names its whole address.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	const receiverToken = "RECEIVERTOKEN0123456789"
	runCLI(t, env(r.vars), "account", "update", "--account", r.account, "--webhook-url", dead+"/hook?token="+receiverToken, "--webhook-secret", "whsec_c2VjcmV0c2VjcmV0c2VjcmV0")
	var secrets []string

	invite := runCLI(t, env(r.vars), "user", "invite", "--account", r.account, "--email", "new@example.am")["inviteLink"].(string)
	iu, _ := url.Parse(invite)
	secrets = append(secrets, strings.TrimPrefix(iu.Path, "/app/invite/"))
	c := browserless(t)
	page := body(t, get(t, c, r.base+iu.Path))
	res := postForm(t, c, r.base+iu.Path, url.Values{"_csrf": {csrfOf(t, page)}, "password": {"x"}}) // refused: too short
	body(t, res)

	reset := r.resetLink(t, r.owner)
	secrets = append(secrets, strings.TrimPrefix(reset, "/app/reset/"))
	body(t, get(t, browserless(t), r.base+reset))
	body(t, get(t, browserless(t), r.base+reset+"?again=1"))

	audio, err := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ DocID, UploadURL string }
	call(t, "POST", r.base+"/api/createTranscription", r.key, strings.NewReader(`{"type":"single_voice"}`), 200, &created)
	uu, _ := url.Parse(created.UploadURL)
	secrets = append(secrets, uu.Query().Get("signature"), r.key)
	bad := *uu
	q := uu.Query()
	q.Set("signature", "BADSIGNATURE0123456789")
	bad.RawQuery = q.Encode()
	secrets = append(secrets, "BADSIGNATURE0123456789")
	call(t, "PUT", bad.String(), "", strings.NewReader("x"), 403, nil)
	call(t, "PUT", created.UploadURL, "", strings.NewReader(string(audio)), 200, nil)
	req, _ := http.NewRequest("GET", r.base+"/api/getTranscription?docId="+created.DocID+"&apiKey="+r.key, nil)
	req.Header.Set("Authorization", "Bearer hsk_WRONGKEY0123456789")
	secrets = append(secrets, "WRONGKEY0123456789")
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
	}
	// The job finishes and its event fails at the receiver.
	waitFor(t, "the event's failed delivery", 30*time.Second, func() (bool, string) {
		b, _ := os.ReadFile(r.logs)
		return strings.Contains(string(b), `"webhook delivery failed"`), "no failed delivery to the receiver in the log yet:\n" + string(b)[max(0, len(b)-3000):]
	})
	secrets = append(secrets, receiverToken, "c2VjcmV0c2VjcmV0c2VjcmV0")

	b, err := os.ReadFile(r.logs)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	for _, want := range []string{"/app/invite/[redacted]", "/app/reset/[redacted]"} {
		if !strings.Contains(log, want) {
			t.Errorf("premise: the log has a line about %s:\n%s", want, log)
		}
	}
	for _, s := range secrets {
		if s == "" {
			t.Fatal("premise: every secret is known")
		}
		if i := strings.Index(log, s); i >= 0 {
			t.Errorf("the log holds the secret %q: …%s…", s, log[max(0, i-200):min(len(log), i+100)])
		}
	}
}

// TestUpperCaseHTTPSPublicURLKeepsCookiesSecure starts the service with
// HYSCRIBE_PUBLIC_URL=HTTPS://…: the scheme is case-insensitive, so the
// cookies stay Secure and the session cookie keeps its __Host- prefix.
func TestUpperCaseHTTPSPublicURLKeepsCookiesSecure(t *testing.T) {
	r := newSecurityRig(t, "60", map[string]string{"HYSCRIBE_PUBLIC_URL": "HTTPS://Hyscribe.Example", "HYSCRIBE_LLM_URL": ""})
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res := get(t, c, r.base+"/app/signin")
	page := body(t, res)
	var csrf *http.Cookie
	for _, ck := range res.Cookies() {
		if ck.Name == "hyscribe_csrf" {
			csrf = ck
		}
	}
	if csrf == nil || !csrf.Secure {
		t.Fatalf("the sign-in page's CSRF cookie is not Secure: %v", res.Header.Values("Set-Cookie"))
	}
	f := url.Values{"_csrf": {csrfOf(t, page)}, "email": {r.owner}, "password": {rigPassword}}
	req, _ := http.NewRequest("POST", r.base+"/app/signin", strings.NewReader(f.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: csrf.Name, Value: csrf.Value})
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body(t, res)
	var session *http.Cookie
	for _, ck := range res.Cookies() {
		if strings.HasSuffix(ck.Name, "hyscribe_session") {
			session = ck
		}
	}
	if session == nil {
		t.Fatalf("premise: sign-in sets a session cookie; it answered %d %v", res.StatusCode, res.Header.Values("Set-Cookie"))
	}
	if session.Name != "__Host-hyscribe_session" || !session.Secure || session.Path != "/" {
		t.Errorf("the session cookie under HTTPS://… is %q (Secure %v, Path %q), want __Host-hyscribe_session, Secure, Path /", session.Name, session.Secure, session.Path)
	}
}

var inviteLinkRe = regexp.MustCompile(`https?://[^"<\s]+/app/invite/[A-Za-z0-9_-]+`)

// TestInvitationsTellNothingReserveNothingAndAreLimited invites an address
// that has an account in another organisation and one that has none: both
// answers are a link, alike. The invited address can still sign up (and
// is signed in); the invitation then cannot take it. An account's
// invitations are limited a minute.
func TestInvitationsTellNothingReserveNothingAndAreLimited(t *testing.T) {
	r := newSecurityRig(t, "60", map[string]string{"HYSCRIBE_LLM_URL": ""})
	other := runCLI(t, env(r.vars), "account", "create", "--name", "elsewhere", "--plan", "free", "--seconds", "0")["accountId"].(string)
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte(rigPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runCLI(t, env(r.vars), "user", "create", "--account", other, "--email", "taken@example.am", "--password-file", pw, "--role", "owner")

	owner := r.signIn(t, r.owner, rigPassword)
	invite := func(email string) (int, string, string) {
		t.Helper()
		res := r.post(t, owner, "/app/team", "/app/team/invite", url.Values{"email": {email}, "role": {"member"}})
		page := body(t, res)
		link := inviteLinkRe.FindString(page)
		shape := strings.ReplaceAll(strings.ReplaceAll(page, link, "LINK"), email, "EMAIL")
		return res.StatusCode, link, shape
	}
	takenCode, takenLink, _ := invite("taken@example.am")
	freeCode, freeLink, _ := invite("free@example.am")
	if takenCode != freeCode || (takenLink == "") != (freeLink == "") {
		t.Fatalf("an address with an account elsewhere answers %d (link %v), an unknown one %d (link %v)", takenCode, takenLink != "", freeCode, freeLink != "")
	}
	if freeCode != 200 || freeLink == "" {
		t.Fatalf("premise: an unknown address is invited with a link; %d", freeCode)
	}

	// The invited address signs up on its own and is signed in.
	c := browserless(t)
	page := body(t, get(t, c, r.base+"/app/signup"))
	res := postForm(t, c, r.base+"/app/signup", url.Values{"_csrf": {csrfOf(t, page)}, "org": {"Free Org"}, "email": {"free@example.am"}, "password": {"free person's password"}})
	body(t, res)
	if res.Request.URL.Path != "/app/settings" {
		t.Fatalf("the invited address could not sign up: ended at %s (%d)", res.Request.URL, res.StatusCode)
	}
	// Its invitation no longer takes the address, and says nothing more
	// than a sign-up with a taken address does.
	lu, _ := url.Parse(freeLink)
	inv := browserless(t)
	ipage := body(t, get(t, inv, r.base+lu.Path))
	res = postForm(t, inv, r.base+lu.Path, url.Values{"_csrf": {csrfOf(t, ipage)}, "password": {"the inviter's password"}})
	if b := body(t, res); res.StatusCode != 200 || strings.Contains(b, `id="history"`) {
		t.Errorf("accepting an invitation of an address that signed up meanwhile: %d at %s, signed in %v", res.StatusCode, res.Request.URL, strings.Contains(b, `id="history"`))
	}
	r.signIn(t, "free@example.am", "free person's password")

	// At most app.InvitesPerAccount (10) a minute; two were made. The
	// minute may turn during the burst, so up to twice the limit is tried.
	limited := false
	for i := 0; i < 20 && !limited; i++ {
		code, _, _ := invite(fmt.Sprintf("p%d@example.am", i))
		limited = code == http.StatusTooManyRequests
	}
	if !limited {
		t.Error("20 invitations in a row were never refused with 429")
	}
}

// transcribed creates a job from the speech sample and polls it to the end.
func (r *securityRig) transcribed(t *testing.T) string {
	t.Helper()
	return r.transcribedFor(t, r.key)
}

// TestChecklistsAreBoundedAndPreviewIsLimited sends the red team's Preview
// (62,000 one-letter phrases in a 242 KiB form): it is refused at once
// with an error naming the bound. Previews are limited a minute per
// person.
func TestChecklistsAreBoundedAndPreviewIsLimited(t *testing.T) {
	r := newSecurityRig(t, "600", map[string]string{"HYSCRIBE_LLM_URL": ""})
	doc := r.transcribed(t)
	owner := r.signIn(t, r.owner, rigPassword)
	preview := func(phrases string) (*http.Response, string) {
		t.Helper()
		res := r.post(t, owner, "/app/checklists/new", "/app/checklists", url.Values{"name": {"QA"}, "q_id": {"q1"}, "q_text": {"Greets?"},
			"q_expect": {phrases}, "preview_doc": {doc}, "action": {"preview"}})
		return res, body(t, res)
	}
	res, page := preview("բարև ձեզ")
	if res.StatusCode != 200 || !strings.Contains(page, "q1") {
		t.Fatalf("premise: a small Preview answers 200: %d", res.StatusCode)
	}
	letters := make([]string, 62000)
	for i := range letters {
		letters[i] = string(rune('a' + i%26))
	}
	start := time.Now()
	res, page = preview(strings.Join(letters, ","))
	if took := time.Since(start); res.StatusCode != 400 || !strings.Contains(page, "at most 20") || took > 2*time.Second {
		t.Errorf("a Preview of 62,000 phrases answered %d in %s; want 400 naming the bound of 20 phrases at once", res.StatusCode, took)
	}
	// The same bound holds for the operator's checklist files.
	f := filepath.Join(t.TempDir(), "cl.json")
	if err := os.WriteFile(f, []byte(`{"name":"QA","questions":[{"id":"q1","text":"t","expect":["`+strings.Join(letters[:21], `","`)+`"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	if err := cli.Run(context.Background(), []string{"checklist", "create", "--account", r.account, "--file", f}, env(r.vars), &out, &errb); err == nil || !strings.Contains(err.Error(), "at most 20") {
		t.Errorf("checklist create with 21 phrases in a question: %v", err)
	}

	// At most app.PreviewsPerPerson (20) a minute; two were made.
	limited := false
	for i := 0; i < 40 && !limited; i++ {
		res, _ := preview("բարև")
		limited = res.StatusCode == http.StatusTooManyRequests
	}
	if !limited {
		t.Error("40 Previews in a row were never refused with 429")
	}
}

// TestUploadFormIsLimitedLikeTheAPI posts the web application's upload form
// faster than the API's create limit (HYSCRIBE_CREATE_RATE_LIMIT) allows:
// the form meets the same limit.
func TestUploadFormIsLimitedLikeTheAPI(t *testing.T) {
	r := newSecurityRig(t, "600", map[string]string{"HYSCRIBE_LLM_URL": "", "HYSCRIBE_CREATE_RATE_LIMIT": "5"})
	audio, err := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	owner := r.signIn(t, r.owner, rigPassword)
	form := url.Values{"type": {"single_voice"}, "size": {fmt.Sprint(len(audio))}, "head": {base64.StdEncoding.EncodeToString(audio)}}
	var codes []int
	for i := 0; i < 12; i++ {
		res := r.post(t, owner, "/app/settings", "/app/recordings/new", url.Values(maps.Clone(form)))
		b := body(t, res)
		if i == 0 && res.StatusCode != 200 {
			t.Fatalf("premise: the form creates a job: %d %s", res.StatusCode, b)
		}
		codes = append(codes, res.StatusCode)
	}
	if !slices.Contains(codes, http.StatusTooManyRequests) {
		t.Errorf("12 form posts under a create limit of 5 a minute answered %v, never 429", codes)
	}
}

// TestWaitingJobsAreCapped creates domain.MaxWaitingUploads jobs and no
// upload through the API: the next one is refused, by the API and by the
// upload form alike.
func TestWaitingJobsAreCapped(t *testing.T) {
	r := newSecurityRig(t, "600", map[string]string{"HYSCRIBE_LLM_URL": "", "HYSCRIBE_CREATE_RATE_LIMIT": "100000"})
	for i := 0; i < domain.MaxWaitingUploads; i++ {
		call(t, "POST", r.base+"/api/createTranscription", r.key, strings.NewReader(`{"type":"single_voice"}`), 200, nil)
	}
	var refused struct{ Error, Code string }
	call(t, "POST", r.base+"/api/createTranscription", r.key, strings.NewReader(`{"type":"single_voice"}`), http.StatusConflict, &refused)
	if !strings.Contains(refused.Error, "at most 1000") {
		t.Errorf("the refusal says %q", refused.Error)
	}
	owner := r.signIn(t, r.owner, rigPassword)
	audio, _ := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	res := r.post(t, owner, "/app/settings", "/app/recordings/new", url.Values{"type": {"single_voice"}, "size": {fmt.Sprint(len(audio))}, "head": {base64.StdEncoding.EncodeToString(audio)}})
	if b := body(t, res); res.StatusCode != http.StatusConflict || !strings.Contains(b, "1000") {
		t.Errorf("the upload form past the cap answered %d %s", res.StatusCode, b)
	}
}

// browserFrom is a browser whose connections leave from the loopback
// address local (127.0.0.2: another client to the service).
func browserFrom(t *testing.T, local string) *http.Client {
	c := browserless(t)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 5 * time.Second}
	c.Transport = &http.Transport{DialContext: d.DialContext}
	return c
}

// TestFailedSignInsCannotLockAKnownAddressOut has a client fail to sign in
// as the owner until it is refused; the owner, from their own address,
// still signs in at once.
func TestFailedSignInsCannotLockAKnownAddressOut(t *testing.T) {
	r := newSecurityRig(t, "60", map[string]string{"HYSCRIBE_LLM_URL": ""})
	attacker := browserFrom(t, "127.0.0.2")
	page := body(t, get(t, attacker, r.base+"/app/signin"))
	csrf := csrfOf(t, page)
	// At most app.SignInPerEmail (10) a minute per client and e-mail; the
	// minute may turn during the burst, so up to twice that are tried.
	limited := false
	var codes []int
	for i := 0; i < 21 && !limited; i++ {
		res := postForm(t, attacker, r.base+"/app/signin", url.Values{"_csrf": {csrf}, "email": {r.owner}, "password": {"a wrong guess, again"}})
		body(t, res)
		codes = append(codes, res.StatusCode)
		limited = res.StatusCode == http.StatusTooManyRequests
	}
	if !limited {
		t.Fatalf("premise: failed sign-ins from one client are refused with 429; answers %v", codes)
	}
	r.signIn(t, r.owner, rigPassword) // from 127.0.0.1
}

// TestMembersDoNotSeeReceiverTokens sets receiver addresses that carry
// tokens in their query (a user part is refused), delivers an event to one, and looks
// at the settings and the recording's page as a member: no token shows;
// the owner sees the addresses whole.
func TestMembersDoNotSeeReceiverTokens(t *testing.T) {
	r := newSecurityRig(t, "600", map[string]string{"HYSCRIBE_LLM_URL": "", "HYSCRIBE_WEBHOOK_ALLOW_PRIVATE": "true"})
	got := make(chan struct{}, 4)
	recv := newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		select {
		case got <- struct{}{}:
		default:
		}
	}))
	const hookToken, analysisToken = "HOOKTOKEN123", "ANALYSISTOKEN789"
	hook := recv + "/hook?token=" + hookToken
	runCLI(t, env(r.vars), "account", "update", "--account", r.account, "--webhook-url", hook,
		"--analysis-webhook-url", recv+"/analysis?key="+analysisToken)
	doc := r.transcribed(t)
	select {
	case <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("premise: the receiver got the transcript_ready event")
	}
	r.user(t, "reader@example.am", "member")
	member := r.signIn(t, "reader@example.am", rigPassword)
	owner := r.signIn(t, r.owner, rigPassword)
	waitFor(t, "the delivery on the recording's page", 10*time.Second, func() (bool, string) {
		p := body(t, get(t, owner, r.base+"/app/recordings/"+doc))
		return strings.Contains(p, "/hook?token="), "no delivery listed yet"
	})
	for _, path := range []string{"/app/settings", "/app/recordings/" + doc} {
		page := body(t, get(t, member, r.base+path))
		if !strings.Contains(page, "/hook?token=") && !strings.Contains(page, "/analysis?key=") {
			t.Errorf("premise: the member sees the receiver's address on %s", path)
		}
		for _, secret := range []string{hookToken, analysisToken} {
			if strings.Contains(page, secret) {
				t.Errorf("a member sees %s on %s", secret, path)
			}
		}
	}
	if page := body(t, get(t, owner, r.base+"/app/settings")); !strings.Contains(page, hookToken) || !strings.Contains(page, analysisToken) {
		t.Error("the owner no longer sees the receiver addresses whole")
	}
}

// TestForgedGaplessFieldsDoNotShrinkTheCharge uploads a LAME file whose
// tag claims 4,095 samples of encoder delay and of padding (the 12-bit
// maximum; LAME wrote 576 and 756): the charge is the whole decode, not
// 0.37 s less.
func TestForgedGaplessFieldsDoNotShrinkTheCharge(t *testing.T) {
	r := newSecurityRig(t, "600", map[string]string{"HYSCRIBE_LLM_URL": ""})
	b, err := os.ReadFile("../../../testdata/audio/call-stereo-22k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	info := max(bytes.Index(b, []byte("Info")), bytes.Index(b, []byte("Xing")))
	at := bytes.Index(b[max(info, 0):], []byte("LAME")) + info
	if info < 0 || at < info || at > info+200 {
		t.Fatal("premise: the file's first frame has a LAME tag")
	}
	b[at+21], b[at+22], b[at+23] = 0xff, 0xff, 0xff // delay 4095, padding 4095
	api := strings.TrimPrefix(r.base, "http://")
	doc := createAndUpload(t, api, r.key, "phone_call", b)
	var p pollAnswer
	waitFor(t, "the job transcribed", 30*time.Second, func() (bool, string) {
		p = poll(t, api, r.key, doc)
		return p.body["status"] == "transcribed", p.raw
	})
	const whole = 6.0604 // 232 frames of 576 samples at 22,050 Hz; 6.0 s after LAME's own trim
	if d, _ := p.body["duration"].(float64); d < whole {
		t.Errorf("a forged gapless tag is charged %.4f s, want the whole decode %.4f s", d, whole)
	}
	if left := r.secondsRemaining(t); left > 600-whole+0.001 {
		t.Errorf("%.4f s remain after a %.4f s recording", left, whole)
	}
}
