package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
)

// readmeSession is the README's curl session: the ```sh blocks that follow
// a "<!-- readme-session" comment, in order.
func readmeSession(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []string
	var cur []string
	marked, in := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case in && line == "```":
			blocks, in, cur = append(blocks, strings.Join(cur, "\n")), false, nil
		case in:
			cur = append(cur, line)
		case strings.HasPrefix(line, "<!-- readme-session"):
			marked = true
		case marked && line == "```sh":
			marked, in = false, true
		case marked && strings.TrimSpace(line) != "":
			marked = false // a marker belongs to the block right after it
		}
	}
	if len(blocks) < 5 {
		t.Fatalf("the README marks %d blocks as its session; want the account, job, idempotency, events and reconciliation ones", len(blocks))
	}
	return blocks
}

// TestReadmeSessionVerbatim runs the README's curl session as written
// against a real `hyscribe serve` (the built binary, a test speech engine,
// a receiver of the test's own): the only substitutions are the service's
// address for 127.0.0.1:8080, the receiver's for 127.0.0.1:9400/hook and
// the built binary for `go run ./cmd/hyscribe`. It runs from a scratch
// directory whose testdata is the repository's, with bash -e and a TMPDIR
// of its own: any failing command fails the test, and what it printed is
// checked. The files holding secrets (account.json, receiver.json) must be
// in the session's private directory under TMPDIR, not where it runs (the
// repository's top directory), and an export that fails must leave no
// file.
func TestReadmeSessionVerbatim(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the service")
	}
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the README's session needs %s (.ci/deps.sh installs it): %v", tool, err)
		}
	}
	blocks := readmeSession(t)
	engine := asrtest.NewEngine(t)
	var mu sync.Mutex
	var events [][]byte
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		events = append(events, b)
		mu.Unlock()
	}))
	defer hook.Close()
	dir := t.TempDir()
	vars := map[string]string{
		"HYSCRIBE_DATA_DIR":              filepath.Join(dir, "data"),
		"HYSCRIBE_HTTP_ADDR":             "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR":   "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":      "2",
		"HYSCRIBE_ASR_URL":               engine.URL(),
		"HYSCRIBE_WEBHOOK_ALLOW_PRIVATE": "true",
		"HYSCRIBE_SHUTDOWN_GRACE":        "200ms",
	}
	svc := startProc(t, "serve", vars, "serve")
	addr, _ := svc.waitLog(t, "http listening", 60*time.Second)["addr"].(string)

	work := filepath.Join(dir, "work")
	repoTestdata, err := filepath.Abs("../../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(work, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(repoTestdata, filepath.Join(work, "testdata")); err != nil {
		t.Fatal(err)
	}
	sub := strings.NewReplacer(
		"http://127.0.0.1:8080", "http://"+addr,
		"http://127.0.0.1:9400/hook", hook.URL+"/hook",
		"go run ./cmd/hyscribe", hyscribeBinary(t),
	)
	script := "set -euo pipefail\n" + sub.Replace(strings.Join(blocks, "\n"))
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = work
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o750); err != nil {
		t.Fatal(err)
	}
	quick := filepath.Join(tmp, "hyscribe-quickstart")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "LANG=C.UTF-8", "TMPDIR=" + tmp}
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(3 * time.Minute):
		_ = cmd.Process.Kill()
		err = <-done
		t.Errorf("the session did not end within 3 minutes")
	}
	out := stdout.String()
	if err != nil {
		t.Fatalf("the README's session failed: %v\n--- script ---\n%s\n--- stdout ---\n%s\n--- stderr ---\n%s", err, script, out, stderr.String())
	}
	t.Logf("stdout:\n%s\nstderr:\n%s", out, stderr.String())

	read := func(name string) map[string]any {
		if !filepath.IsAbs(name) {
			name = filepath.Join(work, name)
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %q is not JSON: %v", name, b, err)
		}
		return m
	}
	if s := read("status.json"); s["status"] != "transcribed" || s["transcription"] == "" {
		t.Errorf("the polled job: %v", s)
	}
	doc, _ := read("job.json")["docId"].(string)
	if !strings.Contains(out, "saved "+doc+".srt") {
		t.Errorf("the export did not say it saved %s.srt", doc)
	}
	if srt, err := os.ReadFile(filepath.Join(work, doc+".srt")); err != nil || !strings.HasPrefix(string(srt), "1\n00:00:") {
		t.Errorf("%s.srt: %q %v", doc, srt, err)
	}
	if !regexp.MustCompile(`(?m)^HTTP/1\.1 200 OK`).MatchString(out) {
		t.Errorf("the idempotent create printed no 200")
	}
	if srt, err := os.ReadFile(filepath.Join(work, "speech.srt")); err != nil || !strings.Contains(string(srt), " --> ") {
		t.Errorf("speech.srt from hyscribe transcribe: %q %v", srt, err)
	}
	if !strings.Contains(out, `{"docId":"`+doc+`","deleted":true}`) {
		t.Errorf("the delete did not answer deleted:true")
	}
	if s, _ := read(filepath.Join(quick, "receiver.json"))["webhookSecret"].(string); !strings.HasPrefix(s, "whsec_") {
		t.Errorf("--generate-webhook-secret printed %v", read(filepath.Join(quick, "receiver.json")))
	}
	if k, _ := read(filepath.Join(quick, "account.json"))["apiKey"].(string); !strings.HasPrefix(k, "hsk_") {
		t.Errorf("account.json holds no API key")
	}
	if fi, err := os.Stat(quick); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the session's directory of secrets: %v %v; want mode 0700", fi, err)
	}
	for _, secret := range []string{"account.json", "receiver.json"} {
		if _, err := os.Stat(filepath.Join(work, secret)); !os.IsNotExist(err) {
			t.Errorf("the session left %s (a secret) where it runs: %v", secret, err)
		}
	}
	readmeExportFailureLeavesNoFile(t, sub.Replace(strings.Join(blocks, "\n")), work, tmp, quick, read(filepath.Join(quick, "account.json"))["apiKey"].(string))
	missed, _ := read("missed.json")["items"].([]any)
	if len(missed) == 0 || strings.Count(out, `"code":"conflict"`) != len(missed) {
		t.Errorf("reconciliation: %d jobs listed, answers:\n%s", len(missed), out)
	}
	if id, _ := read("checklist-id.json")["checklistId"].(string); id == "" || !strings.Contains(out, `{"docId":"`) {
		t.Errorf("the checklist job: %v\n%s", read("checklist-id.json"), out)
	}
	if !strings.Contains(stderr.String(), "hyscribe: using the SQLite store "+filepath.Join(dir, "data", "hyscribe.db")) {
		t.Errorf("provisioning did not say which store it used: %s", stderr.String())
	}
}

// readmeExportFailureLeavesNoFile runs the session's export (its if curl …
// fi) for a docId that does not exist: it must print the service's error
// and leave neither <docId>.srt nor its download behind.
func readmeExportFailureLeavesNoFile(t *testing.T, session, work, tmp, quick, key string) {
	t.Helper()
	export := regexp.MustCompile(`(?ms)^if curl .*?exportTranscription.*?^fi$`).FindString(session)
	if export == "" {
		t.Fatalf("no export (if curl … exportTranscription … fi) in the session:\n%s", session)
	}
	cmd := exec.Command("bash", "-c", "set -euo pipefail\n"+export)
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "LANG=C.UTF-8", "TMPDIR=" + tmp,
		"Q=" + quick, "DOC=no-such-doc", "KEY=" + key}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "no transcription with this docId") {
		t.Errorf("the export of a missing doc: %v, printed %q; want the service's error", err, out)
	}
	for _, left := range []string{filepath.Join(work, "no-such-doc.srt"), filepath.Join(quick, "export")} {
		if _, err := os.Stat(left); !os.IsNotExist(err) {
			t.Errorf("a failed export left %s: %v", left, err)
		}
	}
}
