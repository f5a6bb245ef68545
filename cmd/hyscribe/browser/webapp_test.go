package browser

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
)

// Probes that would run script if any page put them into HTML unescaped.
// Each sets window.__xss; the test checks it stays undefined and that the
// probe's text is shown as text.
const (
	probeTranscript = `<img src=x onerror="window.__xss='transcript'">`
	probeScript     = `<script>window.__xss='script'</script>`
	probeMetadata   = `"><svg onload="window.__xss='metadata'">`
)

var engineTexts = []string{
	"Բարև ձեզ, շնորհակալություն զանգի համար։ " + probeTranscript + " Ես զանգում եմ պատվերի մասին։",
	"Խնդրում եմ ասել պատվերի համարը։ " + probeScript,
	"Պատվերը կառաքվի վաղը առավոտյան։",
	"Շնորհակալություն, ցտեսություն։",
}

// TestWebApplicationInABrowser is issue 6's walk through the web
// application, as a call centre's QA lead would do it, in Chromium:
// sign up → the operator enables the account → set the receiver → create a
// key → write a checklist → a recording sent through the API with that key
// → watch it in the history → open its page → play from a line → read the
// analysis → resend the webhook → revoke the key → the API answers 401.
// A second account cannot open the first one's page, and nothing a
// customer sent runs as script.
func TestWebApplicationInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service and a browser")
	}
	chrome := chromium(t)
	shots := screenshotDir(t)
	engine := asrtest.NewEngine(t, asrtest.WithTexts(engineTexts...))
	receiver := &hook{}
	hookSrv := httptest.NewServer(receiver)
	defer hookSrv.Close()
	s := startService(t, map[string]string{"HYSCRIBE_ASR_URL": engine.URL()})
	b := browser(t, chrome)

	// Sign up. New accounts start on the free plan with no seconds.
	accountID := signUp(t, b, s, shots, "01-signup", "Զանգերի կենտրոն «Արև»", "qa.lead@example.am")
	var plan string
	run(t, b, "read the plan", chromedp.Text("#plan-name", &plan, chromedp.ByID))
	if !strings.HasPrefix(plan, "Անվճար (") { // the plan in words, in the page's language
		t.Fatalf("a new account's plan is %q, want the free plan in words", plan)
	}
	// The operator moves it to Business with an hour of audio.
	s.cli(t, "account", "update", "--account", accountID, "--plan", "business", "--seconds", "3600")

	// Receiver settings and a key.
	run(t, b, "save the receiver",
		chromedp.Reload(),
		chromedp.WaitVisible("#webhookURL", chromedp.ByID),
		chromedp.SendKeys("#webhookURL", hookSrv.URL+"/hooks", chromedp.ByID),
		chromedp.SendKeys("#webhookSecret", "whsec-test", chromedp.ByID),
		chromedp.Click("#save-receiver", chromedp.ByID),
		chromedp.WaitVisible(".flash", chromedp.ByQuery),
	)
	var key string
	run(t, b, "create a key",
		chromedp.Click("#create-key", chromedp.ByID),
		chromedp.WaitVisible("#new-key", chromedp.ByID),
		chromedp.Text("#new-key", &key, chromedp.ByID),
		chromedp.Text("#plan-name", &plan, chromedp.ByID),
	)
	if !strings.HasPrefix(key, "hsk_") || !strings.HasPrefix(plan, "Business (") { // the plan in words, not "business"
		t.Fatalf("key %q, plan %q", key, plan)
	}
	shoot(t, b, shots, "02-settings-new-key")
	// Shown once: a reload shows only its prefix.
	var html string
	run(t, b, "reload settings", chromedp.Navigate(s.base+"/app/settings"), chromedp.OuterHTML("main", &html, chromedp.ByQuery))
	if strings.Contains(html, key) || !strings.Contains(html, key[:10]) {
		t.Fatalf("after a reload the settings page must list the key's prefix %q but never the key", key[:10])
	}

	// A checklist, written in the editor.
	run(t, b, "write a checklist",
		chromedp.Navigate(s.base+"/app/checklists/new"),
		chromedp.WaitVisible("#name", chromedp.ByID),
		chromedp.SendKeys("#name", "Զանգի որակ", chromedp.ByID),
		chromedp.SendKeys("#q_id-0", "thanks", chromedp.ByID),
		chromedp.SendKeys("#q_text-0", "Օպերատորը շնորհակալություն հայտնե՞ց", chromedp.ByID),
		chromedp.SendKeys("#q_expect-0", "շնորհակալություն", chromedp.ByID),
		chromedp.SendKeys("#q_id-1", "order", chromedp.ByID),
		chromedp.SendKeys("#q_text-1", "Պատվերի համարը հարցվե՞ց", chromedp.ByID),
		chromedp.SendKeys("#q_expect-1", "պատվերի համարը", chromedp.ByID),
	)
	shoot(t, b, shots, "03-checklist-editor")
	var checklistID string
	run(t, b, "save the checklist",
		chromedp.Click("#save-checklist", chromedp.ByID),
		chromedp.WaitVisible("#checklist-list", chromedp.ByID),
		chromedp.Text("#checklist-list code", &checklistID, chromedp.ByQuery),
	)
	shoot(t, b, shots, "04-checklists")

	// A recording through the API, with the key from the page.
	meta, _ := json.Marshal(map[string]string{"agent": probeMetadata, "crm": probeScript})
	body, _ := json.Marshal(map[string]any{"type": "single_voice", "checklistId": checklistID, "metadata": json.RawMessage(meta)})
	code, created := api(t, "POST", s.base+"/api/createTranscription", key, body)
	if code != 200 {
		t.Fatalf("createTranscription with the key from the page: %d %v", code, created)
	}
	docID := created["docId"].(string)
	audio, err := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}

	// The history shows it before the upload, and its status changes live,
	// without reloading the page.
	row := `tr[data-live-id="` + docID + `"]`
	run(t, b, "see the job waiting for its upload",
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.WaitVisible(row+`[data-status="uploading"]`, chromedp.ByQuery),
		chromedp.Evaluate(`window.__marker = "same page"`, nil),
	)
	if code, _ := api(t, "PUT", created["uploadUrl"].(string), "", audio); code != 200 {
		t.Fatalf("upload: %d", code)
	}
	var marker string
	run(t, b, "watch the status change live",
		chromedp.WaitVisible(row+`[data-status="transcribed"]`, chromedp.ByQuery),
		chromedp.Evaluate(`window.__marker || ""`, &marker),
	)
	if marker != "same page" {
		t.Fatal("the history reloaded instead of updating in place")
	}
	shoot(t, b, shots, "05-history")

	// The recording's page, reached from the history.
	run(t, b, "open the recording",
		chromedp.Click(row+` a`, chromedp.ByQuery),
		chromedp.WaitVisible("#transcript", chromedp.ByID),
		chromedp.WaitVisible("#q-thanks", chromedp.ByID), // the analysis
	)
	var loc string
	run(t, b, "location", chromedp.Location(&loc))
	// The events' link, with the list's place for the next and previous
	// call (issue 36) in its query.
	if page, _, _ := strings.Cut(loc, "?"); page != s.base+"/app/recordings/"+docID {
		t.Fatalf("the history links to %s, want the events' link %s", loc, s.base+"/app/recordings/"+docID)
	}
	_, polled := api(t, "GET", s.base+"/api/getTranscription?docId="+docID, key, nil)
	var title, transcript, metaText, thanks string
	var turns int
	run(t, b, "read the page",
		chromedp.Text("#title", &title, chromedp.ByID),
		chromedp.Text("#transcript", &transcript, chromedp.ByID),
		chromedp.Text("#metadata", &metaText, chromedp.ByID),
		chromedp.Text("#q-thanks", &thanks, chromedp.ByID),
		chromedp.Evaluate(`document.querySelectorAll("#transcript .turn").length`, &turns),
	)
	if want := polled["title"].(string); strings.TrimSpace(title) != want {
		t.Errorf("page title %q, API title %q", title, want)
	}
	for _, probe := range []string{probeTranscript, probeScript} {
		if !strings.Contains(transcript, probe) {
			t.Errorf("the transcript does not show %q as text:\n%s", probe, transcript)
		}
	}
	if !strings.Contains(metaText, "svg onload") || !strings.Contains(metaText, "<script>") {
		t.Errorf("metadata not shown as text: %s", metaText)
	}
	if !strings.Contains(thanks, "Այո") {
		t.Errorf("checklist answer for 'thanks': %q, want Այո (yes)", thanks)
	}
	if turns < 2 {
		t.Fatalf("%d transcript lines, want the engine's segments", turns)
	}
	shoot(t, b, shots, "06-recording")

	// Play from the second line: the player jumps to its time and plays.
	var start, at float64
	var paused bool
	run(t, b, "play from a line",
		chromedp.Evaluate(`parseFloat(document.querySelectorAll("#transcript [data-start]")[1].getAttribute("data-start"))`, &start),
		chromedp.Click(`#transcript .turn:nth-child(2) [data-start]`, chromedp.ByQuery),
		chromedp.Poll(`(function(){var a=document.getElementById("player");return !a.paused && a.currentTime>0;})()`, nil, chromedp.WithPollingTimeout(15*time.Second)),
		chromedp.Evaluate(`document.getElementById("player").currentTime`, &at),
		chromedp.Evaluate(`document.getElementById("player").paused`, &paused),
	)
	if at < start-0.05 || at > start+5 || paused {
		t.Fatalf("after clicking the line at %.2fs the player is at %.2fs (paused %v)", start, at, paused)
	}
	// The line's words seek too, not only its time (the README says a
	// line plays from its start; issue 36).
	run(t, b, "play from a line's words",
		chromedp.Evaluate(`(function(){var a=document.getElementById("player"); a.pause(); a.currentTime=0; return true;})()`, nil),
		chromedp.Poll(`document.getElementById("player").currentTime < 0.05`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Click(`#transcript .turn:nth-child(2) .text`, chromedp.ByQuery),
		chromedp.Poll(`(function(){var a=document.getElementById("player");return !a.paused && a.currentTime>0;})()`, nil, chromedp.WithPollingTimeout(15*time.Second)),
		chromedp.Evaluate(`document.getElementById("player").currentTime`, &at),
	)
	if at < start-0.05 || at > start+5 {
		t.Fatalf("after clicking the words of the line at %.2fs the player is at %.2fs", start, at)
	}

	// Webhooks: transcript_ready and analysis_ready arrived; resend the
	// first and the receiver gets it again under the same webhook-id.
	eventually(t, "transcript_ready and analysis_ready", 20*time.Second, func() bool { return len(receiver.got()) >= 2 })
	first := receiver.got()[0]
	run(t, b, "see the deliveries", chromedp.Reload(), chromedp.WaitVisible("#delivery-log", chromedp.ByID))
	var resentRows int
	run(t, b, "resend",
		chromedp.Click(`tr[data-delivery] .resend`, chromedp.ByQuery),
		chromedp.WaitVisible("tr.delivery.resent", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("#delivery-log tbody tr").length`, &resentRows),
	)
	got := receiver.got()
	if len(got) != 3 || got[2].ID != first.ID || got[2].Event != first.Event || got[2].DocID != docID {
		t.Fatalf("after Resend the receiver got %+v; want a third request repeating %+v", got, first)
	}
	if resentRows != 3 {
		t.Errorf("the delivery log shows %d rows, want 3 (two events and the resend)", resentRows)
	}
	shoot(t, b, shots, "07-recording-resent")

	// Analytics (from the store: ClickHouse is not configured here).
	var passRates string
	run(t, b, "analytics",
		chromedp.Navigate(s.base+"/app/analytics"),
		chromedp.WaitVisible("#pass-rates", chromedp.ByID),
		chromedp.Text("#pass-rates", &passRates, chromedp.ByID),
	)
	if !strings.Contains(passRates, "100%") {
		t.Errorf("pass rates: %q", passRates)
	}
	shoot(t, b, shots, "08-analytics")

	// Edit the checklist: a third question added with the button, tried
	// on the recording with Preview (nothing saved), then saved as v2.
	var preview, version string
	run(t, b, "preview an edited checklist",
		chromedp.Navigate(s.base+"/app/checklists/"+checklistID),
		chromedp.WaitVisible("#preview", chromedp.ByID),
		chromedp.Click("#add-question", chromedp.ByID),
		chromedp.WaitVisible("#q_text-5", chromedp.ByID),
		chromedp.SendKeys("#q_text-5", "Զանգի նպատակը նշվե՞ց", chromedp.ByID),
		chromedp.SendKeys("#q_expect-5", "զանգում եմ", chromedp.ByID),
		chromedp.SetValue("#preview_doc", docID, chromedp.ByID),
		chromedp.Click("#preview", chromedp.ByID),
		chromedp.WaitVisible("#preview-result", chromedp.ByID),
		chromedp.Text("#preview-result", &preview, chromedp.ByID),
	)
	if !strings.Contains(preview, "Զանգի նպատակը նշվե՞ց") || strings.Count(preview, "Այո") != 3 {
		t.Fatalf("preview of three questions, all answered yes by the transcript:\n%s", preview)
	}
	shoot(t, b, shots, "08b-checklist-preview")
	run(t, b, "save the edit",
		chromedp.Click("#save-checklist", chromedp.ByID),
		chromedp.WaitVisible("#checklist-list", chromedp.ByID),
		chromedp.Text(`tr[data-checklist="`+checklistID+`"] td:nth-child(3)`, &version, chromedp.ByQuery),
	)
	if strings.TrimSpace(version) != "2" {
		t.Fatalf("after an edit the checklist is at version %q, want 2", version)
	}

	// The English interface, and a phone-sized screen.
	// The Armenian page has #transcript too: wait for the English one.
	run(t, b, "switch to English", chromedp.Navigate(s.base+"/app/recordings/"+docID), chromedp.Click(`a[lang="en"]`, chromedp.ByQuery), chromedp.WaitVisible(`html[lang="en"] #transcript`, chromedp.ByQuery))
	var h2 string
	run(t, b, "english text", chromedp.Text("#h-transcript", &h2, chromedp.ByID))
	if h2 != "Transcript" {
		t.Errorf("English heading %q", h2)
	}
	run(t, b, "phone", emulation.SetDeviceMetricsOverride(390, 844, 3, true), chromedp.Reload(), chromedp.WaitVisible("#transcript", chromedp.ByID))
	// Usable on a phone: nothing wider than the screen, on every page.
	for _, p := range []string{"/app/recordings/" + docID, "/app/recordings", "/app/settings", "/app/checklists/new", "/app/analytics"} {
		var scrollW, viewW int
		run(t, b, "phone "+p, chromedp.Navigate(s.base+p), chromedp.WaitReady("main", chromedp.ByQuery),
			chromedp.Evaluate(`document.documentElement.scrollWidth`, &scrollW), chromedp.Evaluate(`document.documentElement.clientWidth`, &viewW))
		if scrollW > 390 {
			t.Errorf("on a 390 px screen %s is %d px wide (client width %d): it scrolls sideways", p, scrollW, viewW)
		}
	}
	run(t, b, "phone recording", chromedp.Navigate(s.base+"/app/recordings/"+docID), chromedp.WaitVisible("#transcript", chromedp.ByID))
	shoot(t, b, shots, "09-recording-phone-en")
	run(t, b, "desktop", emulation.ClearDeviceMetricsOverride())

	// No probe ran on any page.
	var xss string
	for _, p := range []string{"/app/recordings", "/app/recordings/" + docID, "/app/settings", "/app/checklists", "/app/analytics"} {
		run(t, b, "probe "+p, chromedp.Navigate(s.base+p), chromedp.WaitReady("body", chromedp.ByQuery), chromedp.Sleep(200*time.Millisecond),
			chromedp.Evaluate(`String(window.__xss || "")`, &xss))
		if xss != "" {
			t.Fatalf("a probe ran as script on %s: %s", p, xss)
		}
	}

	// Revoke the key: the API refuses it from the next request.
	run(t, b, "revoke the key",
		chromedp.Navigate(s.base+"/app/settings"),
		chromedp.Click(".revoke", chromedp.ByQuery),
		chromedp.WaitVisible("#key-list .status-failed", chromedp.ByQuery),
	)
	if code, body := api(t, "GET", s.base+"/api/getTranscription?docId="+docID, key, nil); code != 401 {
		t.Fatalf("the revoked key still works: %d %v", code, body)
	}
	shoot(t, b, shots, "10-settings-revoked")

	// Another account sees the same 404 as for a page that does not exist.
	other := browser(t, chrome)
	var otherText, missingText string
	run(t, other, "second account",
		chromedp.Navigate(s.base+"/app/signup"),
		chromedp.WaitVisible("#org", chromedp.ByID),
		chromedp.SendKeys("#org", "Other", chromedp.ByID),
		chromedp.SendKeys("#email", "someone@else.am", chromedp.ByID),
		chromedp.SendKeys("#password", "another long password", chromedp.ByID),
		chromedp.Click("#signup", chromedp.ByID),
		chromedp.WaitVisible("#account-id", chromedp.ByID),
		chromedp.Navigate(s.base+"/app/recordings/"+docID),
		chromedp.WaitVisible("#page-error", chromedp.ByID),
		chromedp.Text("main", &otherText, chromedp.ByQuery),
		chromedp.Navigate(s.base+"/app/recordings/no-such-doc"),
		chromedp.WaitVisible("#page-error", chromedp.ByID),
		chromedp.Text("main", &missingText, chromedp.ByQuery),
	)
	if otherText != missingText || strings.Contains(otherText, title) {
		t.Fatalf("another account's view of the page differs from a missing page's:\n%q\n%q", otherText, missingText)
	}
	shoot(t, other, shots, "11-other-account-404")
	// Its audio too.
	var audioStatus int
	run(t, other, "other account's audio", chromedp.Evaluate(`fetch("/app/recordings/`+docID+`/audio").then(r => r.status)`, &audioStatus, awaitPromise))
	if audioStatus != 404 {
		t.Fatalf("another account's audio: %d, want 404", audioStatus)
	}

	// Signed out, the page asks to sign in and then returns to it.
	run(t, b, "sign out", chromedp.Click("#signout", chromedp.ByID), chromedp.WaitVisible("#signin", chromedp.ByID))
	run(t, b, "sign in again",
		chromedp.Navigate(s.base+"/app/recordings/"+docID),
		chromedp.WaitVisible("#signin", chromedp.ByID),
		chromedp.SendKeys("#email", "qa.lead@example.am", chromedp.ByID),
		chromedp.SendKeys("#password", "a long enough password", chromedp.ByID),
		chromedp.Click("#signin", chromedp.ByID),
		chromedp.WaitVisible("#transcript", chromedp.ByID),
		chromedp.Location(&loc),
	)
	if loc != s.base+"/app/recordings/"+docID {
		t.Fatalf("after signing in the browser is at %s, want the recording", loc)
	}
	t.Logf("screenshots in %s", shots)
}

func awaitPromise(p *runtimeEvaluateParams) *runtimeEvaluateParams { return p.WithAwaitPromise(true) }
