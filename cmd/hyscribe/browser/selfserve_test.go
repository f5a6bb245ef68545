package browser

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/kafka"
	"github.com/hyscribe/hyscribe/adapters/s3/s3test"
)

// TestSelfServeInABrowser is issue 14's walk, as a new customer's team
// lead does it in Chromium: sign up → (the operator enables the account)
// → drop a WAV file and pick two MP3 files in "New recording": the WAV is
// refused in the page with the pipeline's reason, the MP3s upload with a
// progress bar each and appear in the history at once, their statuses
// changing live → open a recording and play it → usage → invite a member
// with a one-time link → the member accepts, signs in and reads, but is
// offered nothing that changes the account. Every page is then shot at
// 1280 and 390 px, and none scrolls sideways on the phone.
func TestSelfServeInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service and a browser")
	}
	chrome := chromium(t)
	shots := screenshotDir(t)
	engine := asrtest.NewEngine(t, asrtest.WithTexts("Բարև ձեզ, ես զանգում եմ պատվերի մասին։", "Շնորհակալություն, ցտեսություն։"))
	s := startService(t, map[string]string{"HYSCRIBE_ASR_URL": engine.URL()})
	b := browser(t, chrome)
	const org = "Կլինիկա «Առողջ»"

	accountID := signUp(t, b, s, shots, "", org, "lead@clinic.am")
	s.cli(t, "account", "update", "--account", accountID, "--plan", "business", "--seconds", "3600")

	// New recording: a WAV dropped on the form, two MP3s from the picker.
	wav, err := os.ReadFile("../../../testdata/audio/tone.wav")
	if err != nil {
		t.Fatal(err)
	}
	mp3s := []string{abs(t, "../../../testdata/audio/speech-mono-16k.mp3"), abs(t, "../../../testdata/audio/id3-stereo-44k.mp3")}
	run(t, b, "the upload form",
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.WaitVisible("#upload-form", chromedp.ByID),
		chromedp.Evaluate(fmt.Sprintf(`(function(){
			var bytes = Uint8Array.from(atob(%q), function(c){ return c.charCodeAt(0); });
			var dt = new DataTransfer();
			dt.items.add(new File([bytes], "voicemail.wav", {type: "audio/wav"}));
			document.getElementById("drop").dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
			return true;
		})()`, base64.StdEncoding.EncodeToString(wav)), nil),
		chromedp.SetUploadFiles("#files", mp3s, chromedp.ByID),
		chromedp.SetValue("#up-type", "single_voice", chromedp.ByID),
		chromedp.SendKeys("#up-metadata", "crmId = B-77", chromedp.ByID),
		chromedp.Evaluate(`window.__marker = "same page"`, nil),
	)
	var queued int
	run(t, b, "files listed", chromedp.Evaluate(`document.querySelectorAll("#upload-list .upload-item").length`, &queued))
	if queued != 3 {
		t.Fatalf("%d files listed after one drop and a pick of two, want 3", queued)
	}
	shoot(t, b, shots, "ss-01-upload-queued")
	var refused string
	var progress []float64
	run(t, b, "upload",
		chromedp.Click("#upload-start", chromedp.ByID),
		chromedp.Poll(`document.querySelectorAll('#upload-list [data-result]').length === 3`, nil, chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.Text(`#upload-list [data-result="refused"] .state`, &refused, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#upload-list [data-result="uploaded"] progress')).map(function(p){ return p.value; })`, &progress),
	)
	// The Armenian page says it in Armenian, chosen by the reason's code
	// (issue 27), naming the format.
	if !strings.Contains(refused, "Ֆայլը WAV է, ոչ MP3") || strings.Contains(refused, "not MP3") {
		t.Fatalf("the WAV file's refusal reads %q; want the process stage's reason in Armenian", refused)
	}
	if len(progress) != 2 || progress[0] != 100 || progress[1] != 100 {
		t.Fatalf("progress bars of the uploaded files: %v, want two at 100", progress)
	}
	// The new rows are in the history, and their statuses change live.
	var marker string
	var rows int
	run(t, b, "live statuses",
		chromedp.Poll(`document.querySelectorAll('#history tr[data-live-id][data-status="transcribed"]').length === 2`, nil, chromedp.WithPollingTimeout(40*time.Second)),
		chromedp.Evaluate(`window.__marker || ""`, &marker),
		chromedp.Evaluate(`document.querySelectorAll('#history tr[data-live-id]').length`, &rows),
	)
	if marker != "same page" || rows != 2 {
		t.Fatalf("after the uploads: marker %q, %d rows; want the same page with two rows (the WAV made no job)", marker, rows)
	}
	shoot(t, b, shots, "ss-02-history-uploaded")

	// A recording's page: the transcript, its metadata, and playback.
	run(t, b, "open a recording",
		chromedp.Click(`#history tr[data-live-id] a`, chromedp.ByQuery),
		chromedp.WaitVisible("#transcript", chromedp.ByID),
	)
	var metaText string
	run(t, b, "play", chromedp.Text("#metadata", &metaText, chromedp.ByID),
		chromedp.Click(`#transcript [data-start]`, chromedp.ByQuery),
		chromedp.Poll(`(function(){var a=document.getElementById("player");return !a.paused && a.currentTime>0;})()`, nil, chromedp.WithPollingTimeout(15*time.Second)),
	)
	if !strings.Contains(metaText, "B-77") {
		t.Errorf("the metadata typed in the form is not on the page: %q", metaText)
	}
	var recordingURL string
	run(t, b, "location", chromedp.Location(&recordingURL))
	shoot(t, b, shots, "ss-03-recording")

	// Usage: the plan in words, the seconds, the chart, the largest.
	var plan string
	var largest int
	run(t, b, "usage",
		chromedp.Navigate(s.base+"/app/usage"),
		chromedp.WaitVisible("#usage-chart", chromedp.ByID),
		chromedp.Text("#usage-plan", &plan, chromedp.ByID),
		chromedp.Evaluate(`document.querySelectorAll("#usage-largest tbody tr").length`, &largest),
	)
	if plan == "business" || !strings.Contains(plan, "Business") || largest != 2 {
		t.Errorf("usage: plan %q (want it in words), %d largest recordings (want 2)", plan, largest)
	}
	shoot(t, b, shots, "ss-04-usage")

	// Team: invite a member with a one-time link.
	var link string
	run(t, b, "invite",
		chromedp.Navigate(s.base+"/app/team"),
		chromedp.WaitVisible("#invite-email", chromedp.ByID),
		chromedp.SendKeys("#invite-email", "nurse@clinic.am", chromedp.ByID),
		chromedp.Click("#invite-submit", chromedp.ByID),
		chromedp.WaitVisible("#one-time-link", chromedp.ByID),
		chromedp.Text("#one-time-link", &link, chromedp.ByID),
	)
	if !strings.HasPrefix(link, s.base+"/app/invite/") {
		t.Fatalf("invitation link %q", link)
	}
	shoot(t, b, shots, "ss-05-team-invite")

	// The member accepts: the page names the organisation.
	m := browser(t, chrome)
	var invitedTo string
	run(t, m, "the invitation",
		chromedp.Navigate(link),
		chromedp.WaitVisible("#invite-org", chromedp.ByID),
		chromedp.Text("#invite-org", &invitedTo, chromedp.ByID),
	)
	if !strings.Contains(invitedTo, org) {
		t.Fatalf("the invitation page reads %q; want it to name %q", invitedTo, org)
	}
	shoot(t, m, shots, "ss-06-invitation")
	var memberRows, uploadForms, keyButtons, inviteForms int
	run(t, m, "accept and read",
		chromedp.SendKeys("#password", "the nurse's password", chromedp.ByID),
		chromedp.Click("#accept", chromedp.ByID),
		chromedp.WaitVisible("#history", chromedp.ByID),
		chromedp.Evaluate(`document.querySelectorAll('#history tr[data-live-id]').length`, &memberRows),
		chromedp.Evaluate(`document.querySelectorAll('#upload-form').length`, &uploadForms),
		chromedp.Navigate(recordingURL),
		chromedp.WaitVisible("#transcript", chromedp.ByID),
		chromedp.Navigate(s.base+"/app/settings"),
		chromedp.WaitVisible("#keys", chromedp.ByID),
		chromedp.Evaluate(`document.querySelectorAll('#create-key, .revoke, #save-receiver').length`, &keyButtons),
		chromedp.Navigate(s.base+"/app/team"),
		chromedp.WaitVisible("#team-list", chromedp.ByID),
		chromedp.Evaluate(`document.querySelectorAll('#invite-email, .remove, .set-role, .reset-link').length`, &inviteForms),
	)
	if memberRows != 2 || uploadForms != 0 || keyButtons != 0 || inviteForms != 0 {
		t.Fatalf("the member sees %d recordings (want 2) and is offered %d upload forms, %d key/receiver buttons, %d team changes (want none)",
			memberRows, uploadForms, keyButtons, inviteForms)
	}
	shoot(t, m, shots, "ss-07-member-team")
	// What a member's browser would send anyway is refused.
	var status int
	run(t, m, "a member's upload", chromedp.Evaluate(`fetch("/app/recordings/new", {method: "POST", body: new URLSearchParams({_csrf: "x"})}).then(r => r.status)`, &status, awaitPromise))
	if status != 403 {
		t.Fatalf("a member's POST to the upload form: %d, want 403", status)
	}

	// A reset link and a second invitation, for the screenshots of their pages.
	var resetLink, invite2 string
	run(t, b, "reset link",
		chromedp.Navigate(s.base+"/app/team"),
		chromedp.Click(`tr[data-user="nurse@clinic.am"] .reset-link`, chromedp.ByQuery),
		chromedp.WaitVisible("#one-time-link", chromedp.ByID),
		chromedp.Text("#one-time-link", &resetLink, chromedp.ByID),
		chromedp.Navigate(s.base+"/app/team"),
		chromedp.WaitVisible("#invite-email", chromedp.ByID),
		chromedp.SendKeys("#invite-email", "doctor@clinic.am", chromedp.ByID),
		chromedp.Click("#invite-submit", chromedp.ByID),
		chromedp.WaitVisible("#one-time-link", chromedp.ByID),
		chromedp.Text("#one-time-link", &invite2, chromedp.ByID),
	)
	if !strings.HasPrefix(resetLink, s.base+"/app/reset/") {
		t.Fatalf("reset link %q", resetLink)
	}

	// Every page at 1280 and 390 px; on the phone none scrolls sideways.
	anon := browser(t, chrome)
	pages := []struct {
		ctx        context.Context
		name, path string
	}{
		{b, "recordings", "/app/recordings"},
		{b, "recording", strings.TrimPrefix(recordingURL, s.base)},
		{b, "usage", "/app/usage"},
		{b, "usage-90", "/app/usage?days=90"},
		{b, "team", "/app/team"},
		{b, "password", "/app/password"},
		{b, "api", "/app/api"},
		{b, "settings", "/app/settings"},
		{b, "checklists", "/app/checklists"},
		{b, "checklist-new", "/app/checklists/new"},
		{b, "analytics", "/app/analytics"},
		{b, "not-found", "/app/nothing-here"},
		{anon, "signin", "/app/signin"},
		{anon, "signup", "/app/signup"},
		{anon, "invitation", strings.TrimPrefix(invite2, s.base)},
		{anon, "reset", strings.TrimPrefix(resetLink, s.base)},
	}
	for _, width := range []int64{1280, 390} {
		for _, p := range pages {
			c := p.ctx
			var scrollW int
			run(t, c, fmt.Sprintf("%s at %d px", p.name, width),
				emulation.SetDeviceMetricsOverride(width, 900, 1, width < 500),
				chromedp.Navigate(s.base+p.path),
				chromedp.WaitReady("main", chromedp.ByQuery),
				chromedp.Evaluate(`document.documentElement.scrollWidth`, &scrollW),
			)
			if scrollW > int(width) {
				t.Errorf("at %d px %s is %d px wide: it scrolls sideways", width, p.path, scrollW)
			}
			shoot(t, c, shots, fmt.Sprintf("ss-page-%s-%d", p.name, width))
		}
	}
	t.Logf("screenshots in %s", shots)
}

func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestSelfServeUploadToS3 uploads from the browser with S3-compatible
// storage (a real MinIO): the page PUTs the file straight to the bucket's
// pre-signed address, another origin that the page's CSP must allow.
func TestSelfServeUploadToS3(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MinIO, the service and a browser")
	}
	chrome := chromium(t)
	k, err := kafka.StartEmbedded("127.0.0.1:0", "", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	minio := s3test.Start(t, k.Addrs(), "")
	engine := asrtest.NewEngine(t, asrtest.WithTexts("Բարև ձեզ։"))
	s := startService(t, map[string]string{
		"HYSCRIBE_ASR_URL":       engine.URL(),
		"KAFKA_BROKERS":          strings.Join(k.Addrs(), ","),
		"HYSCRIBE_S3_ENDPOINT":   minio.Endpoint,
		"HYSCRIBE_S3_BUCKET":     "hyscribe-browser",
		"HYSCRIBE_S3_ACCESS_KEY": minio.AccessKey,
		"HYSCRIBE_S3_SECRET_KEY": minio.SecretKey,
		"HYSCRIBE_S3_NOTIFY_ARN": minio.ARN,
	})
	b := browser(t, chrome)
	accountID := signUp(t, b, s, "", "", "S3", "s3@example.am")
	s.cli(t, "account", "update", "--account", accountID, "--plan", "business", "--seconds", "3600")
	var result string
	run(t, b, "upload to the bucket",
		chromedp.Navigate(s.base+"/app/recordings"),
		chromedp.WaitVisible("#upload-form", chromedp.ByID),
		chromedp.SetUploadFiles("#files", []string{abs(t, "../../../testdata/audio/speech-mono-16k.mp3")}, chromedp.ByID),
		chromedp.Click("#upload-start", chromedp.ByID),
		chromedp.Poll(`document.querySelectorAll('#upload-list [data-result]').length === 1`, nil, chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.Text(`#upload-list .state`, &result, chromedp.ByQuery),
	)
	var state string
	run(t, b, "state", chromedp.Evaluate(`document.querySelector('#upload-list [data-result]').getAttribute('data-result')`, &state))
	if state != "uploaded" {
		t.Fatalf("the upload to MinIO: %s (%s)\nMinIO log:\n%s", state, result, clip(minio.Logs(), 3000))
	}
	run(t, b, "transcribed",
		chromedp.Poll(`document.querySelectorAll('#history tr[data-live-id][data-status="transcribed"]').length === 1`, nil, chromedp.WithPollingTimeout(40*time.Second)),
	)
}
