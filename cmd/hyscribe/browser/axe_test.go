package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/smtp/smtptest"
)

// axeScript is axe-core's script from the npm cache of the integrators'
// tests (HYSCRIBE_TEST_NPM, which .ci/deps.sh fills; set, a missing
// axe-core fails the test); false when HYSCRIBE_TEST_NPM is not set.
func axeScript(t *testing.T) (string, bool) {
	t.Helper()
	dir := os.Getenv("HYSCRIBE_TEST_NPM")
	if dir == "" {
		return "", false
	}
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core in HYSCRIBE_TEST_NPM=%s: %v (.ci/deps.sh installs it)", dir, err)
	}
	return string(b), true
}

// axeSource is axeScript, or the test is skipped.
func axeSource(t *testing.T) string {
	t.Helper()
	src, ok := axeScript(t)
	if !ok {
		t.Skip("HYSCRIBE_TEST_NPM is not set (make test sets it)")
	}
	return src
}

// The rule sets the browser tests run: WCAG 2 A and AA (issue 27's pages),
// and every rule (the QA pages).
const (
	axeWCAG     = `{runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}`
	axeAllRules = `{resultTypes: ["violations"]}`
)

// axeRun runs axe-core with options (a JavaScript object) on the page b
// shows and returns each violation as "rule: target".
func axeRun(t *testing.T, b context.Context, axe, options string) []string {
	t.Helper()
	var out []string
	run(t, b, "axe-core",
		chromedp.Evaluate(axe+";true", nil),
		chromedp.Evaluate(`axe.run(document, `+options+`).then(function(r){
			var out = [];
			r.violations.forEach(function(v){ v.nodes.forEach(function(n){ out.push(v.id + ": " + n.target.join(" ")); }); });
			return out;
		})`, &out, awaitPromise),
	)
	return out
}

// axeViolations runs axe-core's WCAG 2 A and AA rules on the page b shows.
func axeViolations(t *testing.T, b context.Context, axe string) []string {
	t.Helper()
	return axeRun(t, b, axe, axeWCAG)
}

// TestNoAxeViolationsOnHistorySettingsAndTeamPages runs axe-core on the
// forgot-password page, the history with the low-balance banner, bulk
// actions and a named file, a recording with its delete button, Settings
// with a new secret and a member's read-only Settings, the team page with
// e-mail and the password page, in Armenian and English, light and dark,
// at 1280 and 390 px: zero violations.
func TestNoAxeViolationsOnHistorySettingsAndTeamPages(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service and a browser")
	}
	axe := axeSource(t)
	chrome := chromium(t)
	smtpd := smtptest.Start(t)
	engine := asrtest.NewEngine(t, asrtest.WithTexts("Բարև ձեզ, ես զանգում եմ պատվերի մասին։"))
	s := startService(t, map[string]string{"HYSCRIBE_ASR_URL": engine.URL(), "HYSCRIBE_TRIAL_SECONDS": "605",
		"HYSCRIBE_SMTP_URL": smtpd.URL("hyscribe@example.am")})
	b := browser(t, chrome)
	signUp(t, b, s, "", "", "Կենտրոն", "axe@example.am")
	var recording, link string
	run(t, b, "a recording, a secret and an invitation",
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.WaitVisible("#upload-form", chromedp.ByID),
		chromedp.SetUploadFiles("#files", []string{named(t, "../../../testdata/audio/speech-mono-16k.mp3", "զանգ 1.mp3")}, chromedp.ByID),
		chromedp.Click("#upload-start", chromedp.ByID),
		chromedp.Poll(`document.querySelectorAll('#history tr[data-status="transcribed"]').length === 1`, nil, chromedp.WithPollingTimeout(40*time.Second)),
		chromedp.Evaluate(`document.querySelector("#history .title a").href`, &recording),
		chromedp.Navigate(s.base+"/app/settings"),
		chromedp.Click("#generate-secret", chromedp.ByID),
		chromedp.WaitVisible("#new-secret", chromedp.ByID),
		chromedp.Navigate(s.base+"/app/team"),
		chromedp.SendKeys("#invite-email", "member@example.am", chromedp.ByID),
		chromedp.Click("#invite-submit", chromedp.ByID),
		chromedp.WaitVisible("#one-time-link", chromedp.ByID),
		chromedp.Text("#one-time-link", &link, chromedp.ByID),
	)
	m := browser(t, chrome)
	run(t, m, "a member",
		chromedp.Navigate(link),
		chromedp.WaitVisible("#password", chromedp.ByID),
		chromedp.SendKeys("#password", "the member's password", chromedp.ByID),
		chromedp.Submit("#password", chromedp.ByID),
		chromedp.WaitVisible("#history", chromedp.ByID),
	)
	anon := browser(t, chrome)
	pages := []struct {
		ctx        context.Context
		name, path string
	}{
		{b, "history", "/app/recordings"},
		{b, "recording", strings.TrimPrefix(recording, s.base)},
		{b, "settings-secret", "/app/settings"},
		{b, "team", "/app/team"},
		{b, "password", "/app/password"},
		{m, "member-settings", "/app/settings"},
		{anon, "signin", "/app/signin"},
		{anon, "signup", "/app/signup"},
		{anon, "forgot", "/app/forgot"},
	}
	for _, c := range []context.Context{b, m, anon} {
		run(t, c, "scripts of tests may run", page.SetBypassCSP(true))
	}
	// The premise: axe-core runs and finds a violation when there is one.
	run(t, anon, "a page with a known fault", chromedp.Navigate(s.base+"/app/signin"), chromedp.WaitReady("main", chromedp.ByQuery),
		chromedp.Evaluate(`var i = document.createElement("input"); i.id = "unlabelled"; document.querySelector("main").appendChild(i); true`, nil))
	if v := axeViolations(t, anon, axe); !strings.Contains(strings.Join(v, "\n"), "label: #unlabelled") {
		t.Fatalf("axe-core missed an unlabelled input: %q", v)
	}
	for _, scheme := range []string{"light", "dark"} {
		for _, width := range []int64{1280, 390} {
			for _, lang := range []string{"hy", "en"} {
				for _, p := range pages {
					run(t, p.ctx, fmt.Sprintf("%s %s %s %d", p.name, scheme, lang, width),
						emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}),
						emulation.SetDeviceMetricsOverride(width, 900, 1, width < 500),
						chromedp.Navigate(s.base+"/app/lang?to="+lang+"&back="+p.path),
						chromedp.WaitReady("main", chromedp.ByQuery),
					)
					if v := axeViolations(t, p.ctx, axe); len(v) > 0 {
						t.Errorf("axe-core on %s (%s, %s, %d px): %q", p.name, scheme, lang, width, v)
					}
				}
			}
		}
	}
}
