package cli_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/kafka"
	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/adapters/sqlite"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/servicetest"
	"github.com/hyscribe/hyscribe/domain"
)

// startService runs cli.Start in this process with vars, stopped when t ends.
func startService(t *testing.T, vars map[string]string, roles cli.Role, stages []string) *cli.Service {
	t.Helper()
	return servicetest.Start(t, env(vars), roles, stages)
}

// createAndUpload makes a job of the given type and PUTs audio to it.
func createAndUpload(t *testing.T, api, key, typ string, audio []byte) string {
	t.Helper()
	var created struct{ DocID, UploadURL string }
	call(t, "POST", "http://"+api+"/api/createTranscription", key, strings.NewReader(`{"type":"`+typ+`"}`), 200, &created)
	call(t, "PUT", created.UploadURL, "", bytes.NewReader(audio), 200, nil)
	return created.DocID
}

type pollAnswer struct {
	status int
	body   map[string]any
	raw    string
}

func poll(t *testing.T, api, key, docID string) pollAnswer {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+api+"/api/getTranscription?docId="+docID, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	a := pollAnswer{status: res.StatusCode, raw: string(b)}
	if err := json.Unmarshal(b, &a.body); err != nil {
		t.Fatalf("poll answered %d with a body that is not JSON: %q", res.StatusCode, b)
	}
	return a
}

// TestPostgresOutageAnswers503AndRecovers runs the whole service on
// Postgres through a proxy and cuts it, as a database restart does: the API
// answers 503 with a JSON error while the database is away, and once it is
// back the same requests succeed, and the pipeline finishes a job that was
// in flight at the cut, without restarting the service.
func TestPostgresOutageAnswers503AndRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service on Postgres")
	}
	proxy, engine, api, key := proxiedPostgresService(t, "pg", "3600", map[string]string{
		"HYSCRIBE_STAGE_ATTEMPTS": "10",
		"HYSCRIBE_STAGE_BACKOFF":  "100ms",
		"HYSCRIBE_LOG_LEVEL":      "warn",
	})
	mono, _ := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")

	done := createAndUpload(t, api, key, "single_voice", mono)
	waitFor(t, "the first job", 30*time.Second, func() (bool, string) {
		a := poll(t, api, key, done)
		return a.body["status"] == "transcribed", a.raw
	})
	engine.Delay(3 * time.Second) // the next job is inside the engine at the cut, with room for a loaded machine
	inFlight := createAndUpload(t, api, key, "single_voice", mono)
	waitFor(t, "the second job inside the speech engine", 30*time.Second, func() (bool, string) {
		return engine.InFlight() > 0, "no request in the engine"
	})

	proxy.Cut()
	if engine.InFlight() == 0 {
		t.Fatal("the job left the speech engine before the cut: the test would not cut Postgres under a job in flight")
	}
	for _, id := range []string{done, inFlight} {
		a := poll(t, api, key, id)
		if a.status != http.StatusServiceUnavailable || a.body["code"] != "unavailable" || a.body["error"] == "" {
			t.Fatalf("poll while Postgres is down: %d %s, want 503 with code unavailable", a.status, a.raw)
		}
		if strings.Contains(a.raw, "postgres") || strings.Contains(a.raw, "127.0.0.1") {
			t.Fatalf("503 body leaks internals: %s", a.raw)
		}
	}
	req, _ := http.NewRequest("POST", "http://"+api+"/api/createTranscription", strings.NewReader(`{"type":"single_voice"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), `"code":"unavailable"`) {
		t.Fatalf("create while Postgres is down: %d %s, want 503 JSON", res.StatusCode, b)
	}
	// The outage lasts a while on purpose: the stages meet it too, not only
	// the create above, and must come through it.
	time.Sleep(1500 * time.Millisecond)
	proxy.Restore()

	// The same requests succeed again, without restarting anything.
	waitFor(t, "the API to answer after Postgres came back", 10*time.Second, func() (bool, string) {
		a := poll(t, api, key, done)
		return a.status == http.StatusOK && a.body["status"] == "transcribed", a.raw
	})
	waitFor(t, "the job in flight at the cut", 30*time.Second, func() (bool, string) {
		a := poll(t, api, key, inFlight)
		if a.body["status"] == "failed" {
			t.Fatalf("job in flight at the cut failed: %s", a.raw)
		}
		return a.body["status"] == "transcribed", a.raw
	})
	engine.Delay(0)
	after := createAndUpload(t, api, key, "single_voice", mono)
	waitFor(t, "a job created after the outage", 30*time.Second, func() (bool, string) {
		a := poll(t, api, key, after)
		return a.body["status"] == "transcribed", a.raw
	})
}

// TestKafkaOutageOutboxDrainsLater stops the Kafka cluster under a running
// service: uploads are still accepted (their events wait in the outbox) and
// nothing moves; once Kafka is back on the same address the outbox drains
// and every job finishes.
func TestKafkaOutageOutboxDrainsLater(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service and restarts a Kafka cluster")
	}
	kafkaDir := t.TempDir()
	cluster, err := kafka.StartEmbedded("127.0.0.1:0", kafkaDir, 2, kfake.GroupMinSessionTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	addr := cluster.Addrs()[0]
	defer func() { cluster.Close() }()
	engine := asrtest.NewEngine(t)
	vars := map[string]string{
		"KAFKA_BROKERS":                  addr,
		"HYSCRIBE_DATA_DIR":              t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":             "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":      "2",
		"HYSCRIBE_KAFKA_SESSION_TIMEOUT": "3s",
		"HYSCRIBE_ASR_URL":               engine.URL(),
		"HYSCRIBE_STAGE_BACKOFF":         "50ms",
		"HYSCRIBE_SHUTDOWN_GRACE":        "500ms",
		"HYSCRIBE_LOG_LEVEL":             "warn",
	}
	created := runCLI(t, env(vars), "account", "create", "--name", "kafka", "--plan", "business", "--seconds", "3600")
	key := created["apiKey"].(string)
	svc := startService(t, vars, cli.RoleAPI|cli.RoleWorker, cli.AllStages)
	api := svc.HTTPAddr()
	mono, _ := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	status := func(ids ...string) map[domain.Status]int {
		st, err := sqlite.Open(context.Background(), filepath.Join(vars["HYSCRIBE_DATA_DIR"], "hyscribe.db"))
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
		}
		return out
	}

	first := createAndUpload(t, api, key, "single_voice", mono)
	waitFor(t, "a job before the outage", 30*time.Second, func() (bool, string) {
		st := status(first)
		return st[domain.StatusTranscribed] == 1, fmt.Sprint(st)
	})

	cluster.Close()
	var during []string
	for range 5 {
		during = append(during, createAndUpload(t, api, key, "single_voice", mono))
	}
	// A negative with no event to wait for: the jobs must not move while
	// Kafka is down, so the test gives them time in which they could.
	time.Sleep(1500 * time.Millisecond)
	if st := status(during...); st[domain.StatusProcessing] != len(during) {
		t.Fatalf("with Kafka down the uploaded jobs should wait in processing: %v", st)
	}

	// Back on the same address and log directory.
	if ln, err := net.Listen("tcp", addr); err == nil {
		ln.Close() // the port is free again
	}
	cluster, err = kafka.StartEmbedded(addr, kafkaDir, 2, kfake.GroupMinSessionTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the jobs uploaded during the outage", 60*time.Second, func() (bool, string) {
		st := status(during...)
		return st[domain.StatusTranscribed] == len(during), fmt.Sprint(st)
	})
	// Their events reached Kafka: an uploading status event for each.
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(domain.TopicJobStatus),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	want := map[string]bool{}
	for _, id := range during {
		want[id] = true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for len(want) > 0 && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			var ev domain.Event
			var data domain.JobStatusData
			if json.Unmarshal(r.Value, &ev) == nil && ev.DecodeData(&data) == nil && data.Status == domain.StatusUploading {
				delete(want, string(ev.DocID))
			}
		})
	}
	if len(want) > 0 {
		t.Fatalf("%d jobs created during the outage never reached %s", len(want), domain.TopicJobStatus)
	}
}

// TestCrashLoopingStageFailsOnlyItsJob feeds the pipeline one recording the
// speech engine chokes on every time (it answers garbage for it): that
// job's transcribe handler fails on each attempt, so after
// HYSCRIBE_STAGE_ATTEMPTS the job is failed with a readable error and its
// record dead-lettered, while the jobs around it, some on the same
// partition, are transcribed.
func TestCrashLoopingStageFailsOnlyItsJob(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service")
	}
	tone, err := os.ReadFile("../../../testdata/audio/tone-mono-22k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	mono, _ := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	sum := sha256.Sum256(tone)
	poison := hex.EncodeToString(sum[:])
	engine := asrtest.NewEngine(t)
	calls := 0
	engine.Respond(func(req asrtest.Request) (asrtest.Response, int) {
		if req.FileSHA256 == poison || req.FileSize == int64(len(tone)) {
			calls++
			return asrtest.Response{Raw: []byte(`{"tex`)}, http.StatusOK
		}
		return engine.Answer(req)
	})
	vars := map[string]string{
		"HYSCRIBE_DATA_DIR":            t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":    "2",
		"HYSCRIBE_ASR_URL":             engine.URL(),
		"HYSCRIBE_STAGE_ATTEMPTS":      "3",
		"HYSCRIBE_STAGE_BACKOFF":       "50ms",
		"HYSCRIBE_SHUTDOWN_GRACE":      "500ms",
		"HYSCRIBE_LOG_LEVEL":           "warn",
	}
	created := runCLI(t, env(vars), "account", "create", "--name", "poison", "--plan", "business", "--seconds", "3600")
	key := created["apiKey"].(string)
	svc := startService(t, vars, cli.RoleAPI|cli.RoleWorker, cli.AllStages)
	api := svc.HTTPAddr()

	var good []string
	for range 3 {
		good = append(good, createAndUpload(t, api, key, "single_voice", mono))
	}
	bad := createAndUpload(t, api, key, "single_voice", tone)
	for range 3 {
		good = append(good, createAndUpload(t, api, key, "single_voice", mono))
	}
	var badJob domain.Job
	waitFor(t, "every job to end", 60*time.Second, func() (bool, string) {
		st, err := sqlite.Open(context.Background(), filepath.Join(vars["HYSCRIBE_DATA_DIR"], "hyscribe.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		counts := map[domain.Status]int{}
		for _, id := range good {
			j, _ := st.GetJob(context.Background(), domain.DocID(id))
			counts[j.Status]++
		}
		badJob, _ = st.GetJob(context.Background(), domain.DocID(bad))
		return counts[domain.StatusTranscribed] == len(good) && badJob.Status == domain.StatusFailed,
			fmt.Sprintf("good %v, bad %s", counts, badJob.Status)
	})
	if badJob.Error == "" || !strings.Contains(badJob.Error, "transcribe") {
		t.Fatalf("the poisoned job's error is %q, want a readable message naming the stage", badJob.Error)
	}
	a := poll(t, api, key, bad)
	if a.body["status"] != "failed" || a.body["error"] != badJob.Error {
		t.Fatalf("poll of the poisoned job: %s", a.raw)
	}
	t.Logf("poisoned job: %q after %d engine calls", badJob.Error, calls)

	// Its record is in the dead-letter topic, with the error.
	cl, err := kgo.NewClient(kgo.SeedBrokers(svc.Brokers()...), kgo.ConsumeTopics(domain.DLQ(domain.TopicAudioProcessed)),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var dead []*kgo.Record
	for len(dead) == 0 && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { dead = append(dead, r) })
	}
	if len(dead) != 1 || string(dead[0].Key) != bad {
		t.Fatalf("dead letters: %d, want the poisoned job's record", len(dead))
	}
	headers := map[string]string{}
	for _, h := range dead[0].Headers {
		headers[h.Key] = string(h.Value)
	}
	if !strings.Contains(headers["error"], "unreadable answer") || headers["attempts"] != "3" {
		t.Fatalf("dead letter headers: %v", headers)
	}
}

// proxiedPostgresService starts serve (the API and every stage, the
// embedded broker) on Postgres through a proxy the test cuts or holds, and
// a speech engine it controls; it creates an account named name with
// seconds of audio and returns its API key. vars are added to the
// service's environment (the stage attempts and backoff, the log level).
func proxiedPostgresService(t *testing.T, name, seconds string, vars map[string]string) (*pgtest.Proxy, *asrtest.Engine, string, string) {
	t.Helper()
	direct := pgtest.URL(t) // fails under CI=true without Postgres
	proxy, viaProxy := pgtest.NewProxy(t, direct)
	engine := asrtest.NewEngine(t)
	all := map[string]string{
		"DATABASE_URL":                 viaProxy,
		"HYSCRIBE_DATA_DIR":            t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":    "2",
		"HYSCRIBE_ASR_URL":             engine.URL(),
		"HYSCRIBE_SHUTDOWN_GRACE":      "500ms",
	}
	maps.Copy(all, vars)
	created := runCLI(t, env(map[string]string{"DATABASE_URL": direct}), "account", "create", "--name", name, "--plan", "business", "--seconds", seconds)
	svc := startService(t, all, cli.RoleAPI|cli.RoleWorker, cli.AllStages)
	return proxy, engine, svc.HTTPAddr(), created["apiKey"].(string)
}
