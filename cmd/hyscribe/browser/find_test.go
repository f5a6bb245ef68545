package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/hyscribe/hyscribe/adapters/sqlite"
	"github.com/hyscribe/hyscribe/domain"
)

// seededCall is a call put straight into the service's store (its
// SQLite file): transcribed, measured, and scored when score is not nil.
type seededCall struct {
	id, title, file, agent, phone string
	ago                           time.Duration
	seconds                       float64
	score                         *float64
}

// seedCalls writes calls of account into the store at dir (the service's
// HYSCRIBE_DATA_DIR), as the pipeline would have left them.
func seedCalls(t *testing.T, dir string, account domain.AccountID, calls []seededCall) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "hyscribe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now()
	for _, c := range calls {
		created := now.Add(-c.ago)
		meta := fmt.Sprintf(`{"agent":%q,"phone":%q}`, c.agent, c.phone)
		j, evs := domain.NewJob(domain.DocID(c.id), account, domain.CreateRequest{Type: domain.TypePhoneCall, Metadata: json.RawMessage(meta)}, created, time.Hour)
		j.Filename, j.ChecklistID, j.ChecklistVersion = c.file, "quality", 1
		_ = evs // no events: the running pipeline must not analyse these calls itself
		if err := st.CreateJob(ctx, j, nil); err != nil {
			t.Fatal(err)
		}
		err := st.UpdateJob(ctx, j.ID, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
			for _, step := range []func() ([]domain.Event, error){
				func() ([]domain.Event, error) { return j.ReceiveUpload(created, "blobs/"+c.id, 4096) },
				func() ([]domain.Event, error) {
					return j.Measure(created, domain.AudioInfo{Format: "mp3", Duration: c.seconds, Channels: 1, SampleRate: 16000}, a, domain.MaxDuration)
				},
				func() ([]domain.Event, error) { return j.StartConverting(created) },
				func() ([]domain.Event, error) { return j.Recognize(created, "Բարև ձեզ, լսում եմ։", nil) },
				func() ([]domain.Event, error) { return j.Complete(created, c.title, "", domain.LanguageArmenian) },
			} {
				if _, err := step(); err != nil {
					return nil, err
				}
			}
			return nil, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if c.score == nil {
			continue
		}
		yes := domain.AnswerNo
		if *c.score >= 0.5 {
			yes = domain.AnswerYes
		}
		a := domain.Analysis{ID: "an-" + c.id, DocID: j.ID, AccountID: account, ChecklistID: "quality", ChecklistVersion: 1, ChecklistName: "Որակ",
			Status: domain.AnalysisOK, CreatedAt: created,
			Results: map[string]domain.QuestionResult{"greet": {Question: "Բարևե՞ց", Answer: yes, Score: *c.score, Evidence: []domain.Evidence{}}}}
		if err := st.SaveAnalysis(ctx, a.WithListScore(nil), nil); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFindAndTriageCallsInABrowser: calls with one title are told apart by
// their file names and the metadata columns the owner chose; a search for
// part of a file name finds the call; and a team lead answers "which of
// this agent's calls scored under 0.5 this week" in two clicks — the
// agent's value in a row, then "This week, under 0.5" — then steps
// through those calls from a recording page (issue 36, items 1 and 5).
// The history, Settings and a recording page at 1280 and 390 px in both
// languages (screenshots find-*.png).
func TestFindAndTriageCallsInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service and a browser")
	}
	chrome := chromium(t)
	shots := screenshotDir(t)
	s := startService(t, nil)
	b := browser(t, chrome)
	accountID := signUp(t, b, s, "", "", "Զանգերի կենտրոն", "lead@example.am")
	s.cli(t, "account", "update", "--account", accountID, "--plan", "business", "--seconds", "36000")

	run(t, b, "history columns in Settings",
		chromedp.Navigate(s.base+"/app/settings"),
		chromedp.WaitVisible("#listColumns", chromedp.ByID),
		chromedp.SendKeys("#listColumns", "phone", chromedp.ByID),
		chromedp.SendKeys("#agentKey", "agent", chromedp.ByID),
		chromedp.Click("#save-columns", chromedp.ByID),
		chromedp.WaitVisible("#columns-saved", chromedp.ByID),
	)

	sc := func(v float64) *float64 { return &v }
	title := "Պատվերի կարգավիճակ" // the same generated title on every call
	seedCalls(t, s.getenv("HYSCRIBE_DATA_DIR"), domain.AccountID(accountID), []seededCall{
		{"call-a1", title, "ext115_2026-11-20_1312_+37499290684.mp3", "ext115", "+37499290684", 10 * time.Minute, 184, sc(0.25)},
		{"call-a2", title, "ext115_2026-11-20_1340_+37491111111.mp3", "ext115", "+37491111111", 20 * time.Minute, 95, sc(0.9)},
		{"call-a3", title, "ext115_2026-11-20_1402_+37493333333.mp3", "ext115", "+37493333333", 30 * time.Minute, 240, sc(0.4)},
		{"call-a4", title, "ext115_2026-10-02_0915_+37494444444.mp3", "ext115", "+37494444444", 40 * 24 * time.Hour, 61, sc(0.1)},
		{"call-a5", title, "ext115_2026-11-20_1420_+37495555555.mp3", "ext115", "+37495555555", 35 * time.Minute, 30, nil},
		{"call-b1", title, "ext204_2026-11-20_1315_+37496666666.mp3", "ext204", "+37496666666", 15 * time.Minute, 120, sc(0.2)},
		{"call-b2", title, "ext204_2026-11-20_1330_+37497777777.mp3", "ext204", "+37497777777", 25 * time.Minute, 75, sc(0.7)},
	})

	rowIDs := `Array.from(document.querySelectorAll("#history tbody tr")).map(function (r) { return r.getAttribute("data-live-id"); }).join(" ")`
	var ids, files string
	run(t, b, "the history",
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.WaitVisible("#history", chromedp.ByID),
		chromedp.Evaluate(rowIDs, &ids),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#history [data-field="filename"]')).length + " " + document.querySelectorAll('#history td[data-column="phone"]').length`, &files),
	)
	if ids != "call-a1 call-b1 call-a2 call-b2 call-a3 call-a5 call-a4" {
		t.Fatalf("the history lists %q, newest first", ids)
	}
	if files != "7 7" {
		t.Fatalf("file names and phone cells on the rows: %q, want 7 of each", files)
	}

	for _, q := range []string{"ext115_2026-11-20_1312", "+37499290684"} {
		run(t, b, "search "+q,
			chromedp.Navigate(s.base+"/app/recordings"),
			chromedp.WaitVisible("#q", chromedp.ByID),
			chromedp.SendKeys("#q", q, chromedp.ByID),
			chromedp.Click("#apply", chromedp.ByID),
			chromedp.WaitVisible(`#q[value="`+q+`"]`, chromedp.ByQuery),
			chromedp.WaitVisible("#history-total", chromedp.ByID),
			chromedp.Evaluate(rowIDs, &ids),
		)
		if ids != "call-a1" {
			t.Fatalf("a search for %s lists %q, want call-a1", q, ids)
		}
	}

	// Two clicks: the agent in a row, then this week under 0.5.
	run(t, b, "click 1: the agent",
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.WaitVisible(`tr[data-live-id="call-a2"] a.agent-link`, chromedp.ByQuery),
		chromedp.Click(`tr[data-live-id="call-a2"] a.agent-link`, chromedp.ByQuery),
		chromedp.WaitVisible("#agent-chip", chromedp.ByID),
		chromedp.Evaluate(rowIDs, &ids),
	)
	if ids != "call-a1 call-a2 call-a3 call-a5 call-a4" {
		t.Fatalf("the agent's calls: %q", ids)
	}
	var loc string
	run(t, b, "click 2: this week, under 0.5",
		chromedp.Click("#triage-week", chromedp.ByID),
		chromedp.WaitVisible(`#scoreUnder[value="0.5"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#history-total", chromedp.ByID),
		chromedp.Location(&loc),
		chromedp.Evaluate(rowIDs, &ids),
	)
	if ids != "call-a1 call-a3" {
		t.Fatalf("ext115's calls under 0.5 this week: %q, want call-a1 and call-a3 (%s)", ids, loc)
	}
	if u, _ := url.Parse(loc); u.Query().Get("agent") != "ext115" || u.Query().Get("scoreUnder") != "0.5" {
		t.Fatalf("the page's address %s does not keep the filter", loc)
	}
	bothWidthsAndLangs(t, b, s, shots, "find-01-history-triage", strings.TrimPrefix(loc, s.base))

	// Lowest score first, then step through the list from a call's page.
	run(t, b, "lowest score first",
		chromedp.SetValue("#sort", "score-asc", chromedp.ByID),
		chromedp.Click("#apply", chromedp.ByID),
		chromedp.WaitReady(`#sort option[value="score-asc"][selected]`, chromedp.ByQuery),
		chromedp.WaitVisible("#history-total", chromedp.ByID),
		chromedp.Evaluate(rowIDs, &ids),
	)
	if ids != "call-a1 call-a3" {
		t.Fatalf("lowest score first: %q, want call-a1 (0.25) then call-a3 (0.4)", ids)
	}
	var first, next, back string
	var last bool
	run(t, b, "next call from a recording page",
		chromedp.Click(`tr[data-live-id="call-a1"] a[data-field="title"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#next-call", chromedp.ByID),
		chromedp.Location(&first),
		chromedp.Click("#next-call", chromedp.ByID),
		chromedp.WaitVisible("#prev-call", chromedp.ByID),
		chromedp.Location(&next),
		chromedp.Evaluate(`document.getElementById("next-call") === null`, &last),
	)
	if !last {
		t.Error("the last call of the list offers a next call")
	}
	if !strings.Contains(first, "/recordings/call-a1?") || !strings.Contains(next, "/recordings/call-a3?") {
		t.Fatalf("stepping: %s, then %s; want call-a1 then call-a3", first, next)
	}
	bothWidthsAndLangs(t, b, s, shots, "find-02-recording-steps", strings.TrimPrefix(next, s.base))
	run(t, b, "back to the list", chromedp.Click("#back-to-list", chromedp.ByID), chromedp.WaitVisible("#history-total", chromedp.ByID), chromedp.Location(&back))
	if u, _ := url.Parse(back); u.Query().Get("agent") != "ext115" || u.Query().Get("sort") != "score-asc" {
		t.Fatalf("back to the list at %s: the filter and order are lost", back)
	}
	bothWidthsAndLangs(t, b, s, shots, "find-03-settings", "/app/settings#columns")
	bothWidthsAndLangs(t, b, s, shots, "find-04-history", "/app/recordings")

	// Bulk (item 6): the form counts the ticked rows, then every call of
	// the filter, and the deletion's confirmation says how many.
	var dialogs []string
	var mu sync.Mutex
	chromedp.ListenTarget(b, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			mu.Lock()
			dialogs = append(dialogs, d.Message)
			mu.Unlock()
		}
	})
	var one, all string
	run(t, b, "tick one, then all matching",
		chromedp.Navigate(back),
		chromedp.WaitVisible("#bulk-all", chromedp.ByID),
		chromedp.Click(`tr[data-live-id="call-a3"] input.pick`, chromedp.ByQuery),
		chromedp.Text("#bulk-count", &one, chromedp.ByID),
		chromedp.Click("#bulk-all", chromedp.ByID),
		chromedp.Text("#bulk-count", &all, chromedp.ByID),
	)
	if !strings.Contains(one, "1") || !strings.Contains(all, "2") {
		t.Fatalf("the bulk form counts %q with one row ticked and %q with all matching, want 1 and 2", one, all)
	}
	shoot(t, b, shots, "find-05-bulk-all-hy-1280")
	run(t, b, "delete all matching",
		chromedp.Click("#bulk-delete", chromedp.ByID),
		chromedp.WaitVisible("#history-total", chromedp.ByID),
		chromedp.WaitReady(`[role="status"]`, chromedp.ByQuery),
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.WaitVisible("#history", chromedp.ByID),
		chromedp.Evaluate(rowIDs, &ids),
	)
	mu.Lock()
	defer mu.Unlock()
	if len(dialogs) != 1 || !strings.Contains(dialogs[0], "2") {
		t.Fatalf("the deletion asked %q, want one confirmation saying 2", dialogs)
	}
	if ids != "call-b1 call-a2 call-b2 call-a5 call-a4" {
		t.Fatalf("after deleting ext115's calls under 0.5 this week the history lists %q", ids)
	}
}

// bothWidthsAndLangs screenshots path at 1280 and 390 px in Armenian and
// in English, and leaves the browser in Armenian at 1280 px.
func bothWidthsAndLangs(t *testing.T, b context.Context, s *service, shots, name, path string) {
	t.Helper()
	for _, lang := range []string{"hy", "en"} {
		run(t, b, name+" "+lang, chromedp.Navigate(s.base+"/app/lang?to="+lang+"&back="+url.QueryEscape(path)), chromedp.WaitReady("main", chromedp.ByQuery))
		shoot(t, b, shots, name+"-"+lang+"-1280")
		run(t, b, name+" phone", emulation.SetDeviceMetricsOverride(390, 844, 2, true), chromedp.Reload(), chromedp.WaitReady("main", chromedp.ByQuery))
		var sideways bool
		run(t, b, name+" width", chromedp.Evaluate(`document.documentElement.scrollWidth > window.innerWidth`, &sideways))
		if sideways {
			t.Errorf("%s (%s) scrolls sideways at 390 px", name, lang)
		}
		shoot(t, b, shots, name+"-"+lang+"-390")
		run(t, b, name+" desktop", emulation.ClearDeviceMetricsOverride(), chromedp.Reload(), chromedp.WaitReady("main", chromedp.ByQuery))
	}
	run(t, b, "back to Armenian", chromedp.Navigate(s.base+"/app/lang?to=hy&back="+url.QueryEscape(path)), chromedp.WaitReady("main", chromedp.ByQuery))
}
