package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
	"github.com/hyscribe/hyscribe/domain"
)

// TestReviewReachesTheReceiverAndClickHouse runs the whole service with
// the analytics stage (issue 36 item 3): an owner signs in, reviews an
// analysed call through the recording page's form (over HTTP), and the
// review travels — the receiver gets analysis_reviewed, signed like every
// event, and ClickHouse gets its rows, which `hyscribe report reviews`
// reads back as the machine against the reviewer.
func TestReviewReachesTheReceiverAndClickHouse(t *testing.T) {
	dsn := clickhouseDB(t)
	dir := t.TempDir()
	var mu sync.Mutex
	var got []domain.AnalysisReviewedPayload
	var signed []string
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var p domain.AnalysisReviewedPayload
		if json.Unmarshal(b, &p) == nil && p.EventType == domain.EventAnalysisReviewed {
			mu.Lock()
			got, signed = append(got, p), append(signed, r.Header.Get("webhook-signature"))
			mu.Unlock()
		}
	}))
	defer receiver.Close()
	vars := analyticsVars(t, dir, dsn, "warn")
	vars["HYSCRIBE_WEBHOOK_ALLOW_PRIVATE"] = "true"
	getenv := env(vars)
	acct := runCLI(t, getenv, "account", "create", "--name", "qa", "--plan", "business", "--seconds", "3600")
	accountID, key := acct["accountId"].(string), acct["apiKey"].(string)
	runCLI(t, getenv, "account", "update", "--account", accountID, "--webhook-url", receiver.URL, "--webhook-secret", "s3cret")
	pw := filepath.Join(dir, "pw")
	def := filepath.Join(dir, "checklist.json")
	if err := os.WriteFile(pw, []byte("a long enough password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(def, []byte(`{"name":"Զանգի որակ","questions":[{"id":"greet","text":"Ողջունե՞ց","expect":["բարև"]},{"id":"none","text":"Անհնար","expect":["զզզզզզ քքքքքք"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	runCLI(t, getenv, "user", "create", "--account", accountID, "--email", "lead@example.am", "--password-file", pw, "--role", "owner")
	checklistID := runCLI(t, getenv, "checklist", "create", "--account", accountID, "--file", def)["checklistId"].(string)

	cfg, err := cli.LoadConfig(getenv)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := cli.Start(context.Background(), cfg, cli.RoleAPI|cli.RoleWorker, cli.AllStages, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop()
	base := "http://" + svc.HTTPAddr()
	mono, _ := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	var created struct{ DocID, UploadURL string }
	call(t, "POST", base+"/api/createTranscription", key, strings.NewReader(`{"type":"single_voice","checklistId":"`+checklistID+`"}`), 200, &created)
	call(t, "PUT", created.UploadURL, "", bytes.NewReader(mono), 200, nil)

	lead := browserless(t)
	page := body(t, get(t, lead, base+"/app/signin"))
	postForm(t, lead, base+"/app/signin", url.Values{"_csrf": {csrfOf(t, page)}, "email": {"lead@example.am"}, "password": {"a long enough password"}}).Body.Close()
	recording := base + "/app/recordings/" + created.DocID
	waitFor(t, "the call analysed, with the review form", 30*time.Second, func() (bool, string) {
		page = body(t, get(t, lead, recording))
		return strings.Contains(page, `id="review-form"`), ""
	})
	// The machine answered "none" no; the owner says yes, with a reason.
	res := postForm(t, lead, recording+"/review", url.Values{"_csrf": {csrfOf(t, page)}, "answer.none": {"yes"},
		"reason.none": {"Ասաց 0:03-ին"}, "comment": {"Լավ զանգ"}})
	after := body(t, res)
	if res.Request.URL.Query().Get("saved") != "reviewed" || !strings.Contains(after, "lead@example.am") {
		t.Fatalf("the review ended at %s (%d)", res.Request.URL, res.StatusCode)
	}
	waitFor(t, "the receiver gets analysis_reviewed", 30*time.Second, func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == 1, fmt.Sprint(len(got), " events")
	})
	mu.Lock()
	p, sig := got[0], signed[0]
	mu.Unlock()
	if p.DocID != domain.DocID(created.DocID) || p.Revision != 1 || p.Secret != "s3cret" || p.Answers["none"].MachineAnswer != "no" ||
		p.Answers["none"].Answer != "yes" || p.Reviewer.Email != "lead@example.am" || p.ReviewedScore <= p.MachineScore || sig == "" {
		t.Fatalf("analysis_reviewed %+v (signature %q)", p, sig)
	}

	today := time.Now().UTC().Format(time.DateOnly)
	tomorrow := time.Now().UTC().Add(24 * time.Hour).Format(time.DateOnly)
	var rep map[string]any
	waitFor(t, "the review in ClickHouse's report", 30*time.Second, func() (bool, string) {
		rep = runCLI(t, getenv, "report", "reviews", "--account", accountID, "--checklist", checklistID, "--from", today, "--to", tomorrow, "--json")
		return rep["reviewed"] == float64(1), fmt.Sprint(rep)
	})
	qs := rep["questions"].([]any)
	none := qs[1].(map[string]any)
	if len(qs) != 2 || none["questionId"] != "none" || none["overridden"] != float64(1) || none["agreement"] != float64(0) ||
		qs[0].(map[string]any)["agreement"] != float64(1) {
		t.Fatalf("report questions %v", qs)
	}
	var out, errb bytes.Buffer
	if err := cli.Run(context.Background(), []string{"report", "reviews", "--account", accountID, "--checklist", checklistID, "--from", today, "--to", tomorrow}, getenv, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	if !strings.Contains(out.String(), "reviewed calls: 1 (machine score 0.50, reviewed score 1.00)") || !strings.Contains(out.String(), "agreement") {
		t.Fatalf("report:\n%s", out.String())
	}
	t.Logf("report:\n%s", out.String())
}
