package browser

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
)

// TestQATeamRolesInABrowser: an owner invites a QA analyst in English from
// an Armenian page; the invitation opens in English; the analyst reads a
// checklist's questions (no editor) and cannot open the team's or keys'
// controls; the pages this touches (team, checklists, a checklist's
// questions, a call, usage, settings, the API page, the invitation) are
// shot in both languages at 1280 and 390 px and never scroll sideways.
func TestQATeamRolesInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service and a browser")
	}
	chrome := chromium(t)
	shots := screenshotDir(t)
	engine := asrtest.NewEngine(t)
	s := startService(t, map[string]string{"HYSCRIBE_ASR_URL": engine.URL()})
	b := browser(t, chrome)
	accountID := signUp(t, b, s, "", "", "Որակի թիմ", "lead@example.am")
	s.cli(t, "account", "update", "--account", accountID, "--plan", "business", "--seconds", "3600")
	def := filepath.Join(t.TempDir(), "qa.json")
	if err := os.WriteFile(def, []byte(`{"name":"Զանգի որակ","questions":[{"id":"greet","text":"Օպերատորը բարևե՞ց","expect":["բարև"],"role":"agent"},{"id":"thanks","text":"Շնորհակալություն հայտնե՞ց","expect":["շնորհակալ"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	checklistID := s.cli(t, "checklist", "create", "--account", accountID, "--file", def)["checklistId"].(string)

	// A mono call, uploaded from the browser.
	run(t, b, "upload a call",
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.WaitVisible("#upload-form", chromedp.ByID),
		chromedp.SetValue("#up-checklist", checklistID, chromedp.ByID),
		chromedp.SetUploadFiles("#files", []string{abs(t, "../../../testdata/audio/speech-mono-16k.mp3")}, chromedp.ByID),
		chromedp.Click("#upload-start", chromedp.ByID),
		// A mono phone call may fail (its speakers cannot be told apart
		// without a diarizer): that page is one this work changed too.
		chromedp.Poll(`document.querySelectorAll('#history tr[data-live-id][data-status="transcribed"], #history tr[data-live-id][data-status="failed"]').length === 1`, nil, chromedp.WithPollingTimeout(40*time.Second)),
	)
	var callPath string
	run(t, b, "the call's link", chromedp.AttributeValue(`#history tr[data-live-id] a[href^="/app/recordings/"]`, "href", &callPath, nil, chromedp.ByQuery))

	// A second call is measured and then refused by the engine: it failed
	// (not "was not processed") and has no title (not "no title yet").
	engine.Respond(func(asrtest.Request) (asrtest.Response, int) { return asrtest.Response{}, http.StatusBadRequest })
	var failedPath, failedTitle string
	run(t, b, "upload a call the engine refuses",
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.Click("#new-recording-toggle", chromedp.ByID), // folded once there are recordings
		chromedp.WaitVisible("#upload-form", chromedp.ByID),
		chromedp.SetUploadFiles("#files", []string{abs(t, "../../../testdata/audio/speech-mono-16k.mp3")}, chromedp.ByID),
		chromedp.Click("#upload-start", chromedp.ByID),
		chromedp.Poll(`document.querySelectorAll('#history tr[data-live-id][data-status="failed"]').length === 1`, nil, chromedp.WithPollingTimeout(60*time.Second)),
		chromedp.AttributeValue(`#history tr[data-live-id][data-status="failed"] a[href^="/app/recordings/"]`, "href", &failedPath, nil, chromedp.ByQuery),
		chromedp.Navigate(s.base+"/app/lang?to=en&back=/app/recordings"),
		chromedp.WaitVisible("#history", chromedp.ByID),
	)
	run(t, b, "the failed call's page", chromedp.Navigate(s.base+failedPath), chromedp.WaitVisible("#title", chromedp.ByID), chromedp.Text("main", &failedTitle, chromedp.ByQuery))
	if strings.Contains(failedTitle, "no title yet") || strings.Contains(failedTitle, "not processed") || !strings.Contains(failedTitle, "the recording failed") {
		t.Errorf("the measured, failed call's page says:\n%s", failedTitle)
	}
	both4(t, b, s, shots, "roles-call-failed", failedPath)

	// The owner, on an Armenian page, invites an analyst in English.
	var link string
	run(t, b, "invite an analyst",
		chromedp.Navigate(s.base+"/app/lang?to=hy&back=/app/team"),
		chromedp.WaitVisible("#invite-email", chromedp.ByID),
		chromedp.SendKeys("#invite-email", "analyst@example.am", chromedp.ByID),
		chromedp.SetValue("#invite-role", "analyst", chromedp.ByID),
		chromedp.SetValue("#invite-lang", "en", chromedp.ByID),
		chromedp.Click("#invite-submit", chromedp.ByID),
		chromedp.WaitVisible("#one-time-link", chromedp.ByID),
		chromedp.Text("#one-time-link", &link, chromedp.ByID),
	)
	both4(t, b, s, shots, "roles-team-owner", "/app/team")
	for _, p := range []struct{ name, path string }{{"roles-usage", "/app/usage"}, {"roles-settings", "/app/settings"}, {"roles-api", "/app/api"}, {"roles-call-owner", callPath}} {
		both4(t, b, s, shots, p.name, p.path)
	}

	analyst := browser(t, chrome)
	var htmlLang string
	run(t, analyst, "open the invitation",
		chromedp.Navigate(s.base+link[strings.Index(link, "/app/"):]),
		chromedp.WaitVisible("#password", chromedp.ByID),
		chromedp.AttributeValue("html", "lang", &htmlLang, nil, chromedp.ByQuery),
	)
	if htmlLang != "en" {
		t.Fatalf("an English invitation opens a %q page", htmlLang)
	}
	shoot(t, analyst, shots, "roles-invite-en-1280")
	run(t, analyst, "accept",
		chromedp.SendKeys("#password", "the analyst's long password", chromedp.ByID),
		chromedp.Submit("#password", chromedp.ByID),
		chromedp.WaitVisible("#history", chromedp.ByID),
		chromedp.AttributeValue("html", "lang", &htmlLang, nil, chromedp.ByQuery),
	)
	if htmlLang != "en" {
		t.Errorf("after accepting the English invitation the page is %q", htmlLang)
	}
	var questions, editors int
	run(t, analyst, "read the checklist",
		chromedp.Navigate(s.base+"/app/checklists"),
		chromedp.Click(`a.read-checklist`, chromedp.ByQuery),
		chromedp.WaitVisible("#checklist-questions", chromedp.ByID),
		chromedp.Evaluate(`document.querySelectorAll("#checklist-questions tbody tr").length`, &questions),
		chromedp.Evaluate(`document.querySelectorAll("#checklist-form, #invite-email").length`, &editors),
	)
	if questions != 2 || editors != 0 {
		t.Fatalf("the analyst's checklist page: %d questions, %d editors", questions, editors)
	}
	var inviteForms int
	run(t, analyst, "the analyst's team page", chromedp.Navigate(s.base+"/app/team"), chromedp.WaitVisible("#team-list", chromedp.ByID),
		chromedp.Evaluate(`document.querySelectorAll("#invite-email, .set-role, .remove").length`, &inviteForms))
	if inviteForms != 0 {
		t.Errorf("the analyst is offered %d team controls", inviteForms)
	}
	both4(t, analyst, s, shots, "roles-checklists-analyst", "/app/checklists")
	both4(t, analyst, s, shots, "roles-checklist-analyst", "/app/checklists/"+checklistID)
	both4(t, analyst, s, shots, "roles-team-analyst", "/app/team")
	both4(t, analyst, s, shots, "roles-call-analyst", callPath)
}
