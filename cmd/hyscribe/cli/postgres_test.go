package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

func TestMigrateCommand(t *testing.T) {
	for name, vars := range map[string]map[string]string{
		"sqlite":   {"HYSCRIBE_DATA_DIR": t.TempDir()},
		"postgres": {"HYSCRIBE_DATA_DIR": t.TempDir(), "DATABASE_URL": "postgres"},
	} {
		t.Run(name, func(t *testing.T) {
			if vars["DATABASE_URL"] != "" {
				vars["DATABASE_URL"] = pgtest.URL(t)
			}
			for run := range 2 { // the second run finds nothing to do, and says so
				out := runCLI(t, env(vars), "migrate")
				if out["store"] != name || out["schema"] != "up to date" {
					t.Fatalf("hyscribe migrate printed %v", out)
				}
				applied, _ := out["applied"].([]any)
				version, _ := out["version"].(float64)
				msg, _ := out["message"].(string)
				if run == 0 && (len(applied) == 0 || version < 1 || !strings.HasPrefix(msg, "applied ")) {
					t.Fatalf("the first migrate applied nothing it names: %v", out)
				}
				if run == 0 && applied[0] != "0001_init.sql" && !strings.HasPrefix(applied[0].(string), "0001") {
					t.Fatalf("the first migration applied is %v", applied[0])
				}
				if run == 1 && (len(applied) != 0 || !strings.HasPrefix(msg, "nothing to apply")) {
					t.Fatalf("the second migrate claims it applied %v: %v", applied, out)
				}
			}
			// The migrated store is usable by the provisioning commands.
			runCLI(t, env(vars), "account", "create", "--name", "m", "--plan", "business", "--seconds", "1")
		})
	}
}

// TestRateLimitSharedByAPIReplicas runs two API processes on one Postgres
// and one Kafka cluster and polls through both in turn: the 60-a-minute
// poll limit of a key holds across them, so the 61st poll of the minute, and
// only it, is refused.
func TestRateLimitSharedByAPIReplicas(t *testing.T) {
	base := map[string]string{
		"DATABASE_URL":                 pgtest.URL(t), // skips without Postgres
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":    "2",
		"HYSCRIBE_UPLOAD_SECRET":       "shared-upload-secret",
		"HYSCRIBE_SHUTDOWN_GRACE":      "200ms",
		"HYSCRIBE_LOG_LEVEL":           "warn",
	}
	logs, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	start := func(vars map[string]string) *cli.Service {
		t.Helper()
		vars["HYSCRIBE_DATA_DIR"] = t.TempDir()
		cfg, err := cli.LoadConfig(env(vars))
		if err != nil {
			t.Fatal(err)
		}
		svc, err := cli.Start(context.Background(), cfg, cli.RoleAPI, nil, logs)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Stop() })
		return svc
	}
	first := start(maps.Clone(base)) // with the embedded Kafka cluster
	second := maps.Clone(base)
	second["KAFKA_BROKERS"] = strings.Join(first.Brokers(), ",")
	replicas := []*cli.Service{first, start(second)}

	acct := runCLI(t, env(base), "account", "create", "--name", "replicas", "--plan", "business", "--seconds", "60")
	key := acct["apiKey"].(string)

	// All 61 polls must fall in one wall-clock minute.
	if left := time.Until(time.Now().Truncate(time.Minute).Add(time.Minute)); left < 15*time.Second {
		// Time is the premise: the window is the wall-clock minute that
		// Postgres counts in, which no fake clock can move for it.
		time.Sleep(left + 100*time.Millisecond)
	}
	var statuses []int
	for i := range 61 {
		req, _ := http.NewRequest("GET", "http://"+replicas[i%2].HTTPAddr()+"/api/getTranscription?docId=missing", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		body.ReadFrom(resp.Body)
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
		if resp.StatusCode == http.StatusTooManyRequests {
			var e struct{ Code string }
			json.Unmarshal(body.Bytes(), &e)
			if e.Code != "rate_limited" || resp.Header.Get("Retry-After") == "" {
				t.Fatalf("429 without its code or Retry-After: %s %v", body.String(), resp.Header)
			}
		}
	}
	refused := 0
	for i, st := range statuses {
		switch {
		case st == http.StatusTooManyRequests:
			refused++
			if i != 60 {
				t.Fatalf("poll %d refused; statuses %v", i+1, statuses)
			}
		case st != http.StatusNotFound:
			t.Fatalf("poll %d answered %d; statuses %v", i+1, st, statuses)
		}
	}
	if refused != 1 {
		t.Fatalf("%d polls refused across two replicas, want exactly 1 (the 61st); statuses %v", refused, statuses)
	}
}

// TestSplitProcessesOnPostgres runs the production shape in one test
// binary: an API process and a worker process sharing Postgres, Kafka and
// (until the S3 blob store lands) the upload directory. Jobs go from create
// to transcribed, and the receiver gets each transcript_ready once.
func TestSplitProcessesOnPostgres(t *testing.T) {
	vars := map[string]string{
		"DATABASE_URL":                   pgtest.URL(t), // skips without Postgres
		"HYSCRIBE_DATA_DIR":              t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":             "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR":   "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":      "2",
		"HYSCRIBE_UPLOAD_SECRET":         "shared-upload-secret",
		"HYSCRIBE_WEBHOOK_ALLOW_PRIVATE": "true",
		"HYSCRIBE_SHUTDOWN_GRACE":        "200ms",
		"HYSCRIBE_STAGE_BACKOFF":         "50ms",
		"HYSCRIBE_LOG_LEVEL":             "warn",
	}
	engine := asrtest.NewEngine(t)
	vars["HYSCRIBE_ASR_URL"] = engine.URL()
	hook := &receiver{got: map[string]int{}}
	hookSrv := httptest.NewServer(hook)
	defer hookSrv.Close()
	acct := runCLI(t, env(vars), "account", "create", "--name", "split", "--plan", "business", "--seconds", "3600")
	runCLI(t, env(vars), "account", "update", "--account", acct["accountId"].(string), "--webhook-url", hookSrv.URL, "--webhook-secret", "s")
	key := acct["apiKey"].(string)

	logs, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	start := func(vars map[string]string, roles cli.Role, stages []string) *cli.Service {
		return startLoggingTo(t, logs, vars, roles, stages)
	}
	api := start(maps.Clone(vars), cli.RoleAPI, nil)
	workerVars := maps.Clone(vars)
	workerVars["KAFKA_BROKERS"] = strings.Join(api.Brokers(), ",")
	start(workerVars, cli.RoleWorker, cli.AllStages)

	mono, _ := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	stereo, _ := os.ReadFile("../../../testdata/audio/call-stereo-22k.mp3")
	var ids []string
	for i, job := range []struct {
		typ   string
		audio []byte
	}{{"single_voice", mono}, {"phone_call", stereo}, {"single_voice", mono}} {
		var created struct{ DocID, UploadURL string }
		call(t, "POST", "http://"+api.HTTPAddr()+"/api/createTranscription", key,
			strings.NewReader(`{"type":"`+job.typ+`","metadata":{"n":`+string(rune('0'+i))+`,"a":1}}`), 200, &created)
		call(t, "PUT", created.UploadURL, "", bytes.NewReader(job.audio), 200, nil)
		ids = append(ids, created.DocID)
	}
	deadline := time.Now().Add(60 * time.Second)
	for _, id := range ids {
		waitFor(t, id+" transcribed", time.Until(deadline), func() (bool, string) {
			var got struct {
				Status   string          `json:"status"`
				Error    string          `json:"error"`
				Metadata json.RawMessage `json:"metadata"`
			}
			call(t, "GET", "http://"+api.HTTPAddr()+"/api/getTranscription?docId="+id, key, nil, 200, &got)
			switch {
			case got.Status == "failed":
				t.Fatalf("%s: %s %s", id, got.Status, got.Error)
			case got.Status == "transcribed" && !strings.HasSuffix(string(got.Metadata), `,"a":1}`):
				t.Fatalf("%s: metadata %s lost its key order", id, got.Metadata)
			}
			return got.Status == "transcribed", got.Status
		})
	}
	waitFor(t, "a delivery for every job", time.Until(deadline), func() (bool, string) {
		hook.mu.Lock()
		defer hook.mu.Unlock()
		return len(hook.got) == len(ids), fmt.Sprintf("%d of %d", len(hook.got), len(ids))
	})
	hook.mu.Lock()
	defer hook.mu.Unlock()
	for _, id := range ids {
		if hook.got[id] != 1 {
			t.Fatalf("receiver got %d transcript_ready for %s, want 1 (all: %v)", hook.got[id], id, hook.got)
		}
	}
}

// startLoggingTo starts the roles and stages the environment vars
// configures in this process, logging to logs (shared by the processes of
// one test, which read it); the service is stopped when t ends.
func startLoggingTo(t *testing.T, logs io.Writer, vars map[string]string, roles cli.Role, stages []string) *cli.Service {
	t.Helper()
	cfg, err := cli.LoadConfig(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := cli.Start(context.Background(), cfg, roles, stages, logs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop() })
	return svc
}
