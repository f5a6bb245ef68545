package browser

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/webhook"
)

// signedHook keeps each delivery whole, to check its signature.
type signedHook struct {
	mu   sync.Mutex
	reqs []signedDelivery
}

type signedDelivery struct {
	header http.Header
	body   []byte
}

func (h *signedHook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	h.reqs = append(h.reqs, signedDelivery{header: r.Header.Clone(), body: b})
	h.mu.Unlock()
}

func (h *signedHook) first() (signedDelivery, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.reqs) == 0 {
		return signedDelivery{}, false
	}
	return h.reqs[0], true
}

// TestGeneratedWebhookSecretInABrowser: an owner generates a whsec_ secret
// in Settings; it is shown once with a copy button that copies it, later
// only masked, an empty secret field keeps it, and the next delivery is
// signed with it as Standard Webhooks says and carries it in its body.
func TestGeneratedWebhookSecretInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service and a browser")
	}
	chrome := chromium(t)
	shots := screenshotDir(t)
	engine := asrtest.NewEngine(t)
	receiver := &signedHook{}
	hookSrv := httptest.NewServer(receiver)
	defer hookSrv.Close()
	s := startService(t, map[string]string{"HYSCRIBE_ASR_URL": engine.URL()})
	b := browser(t, chrome)

	accountID := signUp(t, b, s, shots, "19-signup-for-a-secret", "Կլինիկա", "it@clinic.example")
	s.cli(t, "account", "update", "--account", accountID, "--plan", "business", "--seconds", "3600")

	run(t, b, "set the receiver",
		chromedp.SendKeys("#webhookURL", hookSrv.URL+"/hooks", chromedp.ByID),
		chromedp.Click("#save-receiver", chromedp.ByID),
		chromedp.WaitVisible(".flash", chromedp.ByQuery),
	)
	var secret, copied string
	var copyHidden bool
	run(t, b, "generate a secret",
		chromedp.Click("#generate-secret", chromedp.ByID),
		chromedp.WaitVisible("#new-secret", chromedp.ByID),
		chromedp.Text("#new-secret", &secret, chromedp.ByID),
		chromedp.Evaluate(`document.querySelector('[data-copy="new-secret"]').hidden`, &copyHidden),
		// The copy button writes to the clipboard; record what it writes.
		chromedp.Evaluate(`navigator.clipboard.writeText = (t) => { window.__copied = t; return Promise.resolve(); }; true`, nil),
		chromedp.Click(`[data-copy="new-secret"]`, chromedp.ByQuery),
		chromedp.Evaluate(`window.__copied || ""`, &copied),
	)
	shoot(t, b, shots, "20-settings-new-webhook-secret")
	if !regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{43}=$`).MatchString(secret) {
		t.Fatalf("generated secret %q is not whsec_ + base64 of 32 bytes", secret)
	}
	if copyHidden || copied != secret {
		t.Fatalf("copy button hidden=%v copied %q, want the secret", copyHidden, copied)
	}

	// Shown until the owner hides it: later pages show the mask, never
	// the secret.
	mask := "whsec_••••••••" + secret[len(secret)-4:]
	var html, shown string
	run(t, b, "reload settings",
		chromedp.Click("#hide-secret", chromedp.ByID),
		chromedp.WaitNotPresent("#new-secret", chromedp.ByID),
		chromedp.Navigate(s.base+"/app/settings"),
		chromedp.WaitVisible("#secret-mask", chromedp.ByID),
		chromedp.Text("#secret-mask", &shown, chromedp.ByID),
		chromedp.OuterHTML("html", &html, chromedp.ByQuery),
	)
	if strings.Contains(html, secret[6:]) || shown != mask {
		t.Fatalf("after a reload the page shows %q (want %q) and must not hold the secret", shown, mask)
	}
	// Saving the receiver with the secret field left empty keeps the secret.
	run(t, b, "save the receiver again",
		chromedp.Click("#save-receiver", chromedp.ByID),
		chromedp.WaitVisible(".flash", chromedp.ByQuery),
		chromedp.Text("#secret-mask", &shown, chromedp.ByID),
	)
	if shown != mask {
		t.Fatalf("after saving with an empty secret field the mask is %q, want %q", shown, mask)
	}
	shoot(t, b, shots, "21-settings-webhook-secret-masked")

	// A job through the API: its delivery is signed with the secret.
	var key string
	run(t, b, "create a key", chromedp.Click("#create-key", chromedp.ByID), chromedp.WaitVisible("#new-key", chromedp.ByID), chromedp.Text("#new-key", &key, chromedp.ByID))
	code, created := api(t, "POST", s.base+"/api/createTranscription", key, []byte(`{"type":"single_voice"}`))
	if code != 200 {
		t.Fatalf("create: %d %v", code, created)
	}
	audio, err := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := api(t, "PUT", created["uploadUrl"].(string), "", audio); code != 200 {
		t.Fatalf("upload: %d", code)
	}
	eventually(t, "the transcript_ready delivery", 60*time.Second, func() bool { _, ok := receiver.first(); return ok })
	d, _ := receiver.first()
	if err := webhook.Verify(secret, d.header, d.body, time.Now(), 0); err != nil {
		t.Fatalf("the delivery is not signed with the generated secret: %v", err)
	}
	var body struct {
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal(d.body, &body); err != nil || body.Secret != secret {
		t.Fatalf("the delivery's secret field is %q, want the configured secret", body.Secret)
	}
}
