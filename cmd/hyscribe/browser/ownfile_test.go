package browser

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/csv"
	"io"
	"mime"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
)

// failUploads makes the browser's next PUT of a file fail as a dropped
// connection would, once per call of the returned arm function.
func failUploads(t *testing.T, b context.Context) (arm func()) {
	t.Helper()
	var armed atomic.Bool
	chromedp.ListenTarget(b, func(ev any) {
		e, ok := ev.(*fetch.EventRequestPaused)
		if !ok {
			return
		}
		go func() {
			if e.Request.Method == "PUT" && armed.CompareAndSwap(true, false) {
				_ = chromedp.Run(b, fetch.FailRequest(e.RequestID, network.ErrorReasonConnectionReset))
				return
			}
			_ = chromedp.Run(b, fetch.ContinueRequest(e.RequestID))
		}()
	})
	run(t, b, "intercept uploads", fetch.Enable().WithPatterns([]*fetch.RequestPattern{{URLPattern: "*/upload/*"}}))
	return func() { armed.Store(true) }
}

// named copies a test recording under another name, as a person's file.
func named(t *testing.T, src, name string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOwningAFileInABrowser: an uploaded file's name is its title until
// there is one, shown on its page and naming its exports; an upload cut by
// the network is retried, or cancelled (the waiting job deleted); chosen
// recordings are downloaded as one ZIP (transcripts in the chosen format
// and a CSV of checklist scores whose cells cannot run as formulas) and
// deleted, one or many.
func TestOwningAFileInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service and a browser")
	}
	chrome := chromium(t)
	shots := screenshotDir(t)
	engine := asrtest.NewEngine(t, asrtest.WithTexts("Բարև ձեզ, ես զանգում եմ պատվերի մասին։"))
	s := startService(t, map[string]string{"HYSCRIBE_ASR_URL": engine.URL(), "HYSCRIBE_TRIAL_SECONDS": "3600", "HYSCRIBE_TRIAL_UNCONFIRMED": "true"})
	b := browser(t, chrome)
	accountID := signUp(t, b, s, "", "", "Կենտրոն", "files@example.am")
	def := filepath.Join(t.TempDir(), "checklist.json")
	if err := os.WriteFile(def, []byte(`{"name": "Պատվեր", "questions": [{"id": "order", "text": "Խոսվե՞լ է պատվերի մասին", "expect": ["պատվեր"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	checklistID := s.cli(t, "checklist", "create", "--account", accountID, "--file", def)["checklistId"].(string)
	arm := failUploads(t, b)

	first := named(t, "../../../testdata/audio/speech-mono-16k.mp3", "զանգ «Արև» 17.mp3")
	run(t, b, "upload cut by the network",
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.WaitVisible("#upload-form", chromedp.ByID),
		chromedp.SetValue("#up-checklist", checklistID, chromedp.ByID),
		chromedp.ActionFunc(func(context.Context) error { arm(); return nil }),
		chromedp.SetUploadFiles("#files", []string{first}, chromedp.ByID),
		chromedp.Click("#upload-start", chromedp.ByID),
		chromedp.WaitVisible(`#upload-list [data-result="interrupted"] .retry`, chromedp.ByQuery),
		chromedp.Poll(`Array.from(document.querySelectorAll('#history tr[data-status="uploading"] .title a')).some(function(a){return a.textContent.trim()==="զանգ «Արև» 17.mp3";})`, nil, chromedp.WithPollingTimeout(10*time.Second)),
	)
	shoot(t, b, shots, "own-01-interrupted")
	run(t, b, "retry",
		chromedp.Click(`#upload-list .retry`, chromedp.ByQuery),
		chromedp.WaitVisible(`#upload-list [data-result="uploaded"]`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelectorAll('#history tr[data-live-id][data-status="transcribed"]').length === 1`, nil, chromedp.WithPollingTimeout(40*time.Second)),
	)

	// A second upload cut short is cancelled: its waiting job goes.
	run(t, b, "cancel an interrupted upload",
		chromedp.Reload(),
		chromedp.WaitVisible("#upload-form", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("new-recording").open = true`, nil),
		chromedp.ActionFunc(func(context.Context) error { arm(); return nil }),
		chromedp.SetUploadFiles("#files", []string{named(t, "../../../testdata/audio/speech-mono-16k.mp3", "cut.mp3")}, chromedp.ByID),
		chromedp.Click("#upload-start", chromedp.ByID),
		chromedp.WaitVisible(`#upload-list .cancel`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelectorAll('#history tr[data-live-id]').length === 2`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Click(`#upload-list .cancel`, chromedp.ByQuery),
		chromedp.WaitVisible(`#upload-list [data-result="cancelled"]`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelectorAll('#history tr[data-live-id]').length === 1`, nil, chromedp.WithPollingTimeout(10*time.Second)),
	)

	// Cut short again, and the page reloaded (the in-page Retry is gone):
	// the waiting recording's page takes the file again.
	resumed := named(t, "../../../testdata/audio/speech-mono-16k.mp3", "resumed.mp3")
	var status string
	run(t, b, "resume after a reload",
		chromedp.Reload(),
		chromedp.WaitVisible("#upload-form", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("new-recording").open = true`, nil),
		chromedp.ActionFunc(func(context.Context) error { arm(); return nil }),
		chromedp.SetUploadFiles("#files", []string{resumed}, chromedp.ByID),
		chromedp.Click("#upload-start", chromedp.ByID),
		chromedp.WaitVisible(`#upload-list .retry`, chromedp.ByQuery),
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.WaitVisible(`#history tr[data-status="uploading"] .title a`, chromedp.ByQuery),
		chromedp.Click(`#history tr[data-status="uploading"] .title a`, chromedp.ByQuery),
		chromedp.WaitVisible("#reupload", chromedp.ByID),
	)
	shoot(t, b, shots, "own-02-resume")
	run(t, b, "pick the file again", chromedp.SetUploadFiles("#reupload-file", []string{resumed}, chromedp.ByID))
	// The page reloads itself once the file is in, and as the job moves on.
	eventually(t, "the resumed recording transcribed", 40*time.Second, func() bool {
		var st string
		c, cancel := context.WithTimeout(b, 2*time.Second)
		defer cancel()
		_ = chromedp.Run(c, chromedp.Evaluate(`(document.querySelector("#status") && document.querySelector("[data-live-id]").getAttribute("data-status")) || ""`, &st))
		return st == "transcribed"
	})
	run(t, b, "delete the resumed recording",
		chromedp.Reload(),
		chromedp.WaitVisible("#filename", chromedp.ByID),
		chromedp.Text("#filename", &status, chromedp.ByID),
		chromedp.Click("#delete-recording", chromedp.ByID),
		chromedp.WaitVisible(".flash", chromedp.ByQuery),
	)
	if !strings.Contains(status, "resumed.mp3") {
		t.Errorf("the resumed recording's page says %q", status)
	}

	// A file whose name a spreadsheet would run as a formula.
	run(t, b, "second upload",
		chromedp.Reload(),
		chromedp.WaitVisible("#upload-form", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("new-recording").open = true`, nil),
		chromedp.SetValue("#up-checklist", checklistID, chromedp.ByID),
		chromedp.SetUploadFiles("#files", []string{named(t, "../../../testdata/audio/speech-mono-16k.mp3", "=HYPERLINK(1).mp3")}, chromedp.ByID),
		chromedp.Click("#upload-start", chromedp.ByID),
		chromedp.Poll(`document.querySelectorAll('#history tr[data-live-id][data-status="transcribed"]').length === 2`, nil, chromedp.WithPollingTimeout(40*time.Second)),
	)

	// The recording's page names the file, and so does its export.
	var file, disposition string
	run(t, b, "the recording's page",
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.WaitVisible("#history", chromedp.ByID),
		chromedp.Click(`#history tbody tr:last-child .title a`, chromedp.ByQuery),
		chromedp.WaitVisible("#filename", chromedp.ByID),
		chromedp.Text("#filename", &file, chromedp.ByID),
		chromedp.Evaluate(`fetch(document.querySelector('#downloads a[data-format="srt"]').href).then(function(r){return r.headers.get("content-disposition");})`, &disposition, awaitPromise),
	)
	if !strings.Contains(file, "զանգ «Արև» 17.mp3") {
		t.Errorf("the recording's page says %q; want the uploaded file's name", file)
	}
	if _, params, err := mime.ParseMediaType(disposition); err != nil || params["filename"] != "զանգ «Արև» 17.srt" {
		t.Errorf("the SRT download is named %q; want the file's name with .srt", disposition)
	}
	shoot(t, b, shots, "own-02-recording")

	// Both chosen: one ZIP of their transcripts and scores.
	var zipB64 string
	run(t, b, "bulk export",
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.WaitVisible("#history", chromedp.ByID),
		chromedp.Evaluate(`document.querySelectorAll('#history input.pick').forEach(function(c){c.checked=true;})`, nil),
		chromedp.SetValue("#bulk-format", "txt", chromedp.ByID),
		chromedp.Evaluate(`(function(){
			var f = document.getElementById("bulk");
			return fetch(f.getAttribute("action"), {method: "POST", body: new URLSearchParams(new FormData(f, document.getElementById("bulk-export")))})
				.then(function(r){ if (!r.ok) throw new Error("status " + r.status); return r.arrayBuffer(); })
				.then(function(buf){ var s = ""; new Uint8Array(buf).forEach(function(c){ s += String.fromCharCode(c); }); return btoa(s); });
		})()`, &zipB64, awaitPromise),
	)
	raw, _ := base64.StdEncoding.DecodeString(zipB64)
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatalf("the bulk export is not a ZIP: %v", err)
	}
	var names []string
	files := map[string]string{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		names = append(names, f.Name)
		files[f.Name] = string(b)
	}
	sort.Strings(names)
	if strings.Join(names, "|") != "=HYPERLINK(1).txt|scores.csv|զանգ «Արև» 17.txt" {
		t.Fatalf("the ZIP holds %q", names)
	}
	if !strings.Contains(files["զանգ «Արև» 17.txt"], "պատվերի") {
		t.Errorf("a transcript in the ZIP reads %q", files["զանգ «Արև» 17.txt"])
	}
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(files["scores.csv"], "\ufeff"))).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("scores.csv: %v, %d rows:\n%s", err, len(rows), files["scores.csv"])
	}
	for _, r := range rows[1:] {
		if r[5] != "Պատվեր" || r[7] != "1" || r[8] == "" {
			t.Errorf("scores.csv row without its checklist score: %q", r)
		}
		// Free text is guarded; the docId (column 0) is written exactly
		// (issue 36): nobody outside the service chooses it.
		for _, cell := range r[1:] {
			if cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) {
				t.Errorf("scores.csv cell %q would run as a formula", cell)
			}
		}
		if strings.Contains(r[1], "HYPERLINK") && r[1] != "'=HYPERLINK(1).mp3" {
			t.Errorf("the formula-like file name is written %q", r[1])
		}
	}

	// Delete one from the history (many the same way), then the other
	// from its page.
	var flash string
	run(t, b, "bulk delete",
		chromedp.Evaluate(`document.querySelectorAll('#history input.pick').forEach(function(c, i){ c.checked = i === 0; })`, nil),
		chromedp.Click("#bulk-delete", chromedp.ByID),
		chromedp.WaitVisible(".flash", chromedp.ByQuery),
		chromedp.Text(".flash", &flash, chromedp.ByQuery),
	)
	if !strings.Contains(flash, "1") {
		t.Errorf("after deleting one: %q", flash)
	}
	shoot(t, b, shots, "own-03-deleted-one")
	run(t, b, "delete from the page",
		chromedp.Click(`#history .title a`, chromedp.ByQuery),
		chromedp.WaitVisible("#delete-recording", chromedp.ByID),
		chromedp.Click("#delete-recording", chromedp.ByID),
		chromedp.WaitVisible("#no-recordings", chromedp.ByID),
	)
	both4(t, b, s, shots, "own-empty", "/app/recordings")
}
