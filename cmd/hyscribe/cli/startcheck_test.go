package cli_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// testUploadSecret is a secret a production-shaped process accepts.
const testUploadSecret = "4f9c1d0e8b7a6f5e4d3c2b1a09f8e7d6c5b4a392"

// runBinary runs the real binary with exactly vars (plus PATH and HOME) and
// returns its exit status, its standard error and how long it ran; a
// process still running after within is killed and fails the test.
func runWithin(t *testing.T, within time.Duration, vars map[string]string, args ...string) (int, string, time.Duration) {
	t.Helper()
	bin := hyscribeBinary(t) // built before the clock starts: a build under load is not a slow refusal
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("hyscribe %v still running after %s (it should have refused to start)\n%s", args, within, stderr.String())
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String(), took
}

// Each refusal: exit status 1 within seconds, a message naming the
// variable to set. On the old code these processes started (and the split
// ones stayed up with their own embedded Kafka).
func TestProductionShapedStartRefusesWhatWouldFailSilently(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	db := pgtest.URL(t) // skips without Postgres
	base := map[string]string{
		"DATABASE_URL":                 db,
		"KAFKA_BROKERS":                "127.0.0.1:1", // never reached: refused before
		"HYSCRIBE_DATA_DIR":            t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_UPLOAD_SECRET":       testUploadSecret,
		"HYSCRIBE_PUBLIC_URL":          "https://hyscribe.example.com",
	}
	with := func(set map[string]string, unset ...string) map[string]string {
		m := maps.Clone(base)
		maps.Copy(m, set)
		for _, k := range unset {
			delete(m, k)
		}
		return m
	}
	for _, c := range []struct {
		name string
		vars map[string]string
		args []string
		want []string // in the message
	}{
		{"api without brokers", with(nil, "KAFKA_BROKERS"), []string{"api"}, []string{"KAFKA_BROKERS", "DATABASE_URL"}},
		{"worker without brokers", with(nil, "KAFKA_BROKERS"), []string{"worker"}, []string{"KAFKA_BROKERS"}},
		{"serve on Postgres without brokers", with(nil, "KAFKA_BROKERS"), []string{"serve"}, []string{"KAFKA_BROKERS"}},
		{"api without brokers on SQLite", with(nil, "KAFKA_BROKERS", "DATABASE_URL"), []string{"api"}, []string{"KAFKA_BROKERS", "hyscribe serve"}},
		{"worker without a public URL", with(nil, "HYSCRIBE_PUBLIC_URL"), []string{"worker"}, []string{"HYSCRIBE_PUBLIC_URL"}},
		{"a one-letter upload secret", with(map[string]string{"HYSCRIBE_UPLOAD_SECRET": "x"}), []string{"api"}, []string{"HYSCRIBE_UPLOAD_SECRET", "too short"}},
		{"the example's upload secret", with(map[string]string{"HYSCRIBE_UPLOAD_SECRET": "change-me-shared-by-every-api-0123456789"}), []string{"api"}, []string{"HYSCRIBE_UPLOAD_SECRET", "placeholder"}},
		{"no upload secret for local uploads", with(nil, "HYSCRIBE_UPLOAD_SECRET"), []string{"api"}, []string{"HYSCRIBE_UPLOAD_SECRET"}},
		{"the example's S3 secret", with(map[string]string{"HYSCRIBE_S3_ENDPOINT": "127.0.0.1:1", "HYSCRIBE_S3_ACCESS_KEY": "a", "HYSCRIBE_S3_SECRET_KEY": "change-me"}), []string{"worker"}, []string{"HYSCRIBE_S3_SECRET_KEY"}},
		{"a placeholder database password", with(map[string]string{"DATABASE_URL": "postgres://hyscribe:change-me@127.0.0.1:1/hyscribe"}), []string{"api"}, []string{"DATABASE_URL", "placeholder"}},
		{"a sweep every 0s", with(map[string]string{"HYSCRIBE_SWEEP_INTERVAL": "0s"}), []string{"worker"}, []string{"HYSCRIBE_SWEEP_INTERVAL"}},
		{"retention every 0s", with(map[string]string{"HYSCRIBE_RETENTION_INTERVAL": "0"}), []string{"serve"}, []string{"HYSCRIBE_RETENTION_INTERVAL"}},
		{"an unknown log level", with(map[string]string{"HYSCRIBE_LOG_LEVEL": "verbose"}), []string{"api"}, []string{"HYSCRIBE_LOG_LEVEL", "verbose"}},
		{"a replication factor of -1", with(map[string]string{"HYSCRIBE_KAFKA_REPLICATION_FACTOR": "-1"}), []string{"api"}, []string{"HYSCRIBE_KAFKA_REPLICATION_FACTOR"}},
		{"a public S3 scheme of maybe", with(map[string]string{"HYSCRIBE_S3_PUBLIC_SECURE": "maybe"}), []string{"api"}, []string{"HYSCRIBE_S3_PUBLIC_SECURE"}},
		{"a Kafka password in the clear", with(map[string]string{"KAFKA_SASL_MECHANISM": "plain", "KAFKA_SASL_USERNAME": "hyscribe", "KAFKA_SASL_PASSWORD": "a-real-kafka-password"}), []string{"worker"}, []string{"KAFKA_SASL_MECHANISM=plain", "KAFKA_TLS=true"}},
		{"a placeholder Kafka password", with(map[string]string{"KAFKA_TLS": "true", "KAFKA_SASL_MECHANISM": "scram-sha-512", "KAFKA_SASL_USERNAME": "hyscribe", "KAFKA_SASL_PASSWORD": "change-me"}), []string{"api"}, []string{"KAFKA_SASL_PASSWORD", "placeholder"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stderr, took := runWithin(t, 20*time.Second, c.vars, c.args...)
			if code != 1 {
				t.Fatalf("exit status %d, want 1\n%s", code, stderr)
			}
			if took > 5*time.Second {
				t.Errorf("refused after %s, want within seconds", took)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("the message does not say %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestSplitAPIAndWorkerOnPostgres is the split of the documented recipe
// (docs/operations.md): `hyscribe kafka` as the broker, `hyscribe api` and
// `hyscribe worker` on one Postgres schema. Without KAFKA_BROKERS api and
// worker refuse to start (never two brokers for one database); with it,
// every job goes through, the broker process serves metadata to any Kafka
// client and joins no consumer group (a `serve` in its place took
// partitions of the pipeline's groups and stranded their jobs), and it
// stops on SIGTERM leaving its log in HYSCRIBE_DATA_DIR/kafka.
func TestSplitAPIAndWorkerOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs three processes")
	}
	db := pgtest.URL(t) // skips without Postgres
	engine := asrtest.NewEngine(t)
	vars := map[string]string{
		"DATABASE_URL":                   db,
		"HYSCRIBE_DATA_DIR":              t.TempDir(), // shared: local uploads
		"HYSCRIBE_HTTP_ADDR":             "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":      "2",
		"HYSCRIBE_UPLOAD_SECRET":         testUploadSecret,
		"HYSCRIBE_ASR_URL":               engine.URL(),
		"HYSCRIBE_SHUTDOWN_GRACE":        "1s",
		"HYSCRIBE_STAGE_BACKOFF":         "50ms",
		"HYSCRIBE_LOG_LEVEL":             "info",
		"HYSCRIBE_WEBHOOK_ALLOW_PRIVATE": "true",
	}
	for _, role := range []string{"api", "worker"} {
		code, stderr, _ := runWithin(t, 60*time.Second, vars, role)
		if code != 1 || !strings.Contains(stderr, "KAFKA_BROKERS") {
			t.Fatalf("%s without KAFKA_BROKERS: exit %d\n%s", role, code, stderr)
		}
	}

	kafkaDir := t.TempDir()
	broker := startProc(t, "kafka", map[string]string{
		"HYSCRIBE_DATA_DIR":            kafkaDir,
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":    "2",
	}, "kafka")
	addrs, _ := broker.waitLog(t, "embedded kafka listening", 60*time.Second)["addrs"].([]any)
	if len(addrs) != 1 {
		t.Fatalf("hyscribe kafka logged addrs %v", addrs)
	}
	brokerAddr := addrs[0].(string)
	kc, err := kgo.NewClient(kgo.SeedBrokers(brokerAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	adm := kadm.NewClient(kc)
	ctx := context.Background() // each wait below has its own bound
	mctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	meta, err := adm.BrokerMetadata(mctx)
	if err != nil || len(meta.Brokers) != 1 || fmt.Sprintf("%s:%d", meta.Brokers[0].Host, meta.Brokers[0].Port) != brokerAddr {
		t.Fatalf("hyscribe kafka's metadata: %+v, %v", meta.Brokers, err)
	}

	vars["KAFKA_BROKERS"] = brokerAddr
	acct := runCLI(t, env(vars), "account", "create", "--name", "split", "--plan", "business", "--seconds", "3600")
	key := acct["apiKey"].(string)
	apiProc, api := startAPI(t, "api", vars)
	workerVars := maps.Clone(vars)
	workerVars["HYSCRIBE_PUBLIC_URL"] = "http://" + api
	worker := startProc(t, "worker", workerVars, "worker")

	mono, err := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for range 6 {
		ids = append(ids, createAndUpload(t, api, key, "single_voice", mono))
	}
	// One query per look: polling six jobs through the API would meet its
	// rate limit.
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	waitFor(t, "every job transcribed by the worker", 120*time.Second, func() (bool, string) {
		var states []string
		err := conn.QueryRow(ctx, `SELECT coalesce(array_agg(status ORDER BY id), '{}') FROM jobs WHERE id = ANY($1)`, ids).Scan(&states)
		done := err == nil && len(states) == len(ids)
		for _, s := range states {
			done = done && s == "transcribed"
		}
		return done, fmt.Sprint(states, err)
	})
	// The pipeline's groups have members, and all of them leave with the
	// worker and the API: none belongs to the broker process.
	members := func() (int, int, string) {
		gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		groups, err := adm.DescribeGroups(gctx)
		if err != nil {
			return 0, 0, err.Error()
		}
		n := 0
		for _, g := range groups.Sorted() {
			n += len(g.Members)
		}
		return len(groups), n, fmt.Sprint(groups.Names())
	}
	if g, n, names := members(); g == 0 || n == 0 {
		t.Fatalf("while the worker runs: %d groups with %d members (%s)", g, n, names)
	}
	worker.stop(20 * time.Second)
	apiProc.stop(20 * time.Second)
	waitFor(t, "no group member once api and worker stopped", 30*time.Second, func() (bool, string) {
		g, n, names := members()
		return g > 0 && n == 0, fmt.Sprintf("%d groups, %d members: %s", g, n, names)
	})

	broker.stop(20 * time.Second)
	if broker.waitErr != nil {
		t.Errorf("hyscribe kafka on SIGTERM: %v", broker.waitErr)
	}
	broker.waitLog(t, "embedded kafka stopped", time.Second)
	if entries, err := os.ReadDir(filepath.Join(kafkaDir, "kafka")); err != nil || len(entries) == 0 {
		t.Errorf("HYSCRIBE_DATA_DIR/kafka after the stop: %v, %v", entries, err)
	}
}

// serve, api and worker --help list every variable of the declared
// configuration with its default.
func TestServiceHelpListsEveryVariable(t *testing.T) {
	vars := cli.Variables()
	if len(vars) < 50 {
		t.Fatalf("only %d variables declared", len(vars))
	}
	for _, cmd := range []string{"serve", "api", "worker"} {
		var out, errb bytes.Buffer
		if err := cli.Run(context.Background(), []string{cmd, "--help"}, env(nil), &out, &errb); err != nil {
			t.Fatal(err)
		}
		for _, v := range vars {
			def := v.Default
			if def == "" {
				def = "(empty)"
			}
			if !strings.Contains(out.String(), "  "+v.Name+"="+def+"\n") {
				t.Errorf("%s --help does not list %s=%s", cmd, v.Name, def)
			}
		}
	}
	// The defaults printed are the ones applied.
	cfg, err := cli.LoadConfig(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SweepInterval != 30*time.Second || cfg.KafkaPartitions != 12 || cfg.ASRMaxChunk.Duration() != 600*time.Second || cfg.LogLevel != "info" || cfg.HTTPAddr != "127.0.0.1:8080" || !cfg.SignUp {
		t.Errorf("defaults: %+v", cfg)
	}
}

// hyscribe probe is compose's healthcheck of the image (no curl): exit 0
// on 200, 1 otherwise, 2 for a malformed call.
func TestProbeCommand(t *testing.T) {
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" {
			_, _ = w.Write([]byte(`{"status":"ok"}`))
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer ok.Close()
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"probe", ok.URL + "/readyz"}, 0},
		{[]string{"probe", ok.URL + "/other"}, 1},
		{[]string{"probe", "http://127.0.0.1:1/readyz"}, 1},
		{[]string{"probe"}, 2},
		{[]string{"probe", "not a url"}, 2},
	} {
		var out, errb bytes.Buffer
		err := cli.Run(context.Background(), c.args, env(nil), &out, &errb)
		if got := cli.ExitCode(err); got != c.code {
			t.Errorf("%v: exit %d (%v), want %d", c.args, got, err, c.code)
		}
	}
}

// An embedded Kafka whose address is taken (by another hyscribe's, as when
// api and worker each started one) says which variable to set, instead of
// a bare "bind: address already in use".
func TestEmbeddedKafkaAddressInUseNamesKafkaBrokers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, stderr, _ := runWithin(t, 20*time.Second, map[string]string{
		"HYSCRIBE_DATA_DIR":            t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": ln.Addr().String(),
	}, "serve")
	if code != 1 || !strings.Contains(stderr, "KAFKA_BROKERS") || !strings.Contains(stderr, "HYSCRIBE_KAFKA_EMBEDDED_ADDR") {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
}
