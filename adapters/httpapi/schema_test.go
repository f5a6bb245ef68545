package httpapi

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/testenv"
)

// transcribe takes an uploading job through the state machine to
// transcribed, as the pipeline would.
func (e *env) transcribe(id string) {
	e.t.Helper()
	e.transcribeAs(id, transcript{
		audioKey: "audio/x/y.mp3", size: 10,
		audio: domain.AudioInfo{Duration: 9.5, Channels: 1, SampleRate: 16000},
		text:  "Բարև Ձեզ", segments: []domain.Segment{{Start: 0, End: 1.2, Text: "Բարև Ձեզ"}},
	})
}

// transcript is what transcribeAs gives a job.
type transcript struct {
	typ      domain.JobType // "" leaves the job's type
	audioKey string
	size     int64
	audio    domain.AudioInfo
	text     string
	segments []domain.Segment
}

// transcribeAs takes an uploading job through the state machine to
// transcribed with tr, as the pipeline would.
func (e *env) transcribeAs(id string, tr transcript) {
	e.t.Helper()
	now := e.clock.Now()
	err := e.store.UpdateJob(context.Background(), domain.DocID(id), func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
		if tr.typ != "" {
			j.Type = tr.typ
		}
		var evs []domain.Event
		steps := []func() ([]domain.Event, error){
			func() ([]domain.Event, error) { return j.ReceiveUpload(now, tr.audioKey, tr.size) },
			func() ([]domain.Event, error) { return j.Measure(now, tr.audio, a, 0) },
			func() ([]domain.Event, error) { return j.StartConverting(now) },
			func() ([]domain.Event, error) { return j.Recognize(now, tr.text, tr.segments) },
			func() ([]domain.Event, error) {
				return j.Complete(now, "Ողջույն", "Կարճ ամփոփում։", "hy-AM")
			},
		}
		for _, step := range steps {
			ev, err := step()
			if err != nil {
				return nil, err
			}
			evs = append(evs, ev...)
		}
		return evs, nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// fail moves a job to failed.
func (e *env) fail(id string) {
	e.t.Helper()
	err := e.store.UpdateJob(context.Background(), domain.DocID(id), func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
		return j.Fail(e.clock.Now(), "the file is WAV audio, not MP3", a)
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// schemaChecks are requests whose answers must match the document's
// schemas (e.do checks each; every test's answers are checked the same
// way). {done}, {failed} and {waiting} are the docIds of a transcribed, a
// failed and an uploading job of the caller; {other} is a job of another
// account. Every documented operation's 200 must be here: a new endpoint
// adds its lines.
var schemaChecks = []struct {
	method, path, body string
	status             int
}{
	{"POST", "/api/createTranscription", `{"type":"phone_call","metadata":{"crm":"A-1"}}`, 200},
	{"POST", "/api/createTranscription", `{"type":"video"}`, 400},
	{"GET", "/api/getTranscription?docId={done}", "", 200},
	{"GET", "/api/getTranscription?docId={failed}", "", 200},
	{"GET", "/api/getTranscription?docId={waiting}", "", 200},
	{"GET", "/api/getTranscription?docId={other}", "", 404},
	{"GET", "/api/getTranscription", "", 400},
	{"GET", "/healthz", "", 200},
	{"GET", "/readyz", "", 200},
	{"GET", "/metrics", "", 200},
	{"GET", "/api/openapi.json", "", 200},
	{"GET", "/api/exportTranscription?docId={done}&format=json", "", 200},
	{"GET", "/api/exportTranscription?docId={waiting}&format=srt", "", 409},
	{"GET", "/api/listTranscriptions?limit=2", "", 200},
	{"GET", "/api/listTranscriptions?status=failed", "", 200},
	{"GET", "/api/listTranscriptions?status=done", "", 400},
	{"POST", "/api/resendEvent", `{"docId":"{done}","event":"transcript_ready"}`, 200},
	{"POST", "/api/resendEvent", `{"docId":"{waiting}","event":"transcript_ready"}`, 409},
	{"POST", "/api/resendEvent", `{"docId":"{other}","event":"transcript_ready"}`, 404},
	{"POST", "/api/deleteTranscription", `{"docId":"{failed}"}`, 200},
}

func TestServedAnswersMatchTheDocument(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	acct, key := e.account(domain.PlanBusiness)
	_, otherKey := e.account(domain.PlanBusiness)
	done, _ := e.newJob(key)
	failed, _ := e.newJob(key)
	waiting, _ := e.newJob(key)
	other, _ := e.newJob(otherKey)
	e.transcribe(done)
	e.fail(failed)
	e.delivered(acct.ID, done, newReceiver(t, 200).URL)
	fill := strings.NewReplacer("{done}", done, "{failed}", failed, "{waiting}", waiting, "{other}", other)

	checked := map[string]bool{}
	for _, c := range schemaChecks {
		h := bearer(key)
		var r response
		if c.body != "" {
			h["Content-Type"] = "application/json"
			r = e.do(c.method, fill.Replace(c.path), h, strings.NewReader(fill.Replace(c.body)))
		} else {
			r = e.do(c.method, fill.Replace(c.path), h, nil)
		}
		if r.status != c.status {
			t.Errorf("%s %s: %d %s, want %d", c.method, c.path, r.status, r.body, c.status)
		}
		path, _, _ := strings.Cut(c.path, "?")
		checked[c.method+" "+path+" "+strconv.Itoa(r.status)] = true
	}
	// Every served operation's success is among the checks.
	for _, rt := range e.app.GetRoutes(true) {
		if rt.Name == "" || rt.Name == "uploadAudio" { // the upload's answer is an empty 200 (upload_test.go)
			continue
		}
		if !checked[rt.Method+" "+rt.Path+" 200"] {
			t.Errorf("no check of %s %s's 200: add a line to schemaChecks", rt.Method, rt.Path)
		}
	}
}

// TestOpenAPIServersFromPublicURL: the document served names the service's
// HYSCRIBE_PUBLIC_URL, so clients generated from it call this service.
func TestOpenAPIServersFromPublicURL(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *options) { o.cfg.PublicURL = "https://transcribe.clinic.example" })
	r := e.do("GET", "/api/openapi.json", nil, nil)
	doc := r.json(t)
	servers, _ := doc["servers"].([]any)
	if len(servers) != 1 || servers[0].(map[string]any)["url"] != "https://transcribe.clinic.example" {
		t.Fatalf("servers %v, want the public URL", doc["servers"])
	}
	if doc["webhooks"] == nil || doc["paths"] == nil || !strings.Contains(string(r.body), "<v Խոսնակ 1>") {
		t.Fatal("the served document lost content when its servers were set")
	}
	lint(t, r.body)
}

// TestOpenAPILint lints the document with an independent validator,
// Redocly's CLI (npm @redocly/cli, run by Debian's node; .ci/deps.sh
// installs it), with its recommended rules: any error fails.
func TestOpenAPILint(t *testing.T) {
	t.Parallel()
	lint(t, openAPIDocument)
}

func lint(t *testing.T, doc []byte) {
	t.Helper()
	redocly := filepath.Join(testenv.NPMModules(t, "@redocly/cli"), ".bin", "redocly")
	file := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(file, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), redocly, "lint", "--format", "stylish", file)
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("redocly lint: %v\n%s", err, out)
	}
}
