package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/password"
	"github.com/hyscribe/hyscribe/adapters/web"
	"github.com/hyscribe/hyscribe/domain"
)

// childPeakRSS runs the calling test again in a child process and returns
// the child's peak resident memory in bytes; in the child it returns -1, and
// the test does its work there. The peak is the kernel's (getrusage), so
// memory that was allocated and freed between two samples still counts.
func childPeakRSS(t *testing.T) int64 {
	t.Helper()
	if os.Getenv("HYSCRIBE_RSS_CHILD") == t.Name() {
		return -1
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "HYSCRIBE_RSS_CHILD="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("child did not run the test:\n%s", out)
	}
	return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
}

func signUpForm(s *site, email string) resp {
	anon := map[string]string{"hyscribe_csrf": strings.Repeat("s", 40)}
	return s.do("POST", "/app/signup", url.Values{"_csrf": {anon["hyscribe_csrf"]}, "org": {"Org"}, "email": {email},
		"password": {"a long enough password"}}, anon)
}

func TestSignUpAnswersATakenEmailLikeANewOne(t *testing.T) {
	s := newSite(t, web.Config{SignUp: true})
	first := signUpForm(s, "taken@example.am")
	if first.code != 303 || first.header.Get("Location") != "/app/settings" || !strings.Contains(first.header.Get("Set-Cookie"), "hyscribe_session=") {
		t.Fatalf("new email: %d %v", first.code, first.header)
	}
	again := signUpForm(s, "Taken@Example.am")
	if again.code != first.code || again.header.Get("Location") != first.header.Get("Location") || again.body != first.body {
		t.Fatalf("taken email: %d %q %q, want the answer of a new one: %d %q %q", again.code, again.header.Get("Location"), again.body,
			first.code, first.header.Get("Location"), first.body)
	}
	for _, c := range again.header.Values("Set-Cookie") {
		if strings.HasPrefix(c, "hyscribe_session=") && !strings.HasPrefix(c, "hyscribe_session=;") {
			t.Fatalf("a taken email got a session: %s", c)
		}
	}
}

func TestSignUpIsRateLimitedPerAddress(t *testing.T) {
	s := newSite(t, web.Config{SignUp: true})
	for i := range 10 {
		if r := signUpForm(s, fmt.Sprintf("u%d@example.am", i)); r.code != 303 {
			t.Fatalf("sign-up %d: %d", i+1, r.code)
		}
	}
	r := signUpForm(s, "u10@example.am")
	if r.code != 429 || r.header.Get("Retry-After") == "" {
		t.Fatalf("11th sign-up in a minute: %d, Retry-After %q; want 429 with Retry-After", r.code, r.header.Get("Retry-After"))
	}
}

// TestPasswordHashingIsBoundedInMemory sends 30 sign-ins at once, each
// within the per-address limits, with the production hashing (argon2id at
// 64 MiB) behind its gate. Unbounded, they took 2 GB; the gate allows
// DefaultMemoryBudget of hashing, and those it cannot fit in time get 503
// with Retry-After.
func TestPasswordHashingIsBoundedInMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("hashes 30 passwords at 64 MiB")
	}
	if peak := childPeakRSS(t); peak >= 0 {
		t.Logf("peak RSS of 30 concurrent sign-ins: %d MiB", peak>>20)
		if limit := int64(3 * password.DefaultMemoryBudget * raceMemory); peak > limit {
			t.Fatalf("peak RSS %d MiB, want at most %d MiB", peak>>20, limit>>20)
		}
		return
	}
	s := newSiteHashing(t, web.Config{}, password.NewGate(password.Hasher{}, password.DefaultMemoryBudget, password.DefaultGateWait))
	var wg sync.WaitGroup
	codes := make([]resp, 30)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			anon := map[string]string{"hyscribe_csrf": strings.Repeat("s", 40)}
			codes[i] = s.do("POST", "/app/signin", url.Values{"_csrf": {anon["hyscribe_csrf"]}, "email": {fmt.Sprintf("p%d@example.am", i)},
				"password": {"a long enough password"}}, anon)
		}()
	}
	wg.Wait()
	for i, r := range codes {
		switch {
		case r.code == 401:
		case r.code == 503 && r.header.Get("Retry-After") != "":
		default:
			t.Errorf("sign-in %d: %d (Retry-After %q), want 401, or 503 with Retry-After", i, r.code, r.header.Get("Retry-After"))
		}
	}
}

// TestDeepMetadataRendersInLinearSize shows a recording whose metadata is
// nested 9,000 arrays deep (what creation refuses now, but a store may hold
// from before) eight times at once. Indented, one page was 162 MB.
func TestDeepMetadataRendersInLinearSize(t *testing.T) {
	if peak := childPeakRSS(t); peak >= 0 {
		t.Logf("peak RSS of 8 concurrent views: %d MiB", peak>>20)
		if limit := int64(200 << 20 * raceMemory); peak > limit {
			t.Fatalf("peak RSS %d MiB, want at most %d MiB", peak>>20, limit>>20)
		}
		return
	}
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("deep@example.am")
	meta := `{"a":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + `}`
	doc := s.job(acct, "deep", []byte("x"), meta)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := s.do("GET", "/app/recordings/"+string(doc), nil, ck)
			if r.code != 200 || len(r.body) > 64<<10+len(meta) {
				t.Errorf("page: %d, %d bytes for %d bytes of metadata", r.code, len(r.body), len(meta))
			}
		}()
	}
	wg.Wait()
}

// member adds a member to the account and returns their session cookies
// and CSRF token.
func TestMembersCannotResend(t *testing.T) {
	s := newSite(t, web.Config{})
	_, _, acct := s.signUp("owner@example.am")
	doc := s.job(acct, "t", []byte("x"), `{}`)
	sent := 0
	rcv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { sent++ }))
	defer rcv.Close()
	d := domain.Delivery{ID: "d1", EventID: "ev-1", DocID: doc, AccountID: acct, EventType: domain.EventTranscriptReady, URL: rcv.URL,
		Payload: []byte(`{}`), Status: domain.DeliveryFailed, CreatedAt: time.Now()}
	if _, err := s.store.BeginDelivery(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	ck := s.member(acct, "member@example.am")
	csrf := ck["_csrf"]
	if r := s.do("GET", "/app/recordings/"+string(doc), nil, ck); r.code != 200 || strings.Contains(r.body, `class="secondary resend"`) {
		t.Fatalf("member's recording page: %d, offers Resend: %v", r.code, strings.Contains(r.body, `class="secondary resend"`))
	}
	if r := s.do("POST", "/app/recordings/"+string(doc)+"/deliveries/d1/resend", url.Values{"_csrf": {csrf}}, ck); r.code != 403 || sent != 0 {
		t.Fatalf("member's resend: %d, %d sent; want 403 and nothing sent", r.code, sent)
	}
}

func TestCustomerTextIsShownInert(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("bidi@example.am")
	doc := s.job(acct, "t", []byte("x"), `{"file":"invoice\u202Etxt.exe","id":"A\u200B1"}`)
	r := s.do("GET", "/app/recordings/"+string(doc), nil, ck)
	r.body = strings.ReplaceAll(r.body, "&#43;", "+") // html/template's escape of +
	if r.code != 200 || strings.ContainsAny(r.body, "\u202E\u200B") || !strings.Contains(r.body, "invoice⟨U+202E⟩txt.exe") || !strings.Contains(r.body, "A⟨U+200B⟩1") {
		t.Fatalf("metadata with an override and a zero-width space: %d, raw controls in the page: %v", r.code, strings.ContainsAny(r.body, "\u202E\u200B"))
	}
	for in, want := range map[string]string{
		"plain Հայերեն":         "plain Հայերեն",
		"a\u2067b\u2069":        "a⟨U+2067⟩b⟨U+2069⟩",
		"\u200E\u200F\u061C":    "⟨U+200E⟩⟨U+200F⟩⟨U+061C⟩",
		"x\u2060y\uFEFFz\u200D": "x⟨U+2060⟩y⟨U+FEFF⟩z⟨U+200D⟩",
	} {
		if got := web.Inert(in); got != want {
			t.Errorf("Inert(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAudioRefusesAnEmptySuffixRange(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("range@example.am")
	doc := s.job(acct, "t", []byte("0123456789"), `{}`)
	for _, rng := range []string{"bytes=-0", "bytes=10-", "bytes=5-3"} {
		r := s.do("GET", "/app/recordings/"+string(doc)+"/audio", nil, ck, "Range", rng)
		if r.code != 416 || r.header.Get("Content-Range") != "bytes */10" {
			t.Errorf("Range %s: %d %q, want 416 with Content-Range bytes */10", rng, r.code, r.header.Get("Content-Range"))
		}
	}
}

func TestFormsRefuseBytesThatAreNotText(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, csrf, _ := s.signUp("forms@example.am")
	for _, name := range []string{"bad\xff", "nul\x00name", "fine"} {
		want := 400
		if name == "fine" {
			want = 303 // the same form with text is saved
		}
		r := s.do("POST", "/app/checklists", url.Values{"_csrf": {csrf}, "name": {name}, "q_id": {"q1"}, "q_text": {"Greeting?"}, "q_phrases": {"hello"}}, ck)
		if r.code != want {
			t.Errorf("checklist named %q: %d, want %d", name, r.code, want)
		}
	}
}

// TestSignUpRefusesAMultiLineOrganisationName: a name that would write
// its own lines into our letters is refused on the sign-up page, and no
// account is made.
func TestSignUpRefusesAMultiLineOrganisationName(t *testing.T) {
	s := newSite(t, web.Config{SignUp: true})
	anon := map[string]string{"hyscribe_csrf": strings.Repeat("s", 40)}
	r := s.do("POST", "/app/signup", url.Values{"_csrf": {anon["hyscribe_csrf"]}, "org": {"Acme\r\nSECURITY NOTICE: unlock at http://phish.example/unlock"},
		"email": {"phish@example.am"}, "password": {"a long enough password"}}, anon)
	if r.code != 400 || !strings.Contains(r.body, "մեկ տող") || strings.Contains(r.header.Get("Set-Cookie"), "hyscribe_session=") {
		t.Fatalf("multi-line name: %d %v, want 400 and no session", r.code, r.header)
	}
	if ok := signUpForm(s, "phish@example.am"); ok.code != 303 || !strings.Contains(ok.header.Get("Set-Cookie"), "hyscribe_session=") {
		t.Fatalf("the address was taken by the refused sign-up: %d", ok.code)
	}
}

// TestSettingsRefusesTheEleventhAPIKey: the settings page makes keys up
// to domain.MaxActiveAPIKeys active ones; the next is a 400 that says why.
func TestSettingsRefusesTheEleventhAPIKey(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, csrf, acct := s.signUp("keys@example.am")
	made := 0
	for range domain.MaxActiveAPIKeys + 1 {
		r := s.do("POST", "/app/settings/keys", url.Values{"_csrf": {csrf}}, ck)
		if r.code != 303 {
			if r.code != 400 || !strings.Contains(r.body, "10") || !strings.Contains(r.body, "API") {
				t.Fatalf("key %d: %d, want 303 or a 400 that says why", made+1, r.code)
			}
			break
		}
		made++
	}
	keys, err := s.store.ListAPIKeys(context.Background(), acct)
	if err != nil || len(keys) != domain.MaxActiveAPIKeys || made > domain.MaxActiveAPIKeys {
		t.Fatalf("%d keys made through the page, %d stored (%v); want at most %d", made, len(keys), err, domain.MaxActiveAPIKeys)
	}
}

// TestPagesShowAStoredNameOnOneLine: a name stored before names were
// checked is shown on one line, without its bidi controls, on the pages
// that show it.
func TestPagesShowAStoredNameOnOneLine(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("old@example.am")
	err := s.store.UpdateAccount(context.Background(), acct, func(a *domain.Account) error {
		a.Name = "Acme\r\nSECURITY NOTICE\u202Egnp.exe"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range []string{"/app/settings", "/app/team"} {
		body := s.do("GET", page, nil, ck).body
		if !strings.Contains(body, "Acme SECURITY NOTICE gnp.exe") || strings.Contains(body, "\u202E") || strings.Contains(body, "Acme\r\n") {
			t.Errorf("%s does not show the name on one line", page)
		}
	}
}
