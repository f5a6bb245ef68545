package browser

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/client"
)

// TestDownloadsCopyAndRetention opens a transcribed recording's page,
// downloads its subtitles, copies its transcript to the clipboard, and sets
// the account's retention in the settings, as a person would in Chromium.
func TestDownloadsCopyAndRetention(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service and a browser")
	}
	chrome := chromium(t)
	shots := screenshotDir(t)
	engine := asrtest.NewEngine(t, asrtest.WithTexts("Բարեւ ձեզ, լսում եմ։", "Շնորհակալություն։"))
	s := startService(t, map[string]string{"HYSCRIBE_ASR_URL": engine.URL()})
	acct := s.cli(t, "account", "create", "--name", "Կլինիկա", "--plan", "business", "--seconds", "3600")
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("a long enough password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.cli(t, "user", "create", "--account", acct["accountId"].(string), "--email", "owner@example.am", "--password-file", pw, "--role", "owner")

	// A recording through the Go client.
	c := client.New(s.base, acct["apiKey"].(string), client.WithPollInterval(100*time.Millisecond))
	ctx := context.Background()
	created, err := c.Create(ctx, client.CreateRequest{Type: client.SingleVoice})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.UploadFile(ctx, created.UploadURL, "../../../testdata/audio/speech-mono-16k.mp3"); err != nil {
		t.Fatal(err)
	}
	job, err := c.Wait(ctx, created.DocID, nil)
	if err != nil || job.Status != client.StatusTranscribed {
		t.Fatalf("job %+v: %v", job, err)
	}

	b := browser(t, chrome)
	run(t, b, "sign in and open the recording",
		chromedp.Navigate(s.base+"/app/recordings/"+created.DocID),
		chromedp.WaitVisible("#signin", chromedp.ByID),
		chromedp.SendKeys("#email", "owner@example.am", chromedp.ByID),
		chromedp.SendKeys("#password", "a long enough password", chromedp.ByID),
		chromedp.Click("#signin", chromedp.ByID),
		chromedp.WaitVisible("#downloads", chromedp.ByID),
	)
	shoot(t, b, shots, "20-recording-downloads")
	var formats []string
	run(t, b, "list the downloads", chromedp.Evaluate(`[...document.querySelectorAll("#downloads a[download]")].map(a => a.dataset.format)`, &formats))
	if strings.Join(formats, ",") != "srt,vtt,txt,json" {
		t.Fatalf("downloads offered: %v", formats)
	}
	// The link the page offers serves the same file as the API's export.
	var srt string
	run(t, b, "fetch the srt link",
		chromedp.Evaluate(`fetch(document.querySelector('#downloads a[data-format="srt"]').href).then(r => r.text())`, &srt, awaitPromise))
	want, err := c.Export(ctx, created.DocID, client.FormatSRT)
	if err != nil {
		t.Fatal(err)
	}
	if srt != string(want) || !strings.HasPrefix(srt, "1\n00:00:") {
		t.Fatalf("the page's srt %q, the API's %q", srt, want)
	}

	// Copy the transcript: the clipboard then holds it.
	var copied string
	run(t, b, "copy the transcript",
		cdpbrowser.SetPermission(&cdpbrowser.PermissionDescriptor{Name: "clipboard-read"}, cdpbrowser.PermissionSettingGranted).WithOrigin(s.base),
		cdpbrowser.SetPermission(&cdpbrowser.PermissionDescriptor{Name: "clipboard-write"}, cdpbrowser.PermissionSettingGranted).WithOrigin(s.base),
		chromedp.WaitVisible("#copy-transcript", chromedp.ByID),
		chromedp.Click("#copy-transcript", chromedp.ByID),
		// Until the clipboard holds something (the copy is asynchronous).
		chromedp.Evaluate(`new Promise(done => {
			const look = () => navigator.clipboard.readText().then(t => t ? done(t) : setTimeout(look, 50), () => setTimeout(look, 50));
			look();
		})`, &copied, awaitPromise),
	)
	if strings.TrimSpace(copied) != strings.TrimSpace(*job.Transcription) {
		t.Fatalf("clipboard %q, transcript %q", copied, *job.Transcription)
	}

	// Retention in the settings.
	var days string
	run(t, b, "set the retention",
		chromedp.Navigate(s.base+"/app/settings"),
		chromedp.WaitVisible("#retentionDays", chromedp.ByID),
		chromedp.SetValue("#retentionDays", "30", chromedp.ByID),
		chromedp.Click("#save-retention", chromedp.ByID),
		chromedp.WaitVisible(".flash", chromedp.ByQuery),
		chromedp.Value("#retentionDays", &days, chromedp.ByID),
	)
	shoot(t, b, shots, "21-settings-retention")
	if days != "30" {
		t.Fatalf("after saving, the settings show %q days", days)
	}
}
