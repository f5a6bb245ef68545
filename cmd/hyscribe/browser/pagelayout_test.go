package browser

import (
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
)

// brokenWords is a script that returns the words (up to 5) of the page's
// text laid out on two lines: a word broken mid-word.
const brokenWords = `(function(){
  var out = [], walker = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
  var range = document.createRange();
  while (walker.nextNode() && out.length < 5) {
    var n = walker.currentNode, re = /\S+/g, m;
    if (!n.parentElement || n.parentElement.closest("pre, code, .url, .key, td.title, .snippet, option, script")) continue;
    while ((m = re.exec(n.data)) && out.length < 5) {
      if (m[0].length < 4) continue;
      range.setStart(n, m.index); range.setEnd(n, m.index + m[0].length);
      var tops = {}, rects = range.getClientRects();
      for (var i = 0; i < rects.length; i++) if (rects[i].width > 0) tops[Math.round(rects[i].top)] = true;
      if (Object.keys(tops).length > 1) out.push(m[0]);
    }
  }
  return out;
})()`

// collisions is a script that returns the responsive-table cells (up to 5)
// whose content is wider than the cell: a label running into its value.
const collisions = `(function(){
  var out = [];
  document.querySelectorAll("table.responsive td").forEach(function (td) {
    if (out.length < 5 && td.scrollWidth > td.clientWidth + 1) out.push(td.getAttribute("data-label") + ": " + td.textContent.trim().slice(0, 40));
  });
  return out;
})()`

// inView is a script template: whether the element %s is in the viewport.
const inView = `(function(){var e=document.querySelector(%q); if(!e) return false; var r=e.getBoundingClientRect(); return r.bottom>0 && r.top<window.innerHeight;})()`

// TestPagesFormsSearchAndPlaybackInABrowser checks, in Chromium: key creation survives
// a reload without minting a key, Send test event, confirmations in view,
// Add question's numbering, search with Armenian spellings and metadata
// with highlighted snippets, failed jobs and refused uploads with their
// reason, the sticky player with speed and the line following playback,
// copying a line, English speaker labels, and the layout at 1280 and
// 390 px. Screenshots: fix-*.png.
func TestPagesFormsSearchAndPlaybackInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service and a browser")
	}
	chrome := chromium(t)
	shots := screenshotDir(t)
	engine := asrtest.NewEngine(t, asrtest.WithSpeakers("A", "B"), asrtest.WithTexts(
		"Բարև ձեզ, զանգում եմ Երևանից։", "Ուզում եմ պատվեր տալ։", "Խնդրում եմ ասել հասցեն։", "Շնորհակալություն, ցտեսություն։"))
	receiver := &hook{}
	hookSrv := httptest.NewServer(receiver)
	defer hookSrv.Close()
	s := startService(t, map[string]string{"HYSCRIBE_ASR_URL": engine.URL(), "HYSCRIBE_WEB_TIMEZONE": "Asia/Yerevan"})
	b := browser(t, chrome)
	both := func(name string) { // a screenshot at 1280 and at 390 px
		t.Helper()
		shoot(t, b, shots, name+"-1280")
		run(t, b, "phone "+name, emulation.SetDeviceMetricsOverride(390, 844, 2, true), chromedp.Reload(), chromedp.WaitReady("main", chromedp.ByQuery))
		var bad []string
		run(t, b, "collisions "+name, chromedp.Evaluate(collisions, &bad))
		if len(bad) > 0 {
			t.Errorf("%s on a phone: cells whose content overflows: %q", name, bad)
		}
		shoot(t, b, shots, name+"-390")
		run(t, b, "desktop "+name, emulation.ClearDeviceMetricsOverride(), chromedp.Reload(), chromedp.WaitReady("main", chromedp.ByQuery))
		run(t, b, "broken words "+name, chromedp.Evaluate(brokenWords, &bad))
		if len(bad) > 0 {
			t.Errorf("%s at 1280 px breaks words mid-word: %q", name, bad)
		}
	}
	visible := func(what, sel string) {
		t.Helper()
		var ok bool
		run(t, b, what, chromedp.Evaluate(fmt.Sprintf(inView, sel), &ok))
		if !ok {
			t.Errorf("%s: %s is not in view", what, sel)
		}
	}

	// Sign up; the operator enables the account.
	accountID := signUp(t, b, s, "", "", "Կենտրոն", "fixes@example.am")
	s.cli(t, "account", "update", "--account", accountID, "--plan", "business", "--seconds", "3600")

	// Empty states say what to do next.
	for _, p := range []string{"/app/recordings", "/app/checklists", "/app/analytics"} {
		var next int
		run(t, b, "empty "+p, chromedp.Navigate(s.base+p), chromedp.WaitVisible(".empty", chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelectorAll(".empty a, .empty p").length`, &next))
		if next < 2 {
			t.Errorf("the empty state of %s offers no next step", p)
		}
	}
	run(t, b, "empty history", chromedp.Navigate(s.base+"/app/recordings"), chromedp.WaitVisible("#no-recordings #empty-upload", chromedp.ByQuery)) // the uploader above, not API keys (issue 27)
	both("fix-01-history-empty")

	// A key: post/redirect/get. A reload neither shows it again nor makes
	// another key.
	var key, loc string
	run(t, b, "create a key",
		chromedp.Navigate(s.base+"/app/settings"),
		chromedp.Click("#create-key", chromedp.ByID),
		chromedp.WaitVisible("#new-key", chromedp.ByID),
		chromedp.Text("#new-key", &key, chromedp.ByID),
		chromedp.Location(&loc),
	)
	if !strings.HasPrefix(key, "hsk_") || !strings.HasPrefix(loc, s.base+"/app/settings?") {
		t.Fatalf("new key %q shown at %s; want it on the settings page reached by a redirect", key, loc)
	}
	visible("the new key after creating it", "#new-key")
	var copyLabel string
	run(t, b, "copy label", chromedp.Text(`[data-copy="new-key"]`, &copyLabel, chromedp.ByQuery))
	if !strings.Contains(copyLabel, "Պատճենել") {
		t.Errorf("the copy button of an Armenian page reads %q", copyLabel)
	}
	shoot(t, b, shots, "fix-02-settings-key-1280")
	var rows int
	var html string
	run(t, b, "reload after creating a key", chromedp.Reload(), chromedp.WaitVisible("#key-list", chromedp.ByID),
		chromedp.Evaluate(`document.querySelectorAll("#key-list tbody tr").length`, &rows), chromedp.OuterHTML("main", &html, chromedp.ByQuery))
	if rows != 1 || strings.Contains(html, key) {
		t.Fatalf("after a reload: %d keys listed (want 1), key shown again: %v", rows, strings.Contains(html, key))
	}

	// Send test event: first without a receiver, then with one; the result
	// and the saved receiver's confirmation are in view.
	run(t, b, "test event without a receiver", chromedp.Click("#send-test", chromedp.ByID), chromedp.WaitVisible("#test-result.error", chromedp.ByQuery))
	visible("the refusal of a test event", "#test-result")
	run(t, b, "save the receiver",
		chromedp.SendKeys("#webhookURL", hookSrv.URL+"/hooks", chromedp.ByID),
		chromedp.SendKeys("#webhookSecret", "whsec-fixes", chromedp.ByID),
		chromedp.Click("#save-receiver", chromedp.ByID),
		chromedp.WaitVisible("#receiver-saved", chromedp.ByID),
	)
	visible("the receiver's confirmation", "#receiver-saved")
	run(t, b, "send a test event", chromedp.Click("#send-test", chromedp.ByID), chromedp.WaitVisible("#test-result .delivery-delivered", chromedp.ByQuery))
	visible("the test event's result", "#test-result")
	if got := receiver.got(); len(got) != 1 || got[0].Event != "test" {
		t.Fatalf("the receiver got %+v, want one test event", got)
	}
	both("fix-03-settings-test-event")

	// The checklist editor: Add question numbers the new block.
	var legend string
	run(t, b, "add a question",
		chromedp.Navigate(s.base+"/app/checklists/new"),
		chromedp.WaitVisible("#name", chromedp.ByID),
		chromedp.Click("#add-question", chromedp.ByID),
		chromedp.WaitVisible("#q_text-3", chromedp.ByID),
		chromedp.Text("#questions fieldset:nth-child(4) legend", &legend, chromedp.ByQuery),
	)
	if !strings.HasSuffix(strings.TrimSpace(legend), " 4") {
		t.Errorf("the added block is labelled %q, want question 4", legend)
	}
	run(t, b, "write a checklist",
		chromedp.SendKeys("#name", "Որակ", chromedp.ByID),
		chromedp.SendKeys("#q_id-0", "zeta", chromedp.ByID),
		chromedp.SendKeys("#q_text-0", "Ողջունե՞ց", chromedp.ByID),
		chromedp.SendKeys("#q_expect-0", "բարև", chromedp.ByID),
		chromedp.SendKeys("#q_id-1", "alpha", chromedp.ByID),
		chromedp.SendKeys("#q_text-1", "Հասցեն հարցվե՞ց", chromedp.ByID),
		chromedp.SendKeys("#q_expect-1", "հասցեն", chromedp.ByID),
		chromedp.Click("#save-checklist", chromedp.ByID),
		chromedp.WaitVisible("#checklist-list", chromedp.ByID),
	)
	var checklistID string
	run(t, b, "checklist id", chromedp.Text("#checklist-list code", &checklistID, chromedp.ByQuery))

	// Recordings through the API: a phone call with a CRM id, a file that is
	// not MP3, and a job whose upload is refused (empty).
	call := func(typ, meta string) (string, string) {
		body := fmt.Sprintf(`{"type":%q,"checklistId":%q,"metadata":%s}`, typ, checklistID, meta)
		code, created := api(t, "POST", s.base+"/api/createTranscription", key, []byte(body))
		if code != 200 {
			t.Fatalf("createTranscription: %d %v", code, created)
		}
		return created["docId"].(string), created["uploadUrl"].(string)
	}
	audio, err := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	junk, err := os.ReadFile("../../../testdata/audio/random.bin")
	if err != nil {
		t.Fatal(err)
	}
	goodID, goodURL := call("phone_call", `{"crmId":"B-77"}`)
	badID, badURL := call("single_voice", `{}`)
	waitID, waitURL := call("single_voice", `{}`)
	run(t, b, "history", chromedp.Navigate(s.base+"/app/recordings"), chromedp.WaitVisible(`tr[data-live-id="`+waitID+`"]`, chromedp.ByQuery))
	for _, up := range []struct {
		url  string
		body []byte
		want int
	}{{goodURL, audio, 200}, {badURL, junk, 200}, {waitURL, []byte{}, 400}} {
		if code, body := api(t, "PUT", up.url, "", up.body); code != up.want {
			t.Fatalf("upload: %d %v, want %d", code, body, up.want)
		}
	}
	row := func(id string) string { return `tr[data-live-id="` + id + `"]` }
	var badReason, waitReason string
	run(t, b, "statuses and reasons, live",
		chromedp.WaitVisible(row(goodID)+`[data-status="transcribed"]`, chromedp.ByQuery),
		chromedp.WaitVisible(row(badID)+`[data-status="failed"] .reason`, chromedp.ByQuery),
		chromedp.WaitVisible(row(waitID)+` .reason`, chromedp.ByQuery),
		chromedp.Text(row(badID)+` .reason`, &badReason, chromedp.ByQuery),
		chromedp.Text(row(waitID)+` .reason`, &waitReason, chromedp.ByQuery),
	)
	// Armenian pages say why in Armenian (issue 27: by the reason's code).
	if !strings.Contains(badReason, "MP3") || !strings.Contains(waitReason, "դատարկ") {
		t.Errorf("reasons in the history: failed %q, refused upload %q", badReason, waitReason)
	}
	var waitStatus string
	run(t, b, "refused upload waits", chromedp.AttributeValue(row(waitID), "data-status", &waitStatus, nil, chromedp.ByQuery))
	if waitStatus != "uploading" {
		t.Errorf("a refused upload moved the job to %s; it should still wait", waitStatus)
	}
	var durations []string
	run(t, b, "durations", chromedp.Evaluate(`Array.from(document.querySelectorAll('[data-field="duration"]')).map(e => e.textContent.trim()).filter(s => s !== "—")`, &durations))
	for _, d := range durations {
		if !strings.Contains(d, ":") {
			t.Errorf("duration %q is not m:ss", d)
		}
	}
	both("fix-04-history-reasons")

	// Search: either spelling of "ev", capitals, metadata values; the match
	// is marked in a snippet.
	for q, want := range map[string]string{"ԵՐԵՎԱՆ": "Երևան", "երեվան": "Երևան", "ԵՐԵՒԱՆ": "Երևան", "Բարեւ": "Բարև", "b-77": "B-77"} {
		var n int
		var marked string
		run(t, b, "search "+q,
			chromedp.Navigate(s.base+"/app/recordings?q="+q),
			chromedp.WaitVisible("#history", chromedp.ByID),
			chromedp.Evaluate(`document.querySelectorAll("#history tbody tr").length`, &n),
			chromedp.Text(row(goodID)+" mark", &marked, chromedp.ByQuery),
		)
		if n != 1 || marked != want {
			t.Errorf("search %q: %d rows, marked %q; want the call with %q marked", q, n, marked, want)
		}
	}
	// The screenshot: the marked title and, below it, the transcript's
	// snippet around the match.
	var snippet string
	run(t, b, "search snippet", chromedp.Navigate(s.base+"/app/recordings?q=ԵՐԵՎԱՆ"), chromedp.WaitVisible("#history", chromedp.ByID),
		chromedp.Text(row(goodID)+" .snippet mark", &snippet, chromedp.ByQuery))
	if snippet != "Երևան" {
		t.Errorf("search ԵՐԵՎԱՆ: the transcript's snippet marks %q, want Երևան", snippet)
	}
	both("fix-05-history-search")

	// A failed job: its reason, and no player that cannot play.
	var players int
	var jobErr string
	run(t, b, "failed recording", chromedp.Navigate(s.base+"/app/recordings/"+badID), chromedp.WaitVisible("#job-error", chromedp.ByID),
		chromedp.Text("#job-error", &jobErr, chromedp.ByID), chromedp.Evaluate(`document.querySelectorAll("audio").length`, &players))
	if players != 0 || !strings.Contains(jobErr, "MP3") {
		t.Errorf("failed recording: %d players, reason %q", players, jobErr)
	}
	both("fix-06-recording-failed")
	run(t, b, "refused upload", chromedp.Navigate(s.base+"/app/recordings/"+waitID), chromedp.WaitVisible("#job-error", chromedp.ByID), chromedp.Text("#job-error", &jobErr, chromedp.ByID))
	if !strings.Contains(jobErr, "դատարկ") {
		t.Errorf("refused upload's page: %q", jobErr)
	}

	// The call's page: answers in the author's order, the sticky player,
	// speed, the line following playback, copying a line.
	run(t, b, "open the call", chromedp.Navigate(s.base+"/app/recordings/"+goodID), chromedp.WaitVisible("#transcript", chromedp.ByID), chromedp.WaitVisible("#q-zeta", chromedp.ByID))
	var order []string
	run(t, b, "answer order", chromedp.Evaluate(`Array.from(document.querySelectorAll("#analysis tbody tr")).map(r => r.id)`, &order))
	if strings.Join(order, ",") != "q-zeta,q-alpha" {
		t.Errorf("answers in order %v, want the author's q-zeta, q-alpha", order)
	}
	var copied string
	run(t, b, "copy a line", chromedp.Evaluate(`(function(){var s=window.getSelection(); s.selectAllChildren(document.querySelector("#transcript .turn .text")); var t=s.toString(); s.removeAllRanges(); return t;})()`, &copied))
	if !strings.HasPrefix(copied, "Խոսնակ 1: ") {
		t.Errorf("a copied line reads %q, want the label, its colon and a space", copied)
	}
	var second float64
	var playing string
	var rate float64
	run(t, b, "play and follow",
		chromedp.WaitVisible("#speed", chromedp.ByID),
		chromedp.SetValue("#speed", "1.5", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("speed").dispatchEvent(new Event("change"))`, nil),
		chromedp.Evaluate(`parseFloat(document.querySelectorAll("#transcript .turn")[1].getAttribute("data-from"))`, &second),
		chromedp.Evaluate(`(function(){var a=document.getElementById("player"); a.currentTime=parseFloat(document.querySelectorAll("#transcript .turn")[1].getAttribute("data-from"))+0.1; var p=a.play(); if(p&&p.catch)p.catch(function(){}); return true;})()`, nil),
		chromedp.WaitVisible("#transcript .turn.playing", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector("#transcript .turn.playing").getAttribute("data-from")`, &playing),
		chromedp.Evaluate(`document.getElementById("player").playbackRate`, &rate),
	)
	if playing != fmt.Sprintf("%.2f", second) && playing < fmt.Sprintf("%.2f", second) {
		t.Errorf("while playing from %.2f the marked line starts at %s", second, playing)
	}
	if rate != 1.5 {
		t.Errorf("playback rate %v after choosing 1.5", rate)
	}
	var top float64
	run(t, b, "scroll while reading", chromedp.Evaluate(`window.scrollTo(0, document.body.scrollHeight); true`, nil),
		chromedp.Poll(`window.scrollY > 0`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Evaluate(`document.getElementById("player").getBoundingClientRect().top`, &top))
	var ok bool
	run(t, b, "player in view", chromedp.Evaluate(fmt.Sprintf(inView, "#player"), &ok))
	if !ok || top < 0 {
		t.Errorf("scrolled down, the player is at %.0f px: it does not stay in view", top)
	}
	run(t, b, "pause", chromedp.Evaluate(`document.getElementById("player").pause(); window.scrollTo(0,0); true`, nil))
	both("fix-07-recording")

	// English: speaker labels, times with their zone, the analytics page
	// without internal names.
	// The Armenian page has #transcript too: wait for the English one.
	run(t, b, "english", chromedp.Click(`a[lang="en"]`, chromedp.ByQuery), chromedp.WaitVisible(`html[lang="en"] #transcript`, chromedp.ByQuery))
	var speaker, details, evidence string
	run(t, b, "english labels", chromedp.Text("#transcript .speaker", &speaker, chromedp.ByQuery), chromedp.Text("#h-details + dl", &details, chromedp.ByQuery),
		chromedp.Text("#analysis", &evidence, chromedp.ByID))
	if speaker != "Speaker 1:" || !strings.Contains(details, "UTC+4") {
		t.Errorf("English page: speaker %q, details %q (want Speaker 1: and a time with UTC+4)", speaker, details)
	}
	if strings.Contains(evidence, "Խոսնակ") || !strings.Contains(evidence, "Speaker 1:") {
		t.Errorf("English page: the evidence's speaker is not in English: %q", clip(evidence, 300))
	}
	_, polled := api(t, "GET", s.base+"/api/getTranscription?docId="+goodID, key, nil)
	if tr, _ := polled["transcription"].(string); !strings.Contains(tr, "Խոսնակ 1:") {
		t.Errorf("the API's transcription lost the spec's label: %q", tr)
	}
	var analytics string
	run(t, b, "analytics", chromedp.Navigate(s.base+"/app/analytics"), chromedp.WaitVisible("#source", chromedp.ByID), chromedp.Text("main", &analytics, chromedp.ByQuery))
	if strings.Contains(analytics, "ClickHouse") {
		t.Errorf("analytics names an internal part: %q", clip(analytics, 300))
	}
	both("fix-08-analytics-en")

	// The preview's result is in view after it runs.
	run(t, b, "preview", chromedp.Navigate(s.base+"/app/checklists/"+checklistID), chromedp.WaitVisible("#preview", chromedp.ByID),
		chromedp.SetValue("#preview_doc", goodID, chromedp.ByID), chromedp.Click("#preview", chromedp.ByID), chromedp.WaitVisible("#preview-result", chromedp.ByID))
	visible("the preview's result", "#preview-result")
	shoot(t, b, shots, "fix-09-checklist-preview-1280")
	t.Logf("screenshots in %s", shots)
}
