package features

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cucumber/godog"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// TestFeatures runs every scenario of features/*.feature against the real
// service, started in-process on loopback by BeforeSuite.
func TestFeatures(t *testing.T) {
	if testing.Short() {
		t.Skip("the scenarios start the whole service; skipped with -short")
	}
	s := &suite{
		t:        t,
		root:     t.TempDir(),
		audioDir: filepath.Join("..", "testdata", "audio"),
		engine:   asrtest.NewEngine(t),
	}
	logPath := os.Getenv("HYSCRIBE_FEATURES_LOG")
	if logPath == "" {
		logPath = filepath.Join(s.root, "service.log")
	}
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatalf("service log: %v", err)
	}
	s.log = &lockedWriter{w: f}
	defer func() {
		_ = f.Close()
		if t.Failed() {
			t.Logf("the service's log is %s (set HYSCRIBE_FEATURES_LOG to keep it elsewhere); its last lines:\n%s", logPath, tail(logPath, 40))
		}
	}()

	status := godog.TestSuite{
		Name:                 "hyscribe",
		TestSuiteInitializer: s.initSuite,
		ScenarioInitializer:  s.initScenario,
		Options: &godog.Options{
			Format:      "pretty",
			Paths:       []string{"."},
			TestingT:    t,
			Strict:      true,
			Concurrency: 1,
		},
	}.Run()
	if status != 0 {
		t.Fatalf("godog: the scenarios failed (status %d)", status)
	}
}

// suite is what every scenario shares: the running service instances and the
// fake speech engine they all use.
type suite struct {
	t        *testing.T
	root     string
	audioDir string
	engine   *asrtest.Engine
	log      io.Writer

	main *instance

	mu    sync.Mutex
	short map[time.Duration]*instance // instances with a short upload window, started on demand
}

func (s *suite) initSuite(ctx *godog.TestSuiteContext) {
	ctx.BeforeSuite(func() {
		in, err := s.start("main", nil)
		if err != nil {
			s.t.Fatalf("BeforeSuite: %v", err)
		}
		s.main = in
	})
	ctx.AfterSuite(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, in := range s.short {
			in.stop(s.t)
		}
		if s.main != nil {
			s.main.stop(s.t)
		}
	})
}

// shortWindow returns an instance whose upload addresses are valid for ttl,
// starting it the first time it is asked for.
func (s *suite) shortWindow(ttl time.Duration) (*instance, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if in, ok := s.short[ttl]; ok {
		return in, nil
	}
	in, err := s.start(fmt.Sprintf("ttl-%s", ttl), map[string]string{"HYSCRIBE_UPLOAD_TTL": ttl.String()})
	if err != nil {
		return nil, err
	}
	if s.short == nil {
		s.short = map[time.Duration]*instance{}
	}
	s.short[ttl] = in
	return in, nil
}

// instance is one running hyscribe service with its own data directory.
type instance struct {
	name      string
	env       map[string]string
	svc       *cli.Service
	base      string // http://host:port of the API
	uploadTTL time.Duration
}

func (in *instance) getenv(name string) string { return in.env[name] }

// start runs `hyscribe serve` in-process: the API and every pipeline stage,
// with the embedded Kafka cluster, SQLite in a fresh data directory and the
// fake speech engine. extra overrides the environment.
func (s *suite) start(name string, extra map[string]string) (*instance, error) {
	dir := filepath.Join(s.root, name)
	env := map[string]string{
		"HYSCRIBE_HTTP_ADDR":             "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR":   "127.0.0.1:0",
		"HYSCRIBE_DATA_DIR":              dir,
		"HYSCRIBE_WEBHOOK_ALLOW_PRIVATE": "true",
		"HYSCRIBE_SWEEP_INTERVAL":        "500ms",
		"HYSCRIBE_STAGE_BACKOFF":         "100ms",
		"HYSCRIBE_STAGE_ATTEMPTS":        "3",
		"HYSCRIBE_SHUTDOWN_GRACE":        "3s",
		"HYSCRIBE_ASR_URL":               s.engine.URL(),
		"HYSCRIBE_KEY_CACHE_TTL":         keyCacheTTL.String(),
	}
	for k, v := range extra {
		env[k] = v
	}
	in := &instance{name: name, env: env}
	cfg, err := cli.LoadConfig(in.getenv)
	if err != nil {
		return nil, fmt.Errorf("config of the %s service: %w", name, err)
	}
	in.uploadTTL = cfg.UploadTTL
	in.svc, err = cli.Start(context.Background(), cfg, cli.RoleAPI|cli.RoleWorker, cli.AllStages, s.log)
	if err != nil {
		return nil, fmt.Errorf("starting the %s service: %w", name, err)
	}
	in.base = "http://" + in.svc.HTTPAddr()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(in.base + "/healthz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return in, nil
			}
		}
		if time.Now().After(deadline) {
			_ = in.svc.Stop()
			return nil, fmt.Errorf("the %s service at %s never answered GET /healthz with 200 (last error: %v)", name, in.base, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (in *instance) stop(t *testing.T) {
	if err := in.svc.Stop(); err != nil {
		t.Errorf("stopping the %s service: %v", in.name, err)
	}
}

// cli runs one hyscribe command against the instance's data directory, as an
// operator would, and decodes the JSON it prints.
func (in *instance) cli(out any, args ...string) error {
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cli.Run(ctx, args, in.getenv, &stdout, &stderr); err != nil {
		return fmt.Errorf("hyscribe %s: %v (stderr: %s)", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return fmt.Errorf("hyscribe %s printed %q, not the expected JSON: %v", strings.Join(args, " "), stdout.String(), err)
	}
	return nil
}

// lockedWriter serialises the service's log lines into one file.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}

// keyCacheTTL is how long the service trusts an API key it has read
// (HYSCRIBE_KEY_CACHE_TTL): a change to the account made by another process,
// such as the CLI, reaches the API within it.
const keyCacheTTL = 300 * time.Millisecond
