package cli_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/smtp/smtptest"
)

// tenant is a second account on the rig's service, with an owner who
// signs in with rigPassword and an API key.
type tenant struct{ account, key, owner string }

// otherAccount creates another business account on the rig's service.
func (r *securityRig) otherAccount(t *testing.T, name string) tenant {
	t.Helper()
	acct := runCLI(t, env(r.vars), "account", "create", "--name", name, "--plan", "business", "--seconds", "600")
	x := tenant{account: acct["accountId"].(string), key: acct["apiKey"].(string), owner: name + "-owner@example.am"}
	pw := filepath.Join(t.TempDir(), "pw-"+name)
	if err := os.WriteFile(pw, []byte(rigPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runCLI(t, env(r.vars), "user", "create", "--account", x.account, "--email", x.owner, "--password-file", pw, "--role", "owner")
	return x
}

// transcribedFor creates a job from the speech sample with key and polls
// it to the end.
func (r *securityRig) transcribedFor(t *testing.T, key string) string {
	t.Helper()
	audio, err := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	api := strings.TrimPrefix(r.base, "http://")
	doc := createAndUpload(t, api, key, "single_voice", audio)
	waitFor(t, "the job transcribed", 30*time.Second, func() (bool, string) {
		p := poll(t, api, key, doc)
		return p.body["status"] == "transcribed", p.raw
	})
	return doc
}

// TestOneAccountsFailingReceiverNeverFailsAnothersDeliveries puts two
// accounts' receivers on one host and port (a shared integration host),
// on different paths. Account X's path answers 500 and X presses "Send
// test event" six times: account V's next transcript_ready is still
// delivered. Then X's path stops answering and holds eight of X's
// deliveries (resendEvent) in flight: V's resend is delivered before the
// first of them could time out (before, it waited for one of X's slots:
// delivered only once X's were cut by the timeout, or failed as "receiver
// busy" when none came free).
func TestOneAccountsFailingReceiverNeverFailsAnothersDeliveries(t *testing.T) {
	// The webhook timeout outlasts the test, so X's held deliveries keep
	// their slots while V's resend is made.
	const webhookTimeout = 15 * time.Second
	r := newSecurityRig(t, "600", map[string]string{"HYSCRIBE_LLM_URL": "", "HYSCRIBE_WEBHOOK_ALLOW_PRIVATE": "true",
		"HYSCRIBE_WEBHOOK_TIMEOUT": webhookTimeout.String()})
	const (
		healthy = iota
		failing
		hanging
	)
	var xMode, xHits, xHeld atomic.Int32
	var xFirstHeld atomic.Int64                // when X's receiver began to hold the first of X's deliveries
	vAfterHeld := make(chan time.Duration, 16) // how long after that V's arrived
	release := make(chan struct{})
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(free)
	vGot := make(chan struct{}, 16)
	recv := newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasPrefix(req.URL.Path, "/v/") {
			if at := xFirstHeld.Load(); at != 0 {
				vAfterHeld <- time.Since(time.Unix(0, at))
			}
			vGot <- struct{}{}
			return
		}
		xHits.Add(1)
		switch xMode.Load() {
		case failing:
			http.Error(w, "X's integration is down", http.StatusInternalServerError)
		case hanging:
			xFirstHeld.CompareAndSwap(0, time.Now().UnixNano())
			xHeld.Add(1)
			defer xHeld.Add(-1)
			select {
			case <-release:
			case <-req.Context().Done():
			}
		}
	}))
	x := r.otherAccount(t, "x")
	runCLI(t, env(r.vars), "account", "update", "--account", x.account, "--webhook-url", recv+"/x/hook")
	runCLI(t, env(r.vars), "account", "update", "--account", r.account, "--webhook-url", recv+"/v/hook")

	// X's job is delivered while its path is healthy: resent later.
	xDoc := r.transcribedFor(t, x.key)
	waitFor(t, "X's transcript_ready", 10*time.Second, func() (bool, string) { return xHits.Load() > 0, "none yet" })

	xMode.Store(failing)
	xOwner := r.signIn(t, x.owner, rigPassword)
	for range 6 {
		body(t, r.post(t, xOwner, "/app/settings", "/app/settings/test-event", url.Values{}))
	}
	if n := xHits.Load(); n < 6 {
		t.Fatalf("premise: X's failing receiver got X's test events; it was reached %d times", n)
	}
	vDoc := r.transcribedFor(t, r.key)
	select {
	case <-vGot:
	case <-time.After(20 * time.Second):
		t.Error("V's transcript_ready never reached V's receiver after X's test events failed on the same host")
	}

	xMode.Store(hanging)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			req, _ := http.NewRequest("POST", r.base+"/api/resendEvent", strings.NewReader(`{"docId":"`+xDoc+`","event":"transcript_ready"}`))
			req.Header.Set("Authorization", "Bearer "+x.key)
			if res, err := http.DefaultClient.Do(req); err == nil {
				res.Body.Close()
			}
		})
	}
	defer wg.Wait()
	defer free()
	waitFor(t, "eight of X's deliveries held by X's receiver", 10*time.Second, func() (bool, string) {
		return xHeld.Load() == 8, fmt.Sprint(xHeld.Load(), " held")
	})
	var res struct {
		Delivered bool
		Error     *string
	}
	call(t, "POST", r.base+"/api/resendEvent", r.key, strings.NewReader(`{"docId":"`+vDoc+`","event":"transcript_ready"}`), 200, &res)
	if !res.Delivered {
		reason := ""
		if res.Error != nil {
			reason = *res.Error
		}
		t.Errorf("V's resend while X's receiver held eight deliveries was not delivered: %s", reason)
	} else if after := <-vAfterHeld; after >= webhookTimeout {
		t.Errorf("V's resend reached V's receiver %s after X's first held delivery, when X's were cut by the %s timeout: it waited for X's slots",
			after.Round(time.Millisecond), webhookTimeout)
	}
}

// TestResendsShareOneLimitAndTheLogKeepsOnePayload presses the recording
// page's Resend 64 times in a row: past app.ResendsPerAccount (60) a
// minute it is refused with 429 and a message naming the bound, and the
// API's resendEvent, counted with it, is refused too. The delivery log
// gains a row per attempt but not a copy of the payload.
func TestResendsShareOneLimitAndTheLogKeepsOnePayload(t *testing.T) {
	r := newSecurityRig(t, "600", map[string]string{"HYSCRIBE_LLM_URL": "", "HYSCRIBE_WEBHOOK_ALLOW_PRIVATE": "true"})
	got := make(chan struct{}, 256)
	recv := newLoopbackServer(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		select {
		case got <- struct{}{}:
		default:
		}
	}))
	runCLI(t, env(r.vars), "account", "update", "--account", r.account, "--webhook-url", recv+"/hook")
	doc := r.transcribed(t)
	select {
	case <-got:
	case <-time.After(20 * time.Second):
		t.Fatal("premise: the receiver got the transcript_ready event")
	}
	db, err := sql.Open("sqlite", filepath.Join(r.vars["HYSCRIBE_DATA_DIR"], "hyscribe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	logged := func() (rows, payloadBytes int) {
		t.Helper()
		if err := db.QueryRow(`SELECT count(*), coalesce(sum(length(payload)), 0) FROM deliveries WHERE doc_id = ?`, doc).Scan(&rows, &payloadBytes); err != nil {
			t.Fatal(err)
		}
		return rows, payloadBytes
	}
	rows0, bytes0 := logged()
	if rows0 != 1 || bytes0 == 0 {
		t.Fatalf("premise: one delivery with its payload; %d rows, %d payload bytes", rows0, bytes0)
	}

	owner := r.signIn(t, r.owner, rigPassword)
	page := body(t, get(t, owner, r.base+"/app/recordings/"+doc))
	m := regexp.MustCompile(`/app/recordings/[^/"]+/deliveries/([^/"]+)/resend`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("premise: the recording's page offers Resend")
	}
	csrf := csrfOf(t, page)
	// The wall-clock minute may turn during the presses: up to twice the
	// limit may pass, never more.
	const presses = 64
	sent, refusedAt := 0, time.Time{}
	for i := 0; i < 2*presses && refusedAt.IsZero(); i++ {
		res := postForm(t, owner, r.base+m[0], url.Values{"_csrf": {csrf}})
		b := body(t, res)
		switch {
		case res.StatusCode == http.StatusTooManyRequests:
			refusedAt = time.Now()
			if !strings.Contains(b, "60") || !strings.Contains(b, "րոպե") {
				t.Errorf("the refusal does not name the bound: %.600s", b)
			}
		case res.StatusCode == http.StatusOK && strings.Contains(res.Request.URL.RawQuery, "resent="):
			sent++
		default:
			t.Fatalf("resend %d: %d at %s %.300s", i, res.StatusCode, res.Request.URL, b)
		}
	}
	if refusedAt.IsZero() || sent < 60 || sent > 120 {
		t.Fatalf("web resends: %d sent before a refusal (refused: %v); want at least 60, at most 120, then 429", sent, !refusedAt.IsZero())
	}
	code := 0
	var refusal struct{ Error, Code string }
	req, _ := http.NewRequest("POST", r.base+"/api/resendEvent", strings.NewReader(`{"docId":"`+doc+`","event":"transcript_ready"}`))
	req.Header.Set("Authorization", "Bearer "+r.key)
	if res, err := http.DefaultClient.Do(req); err == nil {
		code = res.StatusCode
		json.NewDecoder(res.Body).Decode(&refusal)
		res.Body.Close()
	}
	if code != http.StatusTooManyRequests && time.Now().Truncate(time.Minute).Equal(refusedAt.Truncate(time.Minute)) {
		t.Errorf("the API's resendEvent after the web's resends were refused answered %d; want 429 (one count per account)", code)
	} else if code == http.StatusTooManyRequests && !strings.Contains(refusal.Error, "per account") {
		t.Errorf("the API's refusal says %q", refusal.Error)
	}

	rows, payloadBytes := logged()
	if rows < 1+sent {
		t.Errorf("the log has %d rows after %d resends; want a row per attempt", rows, sent)
	}
	if payloadBytes != bytes0 {
		t.Errorf("the log's payload bytes grew from %d to %d over %d resends of one event; want one copy", bytes0, payloadBytes, sent)
	}
}

// TestTrialSecondsComeOnceTheAddressIsConfirmed signs up with a trial
// configured and e-mail sent through a real SMTP server: the account has
// no seconds until the link in the letter is opened, the link gives them
// once, and the same address, signing up again after leaving its first
// account, gets no second trial.
func TestTrialSecondsComeOnceTheAddressIsConfirmed(t *testing.T) {
	smtpd := smtptest.Start(t)
	r := newSecurityRig(t, "60", map[string]string{"HYSCRIBE_LLM_URL": "", "HYSCRIBE_TRIAL_SECONDS": "1200",
		"HYSCRIBE_SMTP_URL": smtpd.URL("hyscribe@example.am")})
	db, err := sql.Open("sqlite", filepath.Join(r.vars["HYSCRIBE_DATA_DIR"], "hyscribe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const email = "farmer@example.am"
	signUp := func(org string) {
		t.Helper()
		c := browserless(t)
		page := body(t, get(t, c, r.base+"/app/signup"))
		if !strings.Contains(page, "20 ր 00 վ") {
			t.Errorf("the sign-up page does not announce the trial: %.300s", page)
		}
		res := postForm(t, c, r.base+"/app/signup", url.Values{"_csrf": {csrfOf(t, page)}, "org": {org}, "email": {email}, "password": {rigPassword}})
		if b := body(t, res); res.StatusCode != 200 {
			t.Fatalf("sign-up of %s: %d %.300s", org, res.StatusCode, b)
		}
	}
	account := func(org string) (id string, balanceMs int64) {
		t.Helper()
		if err := db.QueryRow(`SELECT id, balance_ms FROM accounts WHERE name = ?`, org).Scan(&id, &balanceMs); err != nil {
			t.Fatalf("account %s: %v", org, err)
		}
		return id, balanceMs
	}
	link := func(n int) string {
		t.Helper()
		var found string
		waitFor(t, fmt.Sprint("confirmation letter ", n), 10*time.Second, func() (bool, string) {
			var seen []string
			for _, m := range smtpd.Messages(t) {
				if strings.Contains(m.To, email) && strings.Contains(m.Text, "/app/confirm/") {
					seen = append(seen, regexp.MustCompile(`http\S+/app/confirm/\S+`).FindString(m.Text))
				}
			}
			if len(seen) >= n {
				found = seen[n-1]
			}
			return found != "", fmt.Sprint(len(seen), " letters")
		})
		u, err := url.Parse(found)
		if err != nil {
			t.Fatal(err)
		}
		return r.base + u.Path
	}

	signUp("Farm One")
	id, before := account("Farm One")
	if before != 0 {
		t.Errorf("a sign-up has %d ms before its address is confirmed; want none", before)
	}
	confirm := link(1)
	res := get(t, browserless(t), confirm)
	if b := body(t, res); res.StatusCode != 200 || !strings.Contains(b, "20 ր 00 վ") {
		t.Errorf("the confirmation link answered %d %.300s", res.StatusCode, b)
	}
	if _, after := account("Farm One"); after != 1_200_000 {
		t.Errorf("after confirmation the account has %d ms; want the trial's 1,200,000", after)
	}
	if res := get(t, browserless(t), confirm); res.StatusCode != 404 {
		t.Errorf("the link opened again answered %d; want 404", res.StatusCode)
	}
	if _, again := account("Farm One"); again != 1_200_000 {
		t.Errorf("the link opened twice gave %d ms", again)
	}

	// The farmer leaves Farm One (a second owner removes them) and signs
	// up again: the address had its trial.
	var farmer string
	if err := db.QueryRow(`SELECT id FROM users WHERE email = ?`, email).Scan(&farmer); err != nil {
		t.Fatal(err)
	}
	pw := filepath.Join(t.TempDir(), "pw-boss")
	if err := os.WriteFile(pw, []byte(rigPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runCLI(t, env(r.vars), "user", "create", "--account", id, "--email", "boss@example.am", "--password-file", pw, "--role", "owner")
	boss := r.signIn(t, "boss@example.am", rigPassword)
	if res := r.post(t, boss, "/app/team", "/app/team/"+farmer+"/remove", url.Values{}); res.StatusCode >= 400 {
		t.Fatalf("premise: removing the farmer from Farm One answered %d", res.StatusCode)
	}
	signUp("Farm Two")
	res = get(t, browserless(t), link(2))
	if b := body(t, res); res.StatusCode != 409 || !strings.Contains(b, "trial") && !strings.Contains(b, "փորձնական") {
		t.Errorf("the second account's confirmation answered %d %.300s; want 409 saying the address had its trial", res.StatusCode, b)
	}
	if _, second := account("Farm Two"); second != 0 {
		t.Errorf("the same address got a second trial: %d ms", second)
	}
}
