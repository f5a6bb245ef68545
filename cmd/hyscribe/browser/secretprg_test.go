package browser

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
)

// TestSecretAndTestEventPostRedirectGet: generating a webhook secret and
// sending a test event each answer with a redirect, so a reload neither
// rotates the secret (silently invalidating a copy already pasted) nor
// sends the event again; the new secret is shown at the top of the page,
// in view, survives a language switch until the owner hides it, and its
// copy button is labelled for the secret and confirms "✓ Copied", as the
// transcript's and the team's one-time link's do.
func TestSecretAndTestEventPostRedirectGet(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service and a browser")
	}
	chrome := chromium(t)
	shots := screenshotDir(t)
	engine := asrtest.NewEngine(t)
	receiver := &signedHook{}
	hookSrv := httptest.NewServer(receiver)
	defer hookSrv.Close()
	s := startService(t, map[string]string{"HYSCRIBE_ASR_URL": engine.URL(), "HYSCRIBE_TRIAL_SECONDS": "3600"})
	b := browser(t, chrome)
	signUp(t, b, s, "", "", "Կլինիկա", "secret@clinic.example")
	run(t, b, "set the receiver",
		chromedp.SendKeys("#webhookURL", hookSrv.URL+"/hooks", chromedp.ByID),
		chromedp.Click("#save-receiver", chromedp.ByID),
		chromedp.WaitVisible("#receiver-saved", chromedp.ByID),
	)

	var secret, again, label, copied, loc string
	var top float64
	run(t, b, "generate a secret",
		chromedp.Click("#generate-secret", chromedp.ByID),
		chromedp.WaitVisible("#new-secret", chromedp.ByID),
		chromedp.Text("#new-secret", &secret, chromedp.ByID),
		chromedp.Location(&loc),
		chromedp.Evaluate(`document.getElementById("new-secret-box").getBoundingClientRect().top`, &top),
		chromedp.Text("#copy-secret", &label, chromedp.ByID),
	)
	if !strings.HasSuffix(loc, "/app/settings#new-secret-box") {
		t.Errorf("after generating, the browser is at %s: want a redirect to the settings page", loc)
	}
	if top < 0 || top > 400 {
		t.Errorf("the new secret is %v px from the top of the window: want it where the eye is", top)
	}
	if label != "Պատճենել գաղտնիքը" {
		t.Errorf("the secret's copy button says %q", label)
	}
	shoot(t, b, shots, "prg-01-secret-shown")
	run(t, b, "reload and switch language",
		chromedp.Reload(),
		chromedp.WaitVisible("#new-secret", chromedp.ByID),
		chromedp.Click(`header a[lang="en"]`, chromedp.ByQuery),
		// The Armenian page has #new-secret too: wait for the English one.
		chromedp.WaitVisible(`html[lang="en"] #new-secret`, chromedp.ByQuery),
		chromedp.Text("#new-secret", &again, chromedp.ByID),
		chromedp.Text("#copy-secret", &label, chromedp.ByID),
		chromedp.Evaluate(`navigator.clipboard.writeText = (t) => { window.__copied = t; return Promise.resolve(); }; true`, nil),
		chromedp.Click("#copy-secret", chromedp.ByID),
		chromedp.Poll(`document.getElementById("copy-secret").textContent.indexOf("✓") === 0`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Evaluate(`window.__copied || ""`, &copied),
	)
	if again != secret || copied != secret || label != "Copy secret" {
		t.Fatalf("after a reload and a language switch the page shows %q (first %q), the button %q copied %q", again, secret, label, copied)
	}
	both4(t, b, s, shots, "prg-secret", "/app/settings")

	// Send test event, then reload: one event.
	run(t, b, "send a test event",
		chromedp.Navigate(s.base+"/app/settings"),
		chromedp.Click("#send-test", chromedp.ByID),
		chromedp.WaitVisible("#test-result", chromedp.ByID),
		chromedp.Location(&loc),
		chromedp.Reload(),
		chromedp.WaitVisible("#test-result", chromedp.ByID),
	)
	if !strings.HasSuffix(loc, "/app/settings#receiver") {
		t.Errorf("after Send test event the browser is at %s: want a redirect", loc)
	}
	// The test event is delivered before its POST answers, so had the
	// reload sent the form again, its request would be in by now that the
	// reloaded page shows.
	receiver.mu.Lock()
	n := len(receiver.reqs)
	receiver.mu.Unlock()
	if n != 1 {
		t.Fatalf("the receiver got %d test events after a send and a reload, want 1", n)
	}
	// #secret-mask is on the page before Hide too, so wait for the page
	// Hide loads: the one without the secret (run fails the test if it
	// never comes). A query waits across the form's post and redirect; a
	// chromedp.Poll would start in the old page and fail when it goes.
	var masked bool
	run(t, b, "hide the secret",
		chromedp.Click("#hide-secret", chromedp.ByID),
		chromedp.WaitNotPresent("#new-secret", chromedp.ByID),
		chromedp.WaitVisible("#secret-mask", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("secret-mask").textContent.length > 0`, &masked),
	)
	if !masked {
		t.Fatal("after Hide the page shows no masked secret")
	}

	// The transcript's and the one-time link's copy buttons confirm too.
	run(t, b, "team link copy",
		chromedp.Navigate(s.base+"/app/team"),
		chromedp.SendKeys("#invite-email", "new@clinic.example", chromedp.ByID),
		chromedp.Click("#invite-submit", chromedp.ByID),
		chromedp.WaitVisible("#copy-link", chromedp.ByID),
		chromedp.Text("#copy-link", &label, chromedp.ByID),
		chromedp.Evaluate(`navigator.clipboard.writeText = (t) => { window.__copied = t; return Promise.resolve(); }; true`, nil),
		chromedp.Click("#copy-link", chromedp.ByID),
		chromedp.Poll(`document.getElementById("copy-link").textContent.indexOf("✓") === 0`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Text("#copy-link", &copied, chromedp.ByID),
	)
	if label != "Պատճենել հղումը" || copied != "✓ Պատճենված է" { // both4 left the page in Armenian
		t.Errorf("the one-time link's copy button says %q, then %q", label, copied)
	}
}
