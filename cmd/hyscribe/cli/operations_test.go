package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/servicetest"
	"github.com/hyscribe/hyscribe/domain"
)

type lockedBuffer = servicetest.LockedBuffer

// One job through the whole service shows in /metrics the way operators
// watch a pipeline (jobs by terminal state, webhook deliveries by event and
// outcome, outbox backlog, consumer lag per group and topic, the runtime's
// and the process's own metrics) and in the log as one line per stage it
// passed, with no transcript in it.
func TestOperatorsSeeAJobInMetricsAndLogs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole service")
	}
	engine := asrtest.NewEngine(t)
	hook := &receiver{got: map[string]int{}}
	hookSrv := httptest.NewServer(hook)
	defer hookSrv.Close()
	vars := map[string]string{
		"HYSCRIBE_DATA_DIR":              t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":             "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR":   "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":      "2",
		"HYSCRIBE_ASR_URL":               engine.URL(),
		"HYSCRIBE_WEBHOOK_ALLOW_PRIVATE": "true",
		"HYSCRIBE_SHUTDOWN_GRACE":        "200ms",
		"HYSCRIBE_LOG_LEVEL":             "info",
	}
	getenv := env(vars)
	acct := runCLI(t, getenv, "account", "create", "--name", "ops", "--plan", "business", "--seconds", "3600")
	runCLI(t, getenv, "account", "update", "--account", acct["accountId"].(string), "--webhook-url", hookSrv.URL, "--webhook-secret", "hook-secret-value")
	key := acct["apiKey"].(string)
	cfg, err := cli.LoadConfig(getenv)
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	svc, err := cli.Start(context.Background(), cfg, cli.RoleAPI|cli.RoleWorker, cli.AllStages, logs)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop()

	mono, _ := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "audio", "speech-mono-16k.mp3"))
	var created struct{ DocID, UploadURL string }
	base := "http://" + svc.HTTPAddr()
	call(t, "POST", base+"/api/createTranscription", key, strings.NewReader(`{"type":"single_voice"}`), 200, &created)
	call(t, "PUT", created.UploadURL, "", bytes.NewReader(mono), 200, nil)

	scrape := func() string {
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	want := []string{
		`hyscribe_jobs_finished_total{state="transcribed",type="single_voice"} 1`,
		`hyscribe_webhook_deliveries_total{event="transcript_ready",outcome="ok"} 1`,
		`hyscribe_webhook_delivery_duration_seconds_count{event="transcript_ready",outcome="ok"} 1`,
		`hyscribe_outbox_backlog `,
		`hyscribe_outbox_oldest_age_seconds `,
		`hyscribe_kafka_consumer_lag{group="hyscribe-process",topic="hyscribe.audio.uploaded.v1"} `,
		`hyscribe_kafka_consumer_members{group="hyscribe-analyze",topic="hyscribe.transcript.ready.v1"} `,
		`hyscribe_kafka_topic_unconsumed_seconds{group="hyscribe-enrich",topic="hyscribe.transcript.recognised.v1"} `,
		`hyscribe_stage_events_total{result="ok",stage="transcribe",topic="hyscribe.audio.processed.v1"} 1`,
		`go_goroutines `, `process_resident_memory_bytes `, `go_build_info{`, `hyscribe_build_info{`,
	}
	waitFor(t, "every metric in /metrics", 60*time.Second, func() (bool, string) {
		body := scrape()
		var missing []string
		for _, w := range want {
			if !strings.Contains(body, w) {
				missing = append(missing, w)
			}
		}
		return len(missing) == 0, fmt.Sprintf("lacks %q\n%s", missing, body)
	})

	// What the service exports passes Prometheus' own linter.
	if promtool := os.Getenv("HYSCRIBE_TEST_PROMTOOL"); promtool != "" {
		cmd := exec.Command(promtool, "check", "metrics")
		cmd.Stdin = strings.NewReader(scrape())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	}

	// The job's way through the stages, one line per stage.
	var job struct{ Transcription string }
	call(t, "GET", base+"/api/getTranscription?docId="+created.DocID, key, nil, 200, &job)
	log := logs.String()
	for _, stage := range []string{"process", "transcribe", "enrich", "notify"} {
		if !containsJobLine(log, stage, created.DocID) {
			t.Errorf("no job line of stage %s for %s in the log", stage, created.DocID)
		}
	}
	if job.Transcription == "" || strings.Contains(log, job.Transcription) || strings.Contains(log, "hook-secret-value") {
		t.Errorf("the log holds the transcript %q or the webhook secret:\n%s", job.Transcription, log)
	}

	// hyscribe job show: the states with times, the events and the
	// delivery, from the store; no transcript or secret.
	var out, errb bytes.Buffer
	if err := cli.Run(context.Background(), []string{"job", "show", "--doc", created.DocID}, getenv, &out, &errb); err != nil {
		t.Fatalf("job show: %v\n%s", err, errb.String())
	}
	var shown struct {
		DocID  string
		Status string
		States []struct {
			Status string
			At     time.Time
		}
		Events     []struct{ Type, Topic string }
		Deliveries []struct {
			EventType, Status string
			HTTPStatus        int
		}
	}
	if err := json.Unmarshal(out.Bytes(), &shown); err != nil {
		t.Fatalf("job show printed %q: %v", out.String(), err)
	}
	var states []string
	for i, st := range shown.States {
		states = append(states, st.Status)
		if i > 0 && st.At.Before(shown.States[i-1].At) {
			t.Errorf("states out of order: %+v", shown.States)
		}
	}
	if shown.DocID != created.DocID || shown.Status != "transcribed" || strings.Join(states, ",") != "uploading,processing,converting,transcribed" {
		t.Errorf("job show: %s", out.String())
	}
	types := map[string]bool{}
	for _, e := range shown.Events {
		types[e.Type] = true
	}
	for _, typ := range []string{"audio.uploaded", "audio.processed", "transcript.recognised", "transcript.ready", "job.status"} {
		if !types[typ] {
			t.Errorf("job show lists no %s event: %s", typ, out.String())
		}
	}
	if len(shown.Deliveries) != 1 || shown.Deliveries[0].EventType != "transcript_ready" || shown.Deliveries[0].HTTPStatus != 200 {
		t.Errorf("job show deliveries: %+v", shown.Deliveries)
	}
	if strings.Contains(out.String(), job.Transcription) || strings.Contains(out.String(), "hook-secret-value") {
		t.Errorf("job show prints the transcript or the secret: %s", out.String())
	}
	err = cli.Run(context.Background(), []string{"job", "show", "--doc", "no-such-doc"}, getenv, io.Discard, io.Discard)
	if !errors.Is(err, domain.ErrNotFound) || cli.ExitCode(err) != 1 {
		t.Errorf("job show of an unknown doc: %v", err)
	}
}

// containsJobLine reports whether log has a "job handled" line of stage for
// doc.
func containsJobLine(log, stage, doc string) bool {
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, `"msg":"job handled"`) && strings.Contains(l, `"stage":"`+stage+`"`) &&
			strings.Contains(l, `"docId":"`+doc+`"`) && strings.Contains(l, `"outcome":"ok"`) {
			return true
		}
	}
	return false
}
