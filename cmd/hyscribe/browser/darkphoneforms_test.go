package browser

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
)

// TestDarkModePhoneLayoutAndFormChecksInABrowser checks in Chromium:
// dark mode follows prefers-color-scheme; on a phone the header and the
// filters start folded; at 1280 px the Armenian header keeps one line and
// the filters' selects show their words whole; a member's Settings look
// read-only; the owner's own Team row offers no Remove or Reset; a
// password change refuses the same password and a mistyped repetition; a
// from-after-to date range says so; a bad metadata line is named; and an
// organisation name of 200 Armenian letters is accepted.
func TestDarkModePhoneLayoutAndFormChecksInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service and a browser")
	}
	chrome := chromium(t)
	shots := screenshotDir(t)
	engine := asrtest.NewEngine(t, asrtest.WithTexts("Բարև ձեզ, ես զանգում եմ պատվերի մասին։"))
	s := startService(t, map[string]string{"HYSCRIBE_ASR_URL": engine.URL(), "HYSCRIBE_TRIAL_SECONDS": "3600"})
	b := browser(t, chrome)
	org := strings.Repeat("Ա", 200)
	signUp(t, b, s, "", "", org, "owner@example.am")

	// A recording, so the history has rows and filters to fold.
	run(t, b, "upload",
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.WaitVisible("#upload-form", chromedp.ByID),
		chromedp.SetUploadFiles("#files", []string{abs(t, "../../../testdata/audio/speech-mono-16k.mp3")}, chromedp.ByID),
		chromedp.Click("#upload-start", chromedp.ByID),
		chromedp.Poll(`document.querySelectorAll('#history tr[data-status="transcribed"]').length === 1`, nil, chromedp.WithPollingTimeout(40*time.Second)),
	)

	// A bad metadata line is named.
	var refused string
	run(t, b, "bad metadata",
		chromedp.Reload(),
		chromedp.WaitVisible("#upload-form", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("new-recording").open = true`, nil),
		chromedp.SendKeys("#up-metadata", "crmId = B-77\nagent Anna", chromedp.ByID),
		chromedp.SetUploadFiles("#files", []string{abs(t, "../../../testdata/audio/speech-mono-16k.mp3")}, chromedp.ByID),
		chromedp.Click("#upload-start", chromedp.ByID),
		chromedp.WaitVisible(`#upload-list [data-result="refused"]`, chromedp.ByQuery),
		chromedp.Text(`#upload-list [data-result="refused"] .state`, &refused, chromedp.ByQuery),
	)
	if !strings.Contains(refused, "2-րդ տողը («agent Anna»)") {
		t.Errorf("a bad metadata line is refused with %q; want it named", refused)
	}

	// From after to.
	var dateErr string
	run(t, b, "from after to",
		chromedp.Navigate(s.base+"/app/recordings?from=2026-03-10&to=2026-03-01"),
		chromedp.WaitVisible("#page-error", chromedp.ByID),
		chromedp.Text("#page-error", &dateErr, chromedp.ByID),
	)
	if !strings.Contains(dateErr, "2026-03-10") || !strings.Contains(dateErr, "2026-03-01") {
		t.Errorf("a from-after-to range says %q", dateErr)
	}

	// 1280 px, Armenian: the header on one line, the selects' words whole.
	var navTops int
	var headerH float64
	var cut []string
	var widths string
	run(t, b, "header at 1280",
		emulation.SetDeviceMetricsOverride(1280, 900, 1, false),
		chromedp.Navigate(s.base+"/app/recordings?type=phone_call"),
		chromedp.WaitVisible("#history", chromedp.ByID),
		chromedp.Evaluate(`Array.from(document.querySelector("header.top").children).map(function(e){return e.tagName+e.className+":"+Math.round(e.getBoundingClientRect().width);}).join(" ")`, &widths),
		chromedp.Evaluate(`new Set(Array.from(document.querySelectorAll("header nav a, header .right > *")).map(function(e){return Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height/2);})).size`, &navTops),
		chromedp.Evaluate(`document.querySelector("header.top").getBoundingClientRect().height`, &headerH),
		chromedp.Evaluate(`Array.from(document.querySelectorAll(".filters select")).filter(function(s){
			var c = document.createElement("canvas").getContext("2d"); c.font = getComputedStyle(s).font;
			var w = c.measureText(s.options[s.selectedIndex].text).width;
			var cs = getComputedStyle(s);
			return w > s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) + 1;
		}).map(function(s){ return s.id + ": " + s.options[s.selectedIndex].text; })`, &cut),
	)
	if navTops > 2 || headerH > 70 {
		t.Errorf("at 1280 px the Armenian header is %v px high with items on %d lines; want one line (%s)", headerH, navTops, widths)
	}
	t.Logf("header widths at 1280: %s", widths)
	if len(cut) > 0 {
		t.Errorf("at 1280 px these selects cut their text: %q", cut)
	}
	shoot(t, b, shots, "small-header-hy-1280")

	// A phone: the header and the filters folded; a button opens each.
	var phoneHeader float64
	var filtersShown, navShown bool
	run(t, b, "phone",
		emulation.SetDeviceMetricsOverride(390, 844, 2, true),
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.WaitVisible(".menu-toggle", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector("header.top").getBoundingClientRect().height`, &phoneHeader),
		chromedp.Evaluate(`document.getElementById("status").getClientRects().length > 0`, &filtersShown),
	)
	if phoneHeader > 80 || filtersShown {
		t.Errorf("on a phone the header is %v px high and the filters shown: %v; want both folded", phoneHeader, filtersShown)
	}
	shoot(t, b, shots, "small-phone-folded-hy-390")
	run(t, b, "open them",
		chromedp.Click(".menu-toggle", chromedp.ByQuery),
		chromedp.Click(".filters-toggle", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector("header nav").getClientRects().length > 0`, &navShown),
		chromedp.Evaluate(`document.getElementById("status").getClientRects().length > 0`, &filtersShown),
	)
	if !navShown || !filtersShown {
		t.Errorf("after pressing the buttons: menu shown %v, filters shown %v", navShown, filtersShown)
	}
	shoot(t, b, shots, "small-phone-open-hy-390")
	run(t, b, "desktop", emulation.ClearDeviceMetricsOverride())

	// Dark mode.
	var bg string
	run(t, b, "dark mode",
		emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}),
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.WaitVisible("#history", chromedp.ByID),
		chromedp.Evaluate(`getComputedStyle(document.documentElement).backgroundColor`, &bg),
	)
	if bg != "rgb(17, 21, 26)" {
		t.Errorf("with prefers-color-scheme: dark the page's background is %s", bg)
	}
	for _, p := range []string{"/app/recordings", "/app/settings"} {
		both4(t, b, s, shots, "small-dark"+strings.ReplaceAll(p, "/", "-"), p)
	}
	run(t, b, "light again", emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "light"}}))

	// The owner's own row: no Remove, no Reset.
	var ownButtons, otherButtons int
	var link string
	run(t, b, "team",
		chromedp.Navigate(s.base+"/app/team"),
		chromedp.SendKeys("#invite-email", "member@example.am", chromedp.ByID),
		chromedp.Click("#invite-submit", chromedp.ByID),
		chromedp.WaitVisible("#one-time-link", chromedp.ByID),
		chromedp.Text("#one-time-link", &link, chromedp.ByID),
		chromedp.Evaluate(`document.querySelectorAll('tr[data-user="owner@example.am"] .remove, tr[data-user="owner@example.am"] .reset-link').length`, &ownButtons),
		chromedp.Evaluate(`document.querySelectorAll('tr[data-user="member@example.am"] .remove, tr[data-user="member@example.am"] .reset-link').length`, &otherButtons),
	)
	if ownButtons != 0 || otherButtons != 2 {
		t.Errorf("the owner's own row has %d Remove/Reset buttons (want 0), the member's %d (want 2)", ownButtons, otherButtons)
	}

	// Password change: the same password, a mistyped repetition.
	change := func(current, next, confirm string) string {
		var msg string
		run(t, b, "change password",
			chromedp.Navigate(s.base+"/app/password"),
			chromedp.SendKeys("#current", current, chromedp.ByID),
			chromedp.SendKeys("#password", next, chromedp.ByID),
			chromedp.SendKeys("#confirm", confirm, chromedp.ByID),
			chromedp.Click("#change-password", chromedp.ByID),
			chromedp.WaitVisible("#page-error, .flash", chromedp.ByQuery),
			chromedp.Text("main", &msg, chromedp.ByQuery),
		)
		return msg
	}
	if msg := change("a long enough password", "a long enough password", "a long enough password"); !strings.Contains(msg, "նույնն է") {
		t.Errorf("the same password again: %q", clip(msg, 200))
	}
	if msg := change("a long enough password", "a brand new password", "a brand new passwork"); !strings.Contains(msg, "չեն համընկնում") {
		t.Errorf("a mistyped repetition: %q", clip(msg, 200))
	}
	if msg := change("a long enough password", "a brand new password", "a brand new password"); strings.Contains(msg, "նույնն է") || strings.Contains(msg, "չեն համընկնում") {
		t.Errorf("a good change: %q", clip(msg, 200))
	}

	// A member's Settings look read-only.
	m := browser(t, chrome)
	var dashed, disabled bool
	var note string
	run(t, m, "member settings",
		chromedp.Navigate(link),
		chromedp.WaitVisible("#password", chromedp.ByID),
		chromedp.SendKeys("#password", "the member's password", chromedp.ByID),
		chromedp.Submit("#password", chromedp.ByID),
		chromedp.WaitVisible("#history", chromedp.ByID), // signed in, on the history
		chromedp.Navigate(s.base+"/app/settings"),
		chromedp.WaitVisible("#readonly-note", chromedp.ByID),
		chromedp.Text("#readonly-note", &note, chromedp.ByID),
		chromedp.Evaluate(`getComputedStyle(document.getElementById("webhookURL")).borderTopStyle === "dashed"`, &dashed),
		chromedp.Evaluate(`document.getElementById("webhookURL").matches(":disabled")`, &disabled),
	)
	if !dashed || !disabled || note == "" {
		t.Errorf("a member's settings: dashed %v, disabled %v, note %q", dashed, disabled, note)
	}
	both4(t, m, s, shots, "small-member-settings", "/app/settings")
	t.Logf("screenshots in %s", shots)
}
