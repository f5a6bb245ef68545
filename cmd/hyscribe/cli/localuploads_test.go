package cli_test

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
	"github.com/hyscribe/hyscribe/domain"
)

// TestLocalUploadsBehindReplicasWithoutASharedVolume is the misconfiguration
// the README warns about: two API replicas on one Postgres, each writing
// uploads to its own HYSCRIBE_DATA_DIR, and a worker that shares only the
// first one's. Every API warns at start that local uploads need one shared
// volume; jobs uploaded through the first are transcribed; those uploaded
// through the second fail with a reason that names no server path, and the
// worker's log says, per job, which file it looked for and what to
// configure.
func TestLocalUploadsBehindReplicasWithoutASharedVolume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two APIs and a worker on Postgres")
	}
	dirA, dirB := t.TempDir(), t.TempDir()
	vars := map[string]string{
		"DATABASE_URL":                 pgtest.URL(t), // skips without Postgres
		"HYSCRIBE_DATA_DIR":            dirA,
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":    "2",
		"HYSCRIBE_UPLOAD_SECRET":       "shared-upload-secret",
		"HYSCRIBE_SHUTDOWN_GRACE":      "200ms",
		"HYSCRIBE_STAGE_BACKOFF":       "50ms",
		"HYSCRIBE_LOG_LEVEL":           "info",
	}
	engine := asrtest.NewEngine(t)
	vars["HYSCRIBE_ASR_URL"] = engine.URL()
	key := runCLI(t, env(vars), "account", "create", "--name", "replicas", "--plan", "business", "--seconds", "3600")["apiKey"].(string)

	start := func(name string, vars map[string]string, roles cli.Role, stages []string) (*cli.Service, string) {
		t.Helper()
		logs := filepath.Join(t.TempDir(), name+".log")
		f, err := os.Create(logs)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		cfg, err := cli.LoadConfig(env(vars))
		if err != nil {
			t.Fatal(err)
		}
		svc, err := cli.Start(context.Background(), cfg, roles, stages, f)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Stop() })
		return svc, logs
	}
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	api1, log1 := start("api-1", maps.Clone(vars), cli.RoleAPI, nil)
	vars["KAFKA_BROKERS"] = strings.Join(api1.Brokers(), ",")
	varsB := maps.Clone(vars)
	varsB["HYSCRIBE_DATA_DIR"] = dirB
	api2, log2 := start("api-2", varsB, cli.RoleAPI, nil)
	_, workerLog := start("worker", maps.Clone(vars), cli.RoleWorker, cli.AllStages)

	for _, l := range []string{log1, log2} {
		if got := read(l); !strings.Contains(got, "DATABASE_URL is set but uploads are kept on local disk") || !strings.Contains(got, "one shared volume") {
			t.Errorf("%s: no warning that local uploads need one shared volume:\n%s", filepath.Base(l), got)
		}
	}

	mono, err := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	upload := func(api *cli.Service) string {
		var created struct{ DocID, UploadURL string }
		call(t, "POST", "http://"+api.HTTPAddr()+"/api/createTranscription", key, strings.NewReader(`{"type":"single_voice"}`), 200, &created)
		call(t, "PUT", created.UploadURL, "", bytes.NewReader(mono), 200, nil)
		return created.DocID
	}
	var viaA, viaB []string
	for range 3 {
		viaA = append(viaA, upload(api1))
		viaB = append(viaB, upload(api2))
	}
	final := func(id string) map[string]any {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			var job map[string]any
			call(t, "GET", "http://"+api1.HTTPAddr()+"/api/getTranscription?docId="+id, key, nil, 200, &job)
			if s := domain.Status(job["status"].(string)); s.Terminal() {
				return job
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %s still %v after 60s\n%s", id, job["status"], read(workerLog))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for _, id := range viaA {
		if job := final(id); job["status"] != string(domain.StatusTranscribed) {
			t.Errorf("job %s uploaded through the API whose disk the worker shares: %v", id, job)
		}
	}
	absA, _ := filepath.Abs(dirA)
	for _, id := range viaB {
		job := final(id)
		if job["status"] != string(domain.StatusFailed) || job["error"] != domain.ErrAudioMissing.Error() {
			t.Errorf("job %s uploaded through the other API: %v; want failed with %q", id, job, domain.ErrAudioMissing)
		}
		if e, _ := job["error"].(string); strings.Contains(e, "/") {
			t.Errorf("job %s: its error %q names a server path", id, e)
		}
		looked := filepath.Join(absA, "blobs", "audio", id) + string(filepath.Separator)
		wlog := read(workerLog)
		if !strings.Contains(wlog, `"docId":"`+id+`"`) || !strings.Contains(wlog, looked) || !strings.Contains(wlog, "HYSCRIBE_DATA_DIR on one shared volume") {
			t.Errorf("the worker's log does not say, for job %s, that it looked under %s and what to configure:\n%s", id, looked, wlog)
		}
	}
}
