package web_test

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/web"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/testenv"
)

var verifyShellRe = regexp.MustCompile(`(?s)<pre id="verify-shell">(.*?)</pre>`)

// TestTheAPIPagesSignatureRecipeVerifiesADelivery runs what the API page
// tells integrators, in both languages, on a real delivery: the account
// generates a whsec_ secret, sends a test event to a receiver, and the
// page's shell recipe, given that secret, the delivery's headers and its
// body, must print a signature the delivery's webhook-signature carries.
// The key is the base64-decoded part after "whsec_"; a recipe keyed by
// the secret's text (what the page said before) prints another one.
func TestTheAPIPagesSignatureRecipeVerifiesADelivery(t *testing.T) {
	bash := testenv.LookPath(t, "bash", "apt-get install bash")
	testenv.LookPath(t, "openssl", "apt-get install openssl")
	s := newSite(t, web.Config{})
	ck, csrf, acct := s.signUp("owner@example.am")
	ctx := context.Background()

	var mu sync.Mutex
	var header http.Header
	var body []byte
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		header, body = r.Header.Clone(), b
		mu.Unlock()
	}))
	defer rcv.Close()
	secret, err := app.NewGenerateWebhookSecret(s.store).Handle(ctx, acct, domain.RoleOwner)
	if err != nil || !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret %q: %v", secret, err)
	}
	hook := rcv.URL
	if _, err := app.NewUpdateAccount(s.store).Handle(ctx, acct, domain.RoleOwner, app.AccountChanges{WebhookURL: &hook}); err != nil {
		t.Fatal(err)
	}
	if r := s.do("POST", "/app/settings/test-event", map[string][]string{"_csrf": {csrf}}, ck); r.code != 303 {
		t.Fatalf("send test event: %d", r.code)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(body) == 0 || header.Get("webhook-signature") == "" {
		t.Fatalf("no signed delivery came: %v %q", header, body)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "body.json"), body, 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(script, secret string) string {
		t.Helper()
		cmd := exec.Command(bash, "-euo", "pipefail", "-c", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "WEBHOOK_SECRET="+secret, "WEBHOOK_ID="+header.Get("webhook-id"), "WEBHOOK_TIMESTAMP="+header.Get("webhook-timestamp"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the page's recipe:\n%s\nfails: %v\n%s", script, err, out)
		}
		return "v1," + strings.TrimSpace(string(out))
	}
	signed := func(sig string) bool {
		for _, s := range strings.Fields(header.Get("webhook-signature")) {
			if s == sig {
				return true
			}
		}
		return false
	}
	for _, lang := range []string{"hy", "en"} {
		cookies := ck
		if lang == "en" {
			cookies = en(ck)
		}
		page := s.do("GET", "/app/api", nil, cookies)
		m := verifyShellRe.FindStringSubmatch(page.body)
		if page.code != 200 || m == nil {
			t.Fatalf("%s: the API page (%d) has no shell recipe to verify a signature", lang, page.code)
		}
		script := html.UnescapeString(m[1])
		if got := run(script, secret); !signed(got) {
			t.Errorf("%s: the page's recipe prints %s; the delivery is signed %s", lang, got, header.Get("webhook-signature"))
		}
		// The old instruction, the secret's text as the key, must not pass.
		asWritten := strings.Replace(script, `"${WEBHOOK_SECRET#whsec_}" | base64 -d`, `"$WEBHOOK_SECRET"`, 1)
		if asWritten == script || signed(run(asWritten, secret)) {
			t.Errorf("%s: keyed by the secret as written, the recipe still verifies: the test cannot tell the two", lang)
		}
		if !strings.Contains(page.body, "HMAC-SHA256(key, signed)") || strings.Contains(page.body, "HMAC-SHA256(webhookSecret") {
			t.Errorf("%s: the page's formula still keys the HMAC by webhookSecret as written", lang)
		}
	}
}
