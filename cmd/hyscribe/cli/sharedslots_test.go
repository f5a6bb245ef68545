package cli_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// slotEngine answers every request after delay and counts the most it
// had at once.
type slotEngine struct {
	delay     time.Duration
	mu        sync.Mutex
	cur, peak int
	requests  int
}

func (e *slotEngine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.ParseMultipartForm(1 << 20)
	e.mu.Lock()
	e.cur++
	e.requests++
	e.peak = max(e.peak, e.cur)
	e.mu.Unlock()
	time.Sleep(e.delay) // a request's time at the engine: requests overlap
	e.mu.Lock()
	e.cur--
	e.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"task": "transcribe", "language": "armenian", "duration": 5.6, "text": "Բարև ձեզ",
		"segments": []map[string]any{{"id": 0, "start": 0, "end": 5.6, "text": "Բարև ձեզ"}}})
}

func (e *slotEngine) reset() (peak, requests int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	peak, requests = e.peak, e.requests
	e.peak, e.requests = 0, 0
	return peak, requests
}

// Issue 28: HYSCRIBE_ASR_CONCURRENCY is the engine's limit, shared by every
// worker on Postgres. Two workers of 2 requests each send a 2-slot engine
// at most 2 at once; with HYSCRIBE_ASR_SHARED_SLOTS=false (each its own
// limit, as before) the same jobs reach it 4 at once, which shows both
// workers were sending.
func TestWorkersShareTheEnginesSlots(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an API and two workers")
	}
	eng := &slotEngine{delay: 400 * time.Millisecond}
	srv := httptest.NewServer(eng)
	defer srv.Close()
	logs, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	mono, _ := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")

	run := func(shared string) (peak, requests int) {
		vars := map[string]string{
			"DATABASE_URL":                   pgtest.URL(t), // skips without Postgres
			"HYSCRIBE_DATA_DIR":              t.TempDir(),
			"HYSCRIBE_HTTP_ADDR":             "127.0.0.1:0",
			"HYSCRIBE_KAFKA_EMBEDDED_ADDR":   "127.0.0.1:0",
			"HYSCRIBE_KAFKA_PARTITIONS":      "4",
			"HYSCRIBE_UPLOAD_SECRET":         "shared-upload-secret",
			"HYSCRIBE_SHUTDOWN_GRACE":        "200ms",
			"HYSCRIBE_STAGE_BACKOFF":         "50ms",
			"HYSCRIBE_LOG_LEVEL":             "warn",
			"HYSCRIBE_ASR_URL":               srv.URL + "/v1",
			"HYSCRIBE_ASR_CONCURRENCY":       "2",
			"HYSCRIBE_ASR_SHARED_SLOTS":      shared,
			"HYSCRIBE_KAFKA_SESSION_TIMEOUT": "6s",
		}
		start := func(vars map[string]string, roles cli.Role, stages []string) *cli.Service {
			return startLoggingTo(t, logs, vars, roles, stages)
		}
		acct := runCLI(t, env(vars), "account", "create", "--name", "slots", "--plan", "business", "--seconds", "3600")
		key := acct["apiKey"].(string)
		api := start(maps.Clone(vars), cli.RoleAPI, nil)
		workerVars := maps.Clone(vars)
		workerVars["KAFKA_BROKERS"] = strings.Join(api.Brokers(), ",")
		w1 := start(maps.Clone(workerVars), cli.RoleWorker, []string{"process", "transcribe", "enrich"})
		w2 := start(maps.Clone(workerVars), cli.RoleWorker, []string{"process", "transcribe", "enrich"})
		// Both workers in the groups, the partitions split between them.
		waitForGroupsShared(t, kadmClient(t, api.Brokers()), 2, "hyscribe-process", "hyscribe-transcribe", "hyscribe-enrich")
		var ids []string
		for range 16 {
			var created struct{ DocID, UploadURL string }
			call(t, "POST", "http://"+api.HTTPAddr()+"/api/createTranscription", key, strings.NewReader(`{"type":"single_voice"}`), 200, &created)
			call(t, "PUT", created.UploadURL, "", bytes.NewReader(mono), 200, nil)
			ids = append(ids, created.DocID)
		}
		deadline := time.Now().Add(90 * time.Second)
		for _, id := range ids {
			waitFor(t, id+" transcribed", time.Until(deadline), func() (bool, string) {
				var got struct{ Status, Error string }
				call(t, "GET", "http://"+api.HTTPAddr()+"/api/getTranscription?docId="+id, key, nil, 200, &got)
				if got.Status == "failed" {
					t.Fatalf("%s: %s %s", id, got.Status, got.Error)
				}
				return got.Status == "transcribed", got.Status
			})
		}
		w1.Stop()
		w2.Stop()
		api.Stop()
		return eng.reset()
	}

	if peak, n := run("false"); peak < 3 || n != 16 {
		t.Fatalf("premise: each worker with its own limit reached %d requests at once (%d requests): both workers did not send", peak, n)
	}
	peak, n := run("true")
	t.Logf("shared slots: at most %d requests at once, %d requests", peak, n)
	if peak != 2 || n != 16 {
		t.Fatalf("two workers sharing a 2-slot engine sent %d at once (%d requests)", peak, n)
	}
}
