package browser

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/smtp/smtptest"
)

// linkIn is the one link to this service in an e-mail's text.
func linkIn(t *testing.T, base, text string) string {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(base)+`/app/\S+`).FindAllString(text, -1)
	if len(m) != 1 {
		t.Fatalf("want one link to %s in the e-mail, found %q in:\n%s", base, m, text)
	}
	return m[0]
}

// both4 takes a page's screenshots at 1280 and 390 px, in Armenian and
// English, as name-LANG-WIDTH.png, and leaves the browser in Armenian at
// 1280 px.
func both4(t *testing.T, b context.Context, s *service, shots, name, path string) {
	t.Helper()
	for _, lang := range []string{"en", "hy"} {
		for _, width := range []int64{390, 1280} {
			var scrollW int
			run(t, b, fmt.Sprintf("%s %s %d", name, lang, width),
				emulation.SetDeviceMetricsOverride(width, 900, 1, width < 500),
				chromedp.Navigate(s.base+"/app/lang?to="+lang+"&back="+path),
				chromedp.WaitReady("main", chromedp.ByQuery),
				chromedp.Evaluate(`document.documentElement.scrollWidth`, &scrollW),
			)
			if scrollW > int(width) {
				t.Errorf("%s at %d px (%s) is %d px wide: it scrolls sideways", name, width, lang, scrollW)
			}
			shoot(t, b, shots, fmt.Sprintf("%s-%s-%d", name, lang, width))
		}
	}
	run(t, b, "back to the desktop", emulation.ClearDeviceMetricsOverride())
}

// TestEmailAndFirstHourInABrowser: a sign-up starts with trial seconds and
// uploads at once; the recording that takes the balance under ten minutes
// shows the low-balance banner and e-mails the owner (in Armenian); an
// invitation goes by e-mail in the language the owner chose for it
// (English) and works; "Forgot password?" answers the same for a known
// and an unknown address and e-mails the known one a working reset link in
// their language. Every e-mail is read back from a real SMTP server
// (Debian's aiosmtpd).
func TestEmailAndFirstHourInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service, an SMTP server and a browser")
	}
	chrome := chromium(t)
	shots := screenshotDir(t)
	smtpd := smtptest.Start(t)
	engine := asrtest.NewEngine(t, asrtest.WithTexts("Բարև ձեզ, ես զանգում եմ պատվերի մասին։"))
	s := startService(t, map[string]string{
		"HYSCRIBE_ASR_URL":       engine.URL(),
		"HYSCRIBE_SMTP_URL":      smtpd.URL("hyscribe@example.am"),
		"HYSCRIBE_TRIAL_SECONDS": "605", "HYSCRIBE_TRIAL_UNCONFIRMED": "true", // the 5.6 s recording takes it under 600
	})
	b := browser(t, chrome)

	// The sign-up page tells the trial; the new account is on Business.
	var note string
	run(t, b, "sign-up note", chromedp.Navigate(s.base+"/app/signup"), chromedp.Text("#signup-note", &note, chromedp.ByID))
	if !strings.Contains(note, "Business") || !strings.Contains(note, "10 ր 05 վ") {
		t.Fatalf("the sign-up page says %q; want the trial (Business, 10 ր 05 վ)", note)
	}
	const owner = "lead@clinic.am"
	signUp(t, b, s, "", "", "Կլինիկա «Առողջ»", owner)
	var plan string
	run(t, b, "plan", chromedp.Text("#plan-name", &plan, chromedp.ByID))
	if !strings.HasPrefix(plan, "Business") {
		t.Fatalf("a trial sign-up's plan is %q, want Business", plan)
	}

	// The empty history points at the uploader above it, not at API keys.
	var empty string
	var banners int
	run(t, b, "empty history",
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.WaitVisible("#upload-form", chromedp.ByID),
		chromedp.Text("#no-recordings", &empty, chromedp.ByID),
		chromedp.Evaluate(`document.querySelectorAll("#low-balance").length`, &banners),
	)
	if !strings.Contains(empty, "Վերբեռնեք առաջին MP3 ֆայլը վերևում") {
		t.Errorf("the empty history of an owner says %q; want it to point at the uploader", empty)
	}
	if banners != 0 {
		t.Errorf("10:05 left: a low-balance banner is shown already")
	}

	// The first upload works at once, and takes the balance under 600 s.
	run(t, b, "upload",
		chromedp.SetUploadFiles("#files", []string{abs(t, "../../../testdata/audio/speech-mono-16k.mp3")}, chromedp.ByID),
		chromedp.Click("#upload-start", chromedp.ByID),
		chromedp.Poll(`document.querySelectorAll('#history tr[data-live-id][data-status="transcribed"]').length === 1`, nil, chromedp.WithPollingTimeout(40*time.Second)),
	)
	var banner string
	run(t, b, "banner", chromedp.Reload(), chromedp.WaitVisible("#low-balance", chromedp.ByID), chromedp.Text("#low-balance", &banner, chromedp.ByID))
	if !strings.Contains(banner, "9 ր 59 վ") || !strings.Contains(banner, "օպերատորին") {
		t.Errorf("the low-balance banner says %q; want the 9 ր 59 վ left and what to do", banner)
	}
	both4(t, b, s, shots, "mail-lowbalance", "/app/recordings")
	low := smtpd.Await(t, owner, 1, 15*time.Second)[0]
	if low.Lang != "hy" || !strings.Contains(low.Subject, "մնացել է 9 min 59 s") || !strings.Contains(low.Text, s.base+"/app/usage") {
		t.Errorf("low-balance e-mail: lang %q subject %q text:\n%s", low.Lang, low.Subject, low.Text)
	}

	// An invitation, in English as the owner chose, by e-mail.
	const invitee = "bob@clinic.am"
	var mailed string
	run(t, b, "invite",
		chromedp.Navigate(s.base+"/app/team"),
		chromedp.WaitVisible("#invite-email", chromedp.ByID),
		chromedp.SendKeys("#invite-email", invitee, chromedp.ByID),
		chromedp.SetValue("#invite-lang", "en", chromedp.ByID),
		chromedp.Click("#invite-submit", chromedp.ByID),
		chromedp.WaitVisible("#link-mailed", chromedp.ByID),
		chromedp.Text("#link-mailed", &mailed, chromedp.ByID),
	)
	if !strings.Contains(mailed, invitee) {
		t.Errorf("after inviting: %q", mailed)
	}
	inv := smtpd.Await(t, invitee, 1, 10*time.Second)[0]
	if inv.Lang != "en" || inv.Subject != "Invitation to Կլինիկա «Առողջ» on hyscribe" {
		t.Fatalf("invitation e-mail: lang %q subject %q", inv.Lang, inv.Subject)
	}
	both4(t, b, s, shots, "mail-team", "/app/team") // before the owner's reset signs this browser out
	bob := browser(t, chrome)
	var landed string
	run(t, bob, "accept the e-mailed invitation",
		chromedp.Navigate(linkIn(t, s.base, inv.Text)),
		chromedp.WaitVisible("#password", chromedp.ByID),
		chromedp.SendKeys("#password", "bob's own long password", chromedp.ByID),
		chromedp.Submit("#password", chromedp.ByID),
		chromedp.WaitVisible("#no-recordings, #history", chromedp.ByQuery),
		chromedp.Location(&landed),
	)
	if !strings.HasSuffix(landed, "/app/recordings") {
		t.Fatalf("after accepting the invitation: %s", landed)
	}

	// "Forgot password?": one answer for a known and an unknown address.
	anon := browser(t, chrome)
	forgot := func(anon context.Context, email string) string {
		t.Helper()
		var answer string
		run(t, anon, "forgot "+email,
			chromedp.Navigate(s.base+"/app/signin"),
			chromedp.Click("#forgot-link", chromedp.ByID),
			// The sign-in page has an #email too: wait for the form of
			// the page the link opens.
			chromedp.WaitVisible("#forgot-submit", chromedp.ByID),
			chromedp.SendKeys("#email", email, chromedp.ByID),
			chromedp.Click("#forgot-submit", chromedp.ByID),
			chromedp.WaitVisible("#forgot-sent", chromedp.ByID),
			chromedp.Text("main", &answer, chromedp.ByQuery),
		)
		return strings.ReplaceAll(answer, email, "EMAIL")
	}
	known, unknown := forgot(anon, owner), forgot(anon, "nobody@clinic.am")
	if known != unknown {
		t.Errorf("Forgot password? answers a known address\n%q\nand an unknown one\n%q", known, unknown)
	}
	reset := smtpd.Await(t, owner, 2, 10*time.Second)[1]
	if reset.Lang != "hy" || reset.Subject != "Գաղտնաբառի վերականգնում — hyscribe" {
		t.Fatalf("reset e-mail: lang %q subject %q", reset.Lang, reset.Subject)
	}
	run(t, anon, "reset with the e-mailed link",
		chromedp.Navigate(linkIn(t, s.base, reset.Text)),
		chromedp.WaitVisible("#reset-email", chromedp.ByID),
		chromedp.SendKeys("#password", "a brand new long password", chromedp.ByID),
		chromedp.Click("#reset", chromedp.ByID),
		chromedp.WaitVisible("#history", chromedp.ByID),
	)
	// Bob chose nothing himself: his invitation's language (English) is
	// the one his reset comes in.
	forgot(browser(t, chrome), invitee)
	if r := smtpd.Await(t, invitee, 2, 10*time.Second)[1]; r.Lang != "en" || r.Subject != "Password reset — hyscribe" {
		t.Errorf("bob's reset e-mail: lang %q subject %q", r.Lang, r.Subject)
	}
	for _, m := range smtpd.Messages(t) {
		if m.To == "nobody@clinic.am" {
			t.Errorf("an unknown address got an e-mail: %+v", m)
		}
	}
	both4(t, browser(t, chrome), s, shots, "mail-forgot", "/app/forgot")
	both4(t, browser(t, chrome), s, shots, "mail-signin", "/app/signin")
}
