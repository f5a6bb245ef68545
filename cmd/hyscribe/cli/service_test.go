package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/sqlite"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
	"github.com/hyscribe/hyscribe/domain"
)

// receiver records transcript_ready deliveries per docId, and the
// webhook-id of each (a redelivery of one event carries the same id).
type receiver struct {
	mu  sync.Mutex
	got map[string]int
	ids map[string]map[string]bool
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var body struct {
		DocID string `json:"docId"`
	}
	json.NewDecoder(req.Body).Decode(&body)
	r.mu.Lock()
	r.got[body.DocID]++
	if r.ids == nil {
		r.ids = map[string]map[string]bool{}
	}
	if r.ids[body.DocID] == nil {
		r.ids[body.DocID] = map[string]bool{}
	}
	r.ids[body.DocID][req.Header.Get("webhook-id")] = true
	r.mu.Unlock()
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// runCLI runs a command and decodes its JSON output. Provisioning commands
// may make the store: these tests provision before the service first ran
// (provstore_test.go checks the refusal without --create-store).
func runCLI(t *testing.T, getenv func(string) string, args ...string) map[string]any {
	t.Helper()
	if len(args) > 1 && (args[0] == "account" || args[0] == "checklist" || args[0] == "user" && args[1] != "reset-link") {
		args = append(args[:len(args):len(args)], "--create-store")
	}
	var out, errb bytes.Buffer
	if err := cli.Run(context.Background(), args, getenv, &out, &errb); err != nil {
		t.Fatalf("hyscribe %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	return m
}

// TestRestartMidPipelineLosesNoJob stops the service while jobs are in every
// stage (some cut off in the middle of speech recognition), starts it again on
// the same data, and checks that every job ends transcribed with each state
// change made once and one transcript_ready each.
func TestRestartMidPipelineLosesNoJob(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole service twice")
	}
	engine := asrtest.NewEngine(t)
	engine.Delay(700 * time.Millisecond)
	hook := &receiver{got: map[string]int{}}
	hookSrv := httptest.NewServer(hook)
	defer hookSrv.Close()

	vars := map[string]string{
		"HYSCRIBE_DATA_DIR":              t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":             "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR":   "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":      "4",
		"HYSCRIBE_ASR_URL":               engine.URL(),
		"HYSCRIBE_WEBHOOK_ALLOW_PRIVATE": "true",
		"HYSCRIBE_SHUTDOWN_GRACE":        "200ms",
		"HYSCRIBE_STAGE_BACKOFF":         "50ms",
		"HYSCRIBE_LOG_LEVEL":             "warn",
	}
	getenv := env(vars)
	acct := runCLI(t, getenv, "account", "create", "--name", "restart", "--plan", "business", "--seconds", "3600")
	runCLI(t, getenv, "account", "update", "--account", acct["accountId"].(string), "--webhook-url", hookSrv.URL, "--webhook-secret", "s")
	key := acct["apiKey"].(string)

	cfg, err := cli.LoadConfig(getenv)
	if err != nil {
		t.Fatal(err)
	}
	logs, _ := os.Create(filepath.Join(t.TempDir(), "log"))
	defer logs.Close()
	svc, err := cli.Start(context.Background(), cfg, cli.RoleAPI|cli.RoleWorker, cli.AllStages, logs)
	if err != nil {
		t.Fatal(err)
	}
	mono, _ := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	stereo, _ := os.ReadFile("../../../testdata/audio/call-stereo-22k.mp3")
	const jobs = 12
	var ids []string
	for i := 0; i < jobs; i++ {
		typ, audio := "single_voice", mono
		if i%3 == 0 {
			typ, audio = "phone_call", stereo
		}
		var created struct{ DocID, UploadURL string }
		call(t, "POST", "http://"+svc.HTTPAddr()+"/api/createTranscription", key, strings.NewReader(`{"type":"`+typ+`"}`), 200, &created)
		call(t, "PUT", created.UploadURL, "", bytes.NewReader(audio), 200, nil)
		ids = append(ids, created.DocID)
	}
	waitFor(t, "a job inside the speech engine", 30*time.Second, func() (bool, string) {
		return engine.InFlight() > 0, "no request in the engine"
	})
	if err := svc.Stop(); err != nil {
		t.Fatal(err)
	}
	before := statuses(t, vars["HYSCRIBE_DATA_DIR"], ids)
	t.Logf("at stop: %v", before)
	if before[domain.StatusConverting] == 0 || before[domain.StatusTranscribed] == jobs {
		t.Fatalf("at stop no job was mid-recognition (%v): the restart would resume nothing", before)
	}

	cfg.HTTPAddr = "127.0.0.1:0"
	svc, err = cli.Start(context.Background(), cfg, cli.RoleAPI|cli.RoleWorker, cli.AllStages, logs)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop()
	waitFor(t, "every job finished after the restart", 60*time.Second, func() (bool, string) {
		st := statuses(t, vars["HYSCRIBE_DATA_DIR"], ids)
		return st[domain.StatusTranscribed] == jobs, fmt.Sprint(st)
	})
	// The engine's latency and circuit are in /metrics.
	resp, err := http.Get("http://" + svc.HTTPAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`hyscribe_asr_request_duration_seconds_count{result="ok"}`, "hyscribe_asr_circuit_state 0", "hyscribe_asr_requests_in_flight",
		"hyscribe_asr_slots 4", "hyscribe_asr_requests_queued 0", "hyscribe_asr_slot_busy_seconds_total", "hyscribe_asr_engine_busy_ratio"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
	// Every state change was made once: one status event per job and state.
	seen := map[string]int{}
	cl, err := kgo.NewClient(kgo.SeedBrokers(svc.Brokers()...), kgo.ConsumeTopics(domain.TopicJobStatus), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	want := jobs * 4 // uploading, processing, converting, transcribed
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for n := 0; n < want && ctx.Err() == nil; {
		fs := cl.PollFetches(ctx)
		fs.EachRecord(func(r *kgo.Record) {
			var ev domain.Event
			json.Unmarshal(r.Value, &ev)
			seen[ev.ID]++
			n++
		})
	}
	if len(seen) != want {
		t.Fatalf("%d distinct status events, want %d", len(seen), want)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("status event %s published %d times", id, n)
		}
	}
	// One transcript_ready per job.
	waitFor(t, "a transcript_ready per job", 10*time.Second, func() (bool, string) {
		hook.mu.Lock()
		defer hook.mu.Unlock()
		return len(hook.got) == jobs, fmt.Sprintf("%d of %d", len(hook.got), jobs)
	})
	hook.mu.Lock()
	defer hook.mu.Unlock()
	for _, id := range ids {
		if hook.got[id] != 1 {
			t.Errorf("job %s: %d transcript_ready deliveries", id, hook.got[id])
		}
	}
}

func statuses(t *testing.T, dir string, ids []string) map[domain.Status]int {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "hyscribe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out := map[domain.Status]int{}
	for _, id := range ids {
		j, err := st.GetJob(context.Background(), domain.DocID(id))
		if err != nil {
			t.Fatal(err)
		}
		out[j.Status]++
		if j.Status == domain.StatusFailed {
			t.Fatalf("job %s failed: %s", id, j.Error)
		}
	}
	return out
}

func call(t *testing.T, method, url, key string, body io.Reader, want int, out any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, body)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s %s: %d %s", method, url, res.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(fmt.Errorf("%s: %w", b, err))
		}
	}
}
