package browser

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/domain"
)

// TestReviewInABrowser checks, in Chromium, the QA loop of issue 36 item
// 3: on the recording page the analyst overrides a machine answer with a
// reason, comments and marks the call reviewed; the page then shows who
// reviewed it and when, the reviewed score beside the machine's, and the
// machine's answers beside the reviewed ones; the receiver gets
// analysis_reviewed. An override without a reason is refused with the
// analyst's text kept. The history then shows the reviewed score, marked
// reviewed. Screenshots: review-*.png, both languages, 1280 and 390 px,
// checked with axe-core.
func TestReviewInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service and a browser")
	}
	chrome := chromium(t)
	axe := axeSource(t)
	shots := screenshotDir(t)
	engine := asrtest.NewEngine(t)
	// Every line greets and says goodbye; nobody speaks of a delivery.
	lines := []string{"Բարև ձեզ, շնորհակալություն, ցտեսություն։"}
	engine.Respond(func(req asrtest.Request) (asrtest.Response, int) {
		res, code := engine.Answer(req)
		if code != http.StatusOK {
			return res, code
		}
		var all []string
		res.Words = nil
		for i := range res.Segments {
			res.Segments[i].Text = " " + lines[i%len(lines)]
			all = append(all, lines[i%len(lines)])
		}
		res.Text = strings.Join(all, " ")
		return res, code
	})
	var mu sync.Mutex
	var reviewed []domain.AnalysisReviewedPayload
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var p domain.AnalysisReviewedPayload
		if json.Unmarshal(body, &p) == nil && p.EventType == domain.EventAnalysisReviewed {
			mu.Lock()
			reviewed = append(reviewed, p)
			mu.Unlock()
		}
	}))
	defer receiver.Close()
	s := startService(t, map[string]string{"HYSCRIBE_ASR_URL": engine.URL()})
	b := browser(t, chrome)

	accountID := signUp(t, b, s, "", "", "Որակի թիմ", "analyst@example.am")
	s.cli(t, "account", "update", "--account", accountID, "--plan", "business", "--seconds", "3600",
		"--webhook-url", receiver.URL+"/hooks", "--webhook-secret", "s3cret")
	key := s.cli(t, "account", "key", "--account", accountID)["apiKey"].(string)
	file := filepath.Join(t.TempDir(), "checklist.json")
	def := `{"name": "Զանգի որակ", "questions": [
		{"id": "greet", "text": "Բարևե՞ց", "expect": ["Բարև"]},
		{"id": "bye", "text": "Հրաժեշտ տվե՞ց", "expect": ["ցտեսություն"]},
		{"id": "delivery", "text": "Խոսվե՞ց առաքման մասին", "expect": ["առաքում"]}]}`
	if err := os.WriteFile(file, []byte(def), 0o600); err != nil {
		t.Fatal(err)
	}
	checklistID := s.cli(t, "checklist", "create", "--account", accountID, "--file", file)["checklistId"].(string)
	code, created := api(t, "POST", s.base+"/api/createTranscription", key, []byte(`{"type":"phone_call","checklistId":"`+checklistID+`"}`))
	if code != 200 {
		t.Fatalf("createTranscription: %d %v", code, created)
	}
	doc := created["docId"].(string)
	audio, err := os.ReadFile("../../../testdata/audio/call-stereo-22k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	if code, body := api(t, "PUT", created["uploadUrl"].(string), "", audio); code != 200 {
		t.Fatalf("upload: %d %v", code, body)
	}
	page := "/app/recordings/" + doc

	// The machine: greet yes, bye yes, delivery no — 2/3 · 0.67.
	var total, before string
	run(t, b, "the analysed call",
		chromedp.Navigate(s.base+page),
		chromedp.WaitVisible("#review-form", chromedp.ByID),
		chromedp.Text("#call-score", &total, chromedp.ByID),
		chromedp.Text("#review-status", &before, chromedp.ByID),
	)
	if !strings.Contains(total, "2/3 · 0.67") {
		t.Fatalf("premise: the machine scores 2/3 · 0.67, the page says %q", total)
	}
	if !strings.Contains(before, "դեռ վերանայված չէ") {
		t.Errorf("before a review the page says %q", before)
	}

	// An override without a reason is refused; the comment is kept.
	var refusal, kept string
	run(t, b, "override without a reason",
		chromedp.SetValue("#answer-delivery", "yes", chromedp.ByID),
		chromedp.SendKeys("#review-comment-input", "Լավ զանգ", chromedp.ByID),
		chromedp.Click("#mark-reviewed", chromedp.ByID),
		chromedp.WaitVisible("#page-error", chromedp.ByID),
		chromedp.Text("#page-error", &refusal, chromedp.ByID),
		chromedp.Value("#review-comment-input", &kept, chromedp.ByID),
	)
	if !strings.Contains(refusal, "գրեք պատճառը") || kept != "Լավ զանգ" {
		t.Fatalf("a reasonless override: error %q, comment kept %q", refusal, kept)
	}

	// The override with its reason, and the call marked reviewed.
	var by, score, row, comment string
	run(t, b, "review the call",
		chromedp.SetValue("#answer-delivery", "yes", chromedp.ByID),
		chromedp.SendKeys("#reason-delivery", "Հաճախորդը հարցրեց պատվերի առաքման մասին", chromedp.ByID),
		chromedp.Click("#mark-reviewed", chromedp.ByID),
		chromedp.WaitVisible("#review-saved", chromedp.ByID),
		chromedp.Text("#reviewed-by", &by, chromedp.ByID),
		chromedp.Text("#call-score", &score, chromedp.ByID),
		chromedp.Text("#q-delivery", &row, chromedp.ByID),
		chromedp.Text("#review-comment", &comment, chromedp.ByID),
	)
	if !strings.Contains(by, "analyst@example.am") || !strings.Contains(by, time.Now().In(time.FixedZone("", 4*3600)).Format("2006")) {
		t.Errorf("who reviewed: %q", by)
	}
	if !strings.Contains(score, "3/3 · 1.00") || !strings.Contains(score, "2/3 · 0.67") {
		t.Errorf("the call's score reads %q; want the reviewed 3/3 · 1.00 beside the machine's 2/3 · 0.67", score)
	}
	if !strings.Contains(row, "Ոչ") || !strings.Contains(row, "Այո") || !strings.Contains(row, "փոխված") || !strings.Contains(row, "առաքման մասին") {
		t.Errorf("the overridden question's row reads %q; want the machine's no beside the reviewed yes with its reason", row)
	}
	if !strings.Contains(comment, "Լավ զանգ") {
		t.Errorf("the comment reads %q", comment)
	}
	eventually(t, "the receiver gets analysis_reviewed", 20*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(reviewed) > 0
	})
	mu.Lock()
	got := reviewed[0]
	mu.Unlock()
	if got.DocID != domain.DocID(doc) || got.ReviewedScore != 1 || got.Answers["delivery"].MachineAnswer != "no" || got.Answers["delivery"].Answer != "yes" ||
		got.Reviewer.Email != "analyst@example.am" || got.Secret != "s3cret" {
		t.Errorf("analysis_reviewed %+v", got)
	}

	// The page in both languages, at both widths.
	for _, lang := range []string{"hy", "en"} {
		run(t, b, "language "+lang, chromedp.Navigate(s.base+"/app/lang?to="+lang+"&back="+page), chromedp.WaitVisible("#reviewed-by", chromedp.ByID))
		var text string
		run(t, b, "text "+lang, chromedp.Text("#analysis", &text, chromedp.ByID))
		if lang == "en" && !strings.Contains(text, "Reviewed by analyst@example.am") {
			t.Errorf("the English page says %q", text)
		}
		if lang == "hy" && (strings.Contains(text, "Reviewed") || strings.Contains(text, "Mark reviewed")) {
			t.Errorf("English on the Armenian page: %q", text)
		}
		for _, width := range []int64{1280, 390} {
			name := "review-01-recording-" + lang + "-" + map[int64]string{1280: "1280", 390: "390"}[width]
			if width == 390 {
				run(t, b, "phone", emulation.SetDeviceMetricsOverride(390, 844, 2, true), chromedp.Reload(), chromedp.WaitVisible("#reviewed-by", chromedp.ByID))
				var bad []string
				run(t, b, "collisions", chromedp.Evaluate(collisions, &bad))
				if len(bad) > 0 {
					t.Errorf("%s: cells whose content overflows: %q", name, bad)
				}
			}
			shoot(t, b, shots, name)
			if v := axeRun(t, b, axe, axeAllRules); len(v) > 0 {
				t.Errorf("%s: axe-core violations: %q", name, v)
			}
			if width == 390 {
				run(t, b, "desktop", emulation.ClearDeviceMetricsOverride(), chromedp.Reload(), chromedp.WaitVisible("#reviewed-by", chromedp.ByID))
			}
		}
	}

	// The history shows the reviewed score, marked reviewed, in both
	// languages and at both widths.
	for _, lang := range []string{"hy", "en"} {
		run(t, b, "history "+lang, chromedp.Navigate(s.base+"/app/lang?to="+lang+"&back=/app/recordings"), chromedp.WaitVisible(`[data-field="reviewed"]`, chromedp.ByQuery))
		var cell string
		run(t, b, "history cell "+lang, chromedp.Text(`tr[data-live-id="`+doc+`"] [data-field="checklist"]`, &cell, chromedp.ByQuery))
		label := map[string]string{"hy": "վերանայված", "en": "reviewed"}[lang]
		if !strings.Contains(cell, "3/3 · 1.00") || !strings.Contains(cell, label) {
			t.Errorf("%s: the history's checklist cell reads %q; want the reviewed 3/3 · 1.00 marked %q", lang, cell, label)
		}
		for _, width := range []int64{1280, 390} {
			name := "review-02-history-" + lang + "-" + map[int64]string{1280: "1280", 390: "390"}[width]
			if width == 390 {
				run(t, b, "phone", emulation.SetDeviceMetricsOverride(390, 844, 2, true), chromedp.Reload(), chromedp.WaitVisible(`[data-field="reviewed"]`, chromedp.ByQuery))
				var bad []string
				run(t, b, "collisions", chromedp.Evaluate(collisions, &bad))
				if len(bad) > 0 {
					t.Errorf("%s: cells whose content overflows: %q", name, bad)
				}
			}
			shoot(t, b, shots, name)
			if v := axeRun(t, b, axe, axeAllRules); len(v) > 0 {
				t.Errorf("%s: axe-core violations: %q", name, v)
			}
			if width == 390 {
				run(t, b, "desktop", emulation.ClearDeviceMetricsOverride(), chromedp.Reload(), chromedp.WaitVisible(`[data-field="reviewed"]`, chromedp.ByQuery))
			}
		}
	}
}
