// Package s3test starts real MinIO servers for tests: each call runs its own
// process (the binary named by HYSCRIBE_TEST_MINIO_BIN, built by
// .ci/minio.sh) on free loopback ports with its own data directory, its Kafka
// notification target pointed at the brokers the test gives it, and stops it
// when the test ends. A test of its own keeps every test free to use a Kafka
// cluster on a random port.
package s3test

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/testenv"
)

// EnvBinary names the variable holding the path of the minio binary.
const EnvBinary = "HYSCRIBE_TEST_MINIO_BIN"

// TargetID is the ID of the Kafka notification target the server is started
// with, spelled as the README, deploy/README.md, deploy/compose.yaml and
// .ci/minio.sh spell it (MINIO_NOTIFY_KAFKA_ENABLE_HYSCRIBE=on); ARN is the
// target MinIO registers for it, which a bucket notification names. Tests of
// the service's defaults leave HYSCRIBE_S3_NOTIFY_ARN unset instead of
// passing ARN, so a default that does not match what MinIO registers fails
// them.
const (
	TargetID = "HYSCRIBE"
	ARN      = "arn:minio:sqs::HYSCRIBE:kafka"
)

// Server is a running MinIO.
type Server struct {
	Endpoint  string // host:port of the S3 API
	AccessKey string
	SecretKey string
	ARN       string // of the Kafka notification target
	Topic     string // where notifications go
	logs      *Buffer
}

// Logs returns what the server wrote so far.
func (s *Server) Logs() string { return s.logs.String() }

// Start runs a MinIO whose bucket notifications go to topic (default
// domain.TopicStorageEvents) on brokers, through the Kafka target TargetID
// and, when given, further Kafka targets of the IDs more (ARN
// "arn:minio:sqs::<ID>:kafka", same brokers and topic). It skips the test
// under -short, stops it through testenv.Missing when there is no MinIO
// binary (Binary), and fails it if the server does not become ready. Ready
// does not mean the targets are registered yet:
// s3.Store.EnableUploadNotifications waits for them.
func Start(t testing.TB, brokers []string, topic string, more ...string) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("MinIO tests skipped under -short")
	}
	bin := Binary(t)
	if topic == "" {
		topic = domain.TopicStorageEvents
	}
	s := &Server{AccessKey: "hyscribe-test", SecretKey: "hyscribe-test-secret", ARN: ARN, Topic: topic, logs: &Buffer{}}
	s.Endpoint = "127.0.0.1:" + testenv.FreePort(t)
	console := "127.0.0.1:" + testenv.FreePort(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "server", "--quiet", "--address", s.Endpoint, "--console-address", console, filepath.Join(dir, "data"))
	cmd.Env = append(os.Environ(),
		"MINIO_ROOT_USER="+s.AccessKey,
		"MINIO_ROOT_PASSWORD="+s.SecretKey,
		"MINIO_BROWSER=off",
		"MINIO_UPDATE=off",
		"MINIO_CONFIG_ENV_FILE=",
		// The Kafka target exactly as the documentation configures it.
		"MINIO_NOTIFY_KAFKA_ENABLE_HYSCRIBE=on",
		"MINIO_NOTIFY_KAFKA_BROKERS_HYSCRIBE="+strings.Join(brokers, ","),
		"MINIO_NOTIFY_KAFKA_TOPIC_HYSCRIBE="+topic,
		"MINIO_NOTIFY_KAFKA_QUEUE_DIR_HYSCRIBE="+filepath.Join(dir, "notify-queue"),
		"HOME="+dir, // MinIO keeps nothing of ours elsewhere
	)
	for _, id := range more {
		cmd.Env = append(cmd.Env,
			"MINIO_NOTIFY_KAFKA_ENABLE_"+id+"=on",
			"MINIO_NOTIFY_KAFKA_BROKERS_"+id+"="+strings.Join(brokers, ","),
			"MINIO_NOTIFY_KAFKA_TOPIC_"+id+"="+topic,
			"MINIO_NOTIFY_KAFKA_QUEUE_DIR_"+id+"="+filepath.Join(dir, "notify-queue-"+id),
		)
	}
	cmd.Stdout, cmd.Stderr = s.logs, s.logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited //nolint:errcheck // killed: the wait's error says only that
		if t.Failed() {
			t.Logf("minio output:\n%s", s.logs.String())
		}
	})

	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("minio exited: %v\n%s", err, s.logs.String())
		default:
		}
		resp, err := http.Get("http://" + s.Endpoint + "/minio/health/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("minio not ready on %s after 60s: %v\n%s", s.Endpoint, err, s.logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Binary is the MinIO binary: HYSCRIBE_TEST_MINIO_BIN (the Makefile sets
// it; then a missing file fails the test), else the one .ci/minio.sh
// builds into the repository's .cache/bin, else its copy in the tool cache
// outside the work tree, else minio on the PATH.
func Binary(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv(EnvBinary); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("%s=%s: %v (run .ci/minio.sh)", EnvBinary, bin, err)
		}
		return bin
	}
	candidates := []string{filepath.Join(testenv.RepoRoot(t), ".cache", "bin", "minio")}
	cached, _ := filepath.Glob(filepath.Join(testenv.ToolCache(), "minio-*"))
	sort.Sort(sort.Reverse(sort.StringSlice(cached))) // the newest pseudo-version first
	candidates = append(candidates, cached...)
	for _, c := range candidates {
		if fi, err := os.Stat(c); err == nil && !fi.IsDir() {
			return c
		}
	}
	if p, err := exec.LookPath("minio"); err == nil {
		return p
	}
	testenv.Missing(t, "MinIO: %s is unset and no binary in %v or on the PATH (run .ci/minio.sh, which builds it)", EnvBinary, candidates)
	return ""
}

// Buffer is a log destination that concurrent writers and a reading test
// may share: the server's output, a store's logger.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
