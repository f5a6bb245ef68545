package browser

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
)

// TestScoringInABrowser walks issue 36's "not scored" in Chromium: a mono
// call whose agent nobody named answers its agent-only questions
// "unclear", and the history and its page say "Not scored · needs speaker
// names" instead of "0/2 · 0.00"; the history's checkbox finds it; naming
// the speakers analyses it again and gives it a score; Analytics shows the
// named agent's row. Every page at 1280 and 390 px in both languages, with
// axe-core finding nothing. Screenshots: scoring-*.png.
func TestScoringInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service and a browser")
	}
	chrome := chromium(t)
	axe := axeSource(t)
	shots := screenshotDir(t)
	engine := asrtest.NewEngine(t)
	s := startService(t, map[string]string{"HYSCRIBE_ASR_URL": engine.URL()})
	b := browser(t, chrome)

	lang := func(to, back string) {
		t.Helper()
		run(t, b, "language "+to, chromedp.Navigate(s.base+"/app/lang?to="+to+"&back="+back), chromedp.WaitReady("main", chromedp.ByQuery))
	}
	every := func(name string) {
		t.Helper()
		shoot(t, b, shots, name+"-1280")
		if v := axeRun(t, b, axe, axeAllRules); len(v) > 0 {
			t.Errorf("%s at 1280 px: axe-core violations: %q", name, v)
		}
		run(t, b, "phone "+name, emulation.SetDeviceMetricsOverride(390, 844, 2, true), chromedp.Reload(), chromedp.WaitReady("main", chromedp.ByQuery))
		var bad []string
		run(t, b, "collisions "+name, chromedp.Evaluate(collisions, &bad))
		if len(bad) > 0 {
			t.Errorf("%s on a phone: cells whose content overflows: %q", name, bad)
		}
		shoot(t, b, shots, name+"-390")
		if v := axeRun(t, b, axe, axeAllRules); len(v) > 0 {
			t.Errorf("%s at 390 px: axe-core violations: %q", name, v)
		}
		run(t, b, "desktop "+name, emulation.ClearDeviceMetricsOverride(), chromedp.Reload(), chromedp.WaitReady("main", chromedp.ByQuery))
	}
	bothLangs := func(name, path string) {
		t.Helper()
		run(t, b, "open "+path, chromedp.Navigate(s.base+path), chromedp.WaitReady("main", chromedp.ByQuery))
		every(name + "-hy")
		lang("en", path)
		every(name + "-en")
		lang("hy", path)
	}

	accountID := signUp(t, b, s, "", "", "Որակի թիմ", "score@example.am")
	s.cli(t, "account", "update", "--account", accountID, "--plan", "business", "--seconds", "3600")
	def := filepath.Join(t.TempDir(), "checklist.json")
	if err := os.WriteFile(def, []byte(`{"name":"Օպերատորի որակ","questions":[
		{"id":"greet","text":"Օպերատորը բարևե՞ց","expect":["բարև"],"role":"agent"},
		{"id":"order","text":"Օպերատորը խոսե՞ց պատվերի մասին","expect":["պատվեր"],"role":"agent"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	checklistID := s.cli(t, "checklist", "create", "--account", accountID, "--file", def)["checklistId"].(string)
	var key string
	run(t, b, "key",
		chromedp.Navigate(s.base+"/app/settings"),
		chromedp.Click("#create-key", chromedp.ByID),
		chromedp.WaitVisible("#new-key", chromedp.ByID),
		chromedp.Text("#new-key", &key, chromedp.ByID),
	)
	code, created := api(t, "POST", s.base+"/api/createTranscription", key, []byte(fmt.Sprintf(`{"type":"phone_call","checklistId":%q}`, checklistID)))
	if code != 200 {
		t.Fatalf("createTranscription: %d %v", code, created)
	}
	callID := created["docId"].(string)
	audio, err := os.ReadFile("../../../testdata/audio/call-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	if code, body := api(t, "PUT", created["uploadUrl"].(string), "", audio); code != 200 {
		t.Fatalf("upload: %d %v", code, body)
	}

	row := `tr[data-live-id="` + callID + `"] [data-field="checklist"]`
	var cell string
	lang("en", "/app/recordings")
	run(t, b, "the checklist column",
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.Poll(`(function(){var c=document.querySelector('`+row+`'); return c && !c.hasAttribute("data-awaits");})()`, nil,
			chromedp.WithPollingTimeout(60*time.Second)),
		chromedp.Text(row, &cell, chromedp.ByQuery),
	)
	if cell != "Not scored · needs speaker names" {
		t.Fatalf("the history's checklist column reads %q, want Not scored · needs speaker names (it read 0/2 · 0.00)", cell)
	}
	var rows int
	run(t, b, "the needs-names filter",
		chromedp.Click("#needs", chromedp.ByID),
		// The filtered page itself, not the form just ticked: the old page
		// is marked, and a navigation still under way would be aborted by
		// the next one.
		chromedp.Evaluate(`document.body.setAttribute("data-before-apply", ""); true`, nil),
		chromedp.Click("#apply", chromedp.ByID),
		chromedp.WaitReady(`body:not([data-before-apply]) #needs:checked`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("#history tbody tr").length`, &rows),
	)
	if rows != 1 {
		t.Errorf("needs speaker names lists %d rows, want the call", rows)
	}
	lang("hy", "/app/recordings")
	bothLangs("scoring-01-history-needs-names", "/app/recordings?needs=names")
	var total string
	run(t, b, "the page", chromedp.Navigate(s.base+"/app/recordings/"+callID), chromedp.WaitVisible("#call-score", chromedp.ByID),
		chromedp.Text("#call-score", &total, chromedp.ByID))
	if !strings.Contains(total, "Չգնահատված") || strings.Contains(total, "0/2") {
		t.Errorf("the Armenian page's call score reads %q, want not scored", total)
	}
	bothLangs("scoring-02-recording-not-scored", "/app/recordings/"+callID)

	// Naming speaker 1 the agent analyses the call again: now it has a score.
	run(t, b, "name the agent",
		chromedp.Navigate(s.base+"/app/recordings/"+callID),
		chromedp.WaitVisible("#role1", chromedp.ByID),
		chromedp.SetValue("#role1", "agent", chromedp.ByID),
		chromedp.SendKeys("#name1", "Անի", chromedp.ByID),
		chromedp.SetValue("#role2", "customer", chromedp.ByID),
		chromedp.Click("#save-speakers", chromedp.ByID),
		chromedp.WaitVisible("#speakers-saved", chromedp.ByID),
		chromedp.Text("#call-score", &total, chromedp.ByID),
	)
	if strings.Contains(total, "Չգնահատված") || !strings.Contains(total, "/2 · ") {
		t.Errorf("after naming the agent the call score reads %q, want a score of 2 answered", total)
	}
	bothLangs("scoring-03-recording-named", "/app/recordings/"+callID)

	var agents string
	run(t, b, "analytics", chromedp.Navigate(s.base+"/app/analytics?checklist="+checklistID), chromedp.WaitVisible("#agents", chromedp.ByID),
		chromedp.Text("#agents", &agents, chromedp.ByID))
	if !strings.Contains(agents, "Անի") {
		t.Errorf("Analytics' agents table lacks the named agent:\n%s", agents)
	}
	bothLangs("scoring-04-analytics", "/app/analytics?checklist="+checklistID)
}
