package cli_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/kafka"
	"github.com/hyscribe/hyscribe/adapters/sqlite"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/testenv"
)

// mountTmpfs mounts a tmpfs of size bytes at a new directory, unmounted
// when t ends (after whatever the test registers later, the service
// included, has stopped).
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.Itoa(size)); err != nil {
		testenv.Missing(t, "mounting a tmpfs to fill needs root (CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes path until the file system refuses, and returns how much it
// wrote.
func fill(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var n int64
	for _, size := range []int{1 << 20, 4 << 10, 1} {
		buf := make([]byte, size)
		for {
			m, err := f.Write(buf)
			n += int64(m)
			if errors.Is(err, syscall.ENOSPC) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return n
}

// storedJob reads a job from the SQLite database in dir.
func storedJob(t *testing.T, dir, id string) domain.Job {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "hyscribe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	j, err := st.GetJob(context.Background(), domain.DocID(id))
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// answer is one plain HTTP exchange of the full-disk test.
func answer(t *testing.T, method, u, key string, body []byte) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(method, u, bytes.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

// storageFull checks an answer refused for want of space: 503 with
// Retry-After, and a JSON error that says so and names nothing inside.
func storageFull(t *testing.T, what string, status int, h http.Header, body string) {
	t.Helper()
	if status != http.StatusServiceUnavailable || !strings.Contains(body, `"code":"storage_full"`) || !strings.Contains(body, "out of storage space") {
		t.Fatalf("%s on a full disk: %d %s, want 503 storage_full", what, status, body)
	}
	if n, err := strconv.Atoi(h.Get("Retry-After")); err != nil || n < 1 {
		t.Fatalf("%s on a full disk: Retry-After %q", what, h.Get("Retry-After"))
	}
	if strings.Contains(body, "/") || strings.Contains(strings.ToLower(body), "sqlite") {
		t.Fatalf("%s on a full disk: the answer names internals: %s", what, body)
	}
}

// TestFullDiskAnswers503AndJobsWaitForSpace runs `serve` with its data
// dir (the SQLite database, the local uploads, the decoder's scratch) on a
// small tmpfs and fills it while a job is inside the speech engine. While
// it is full: an upload and a create answer 503 storage_full with
// Retry-After, /readyz says not ready and why, and the job in flight
// waits — the transcribe stage cannot write its transcript, backs off
// without spending attempts, and the job does not fail. Once space is
// freed the job is transcribed and new work is accepted, without a
// restart.
func TestFullDiskAnswers503AndJobsWaitForSpace(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service on a tmpfs")
	}
	data := mountTmpfs(t, 48<<20)
	// Kafka stays off the full disk: what the embedded broker does there
	// is another question than the store's and the uploads'.
	cluster, err := kafka.StartEmbedded("127.0.0.1:0", t.TempDir(), 2, kfake.GroupMinSessionTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cluster.Close() })
	engine := asrtest.NewEngine(t)
	vars := map[string]string{
		"KAFKA_BROKERS":                  cluster.Addrs()[0],
		"HYSCRIBE_DATA_DIR":              data,
		"HYSCRIBE_HTTP_ADDR":             "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":      "2",
		"HYSCRIBE_KAFKA_SESSION_TIMEOUT": "3s",
		"HYSCRIBE_ASR_URL":               engine.URL(),
		"HYSCRIBE_STAGE_BACKOFF":         "50ms",
		"HYSCRIBE_SHUTDOWN_GRACE":        "500ms",
		"HYSCRIBE_LOG_LEVEL":             "warn",
	}
	created := runCLI(t, env(vars), "account", "create", "--name", "full", "--plan", "business", "--seconds", "3600")
	key := created["apiKey"].(string)
	svc := startService(t, vars, cli.RoleAPI|cli.RoleWorker, cli.AllStages)
	api := "http://" + svc.HTTPAddr()
	mono, _ := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")

	// A job waiting for its upload, for the upload on the full disk.
	var waiting struct{ DocID, UploadURL string }
	call(t, "POST", api+"/api/createTranscription", key, strings.NewReader(`{"type":"single_voice"}`), 200, &waiting)
	// The job in flight: inside the speech engine when the disk fills.
	engine.Delay(4 * time.Second)
	inFlight := createAndUpload(t, svc.HTTPAddr(), key, "single_voice", mono)
	waitFor(t, "the job inside the speech engine", 30*time.Second, func() (bool, string) {
		return engine.InFlight() > 0, "no request in the engine"
	})

	filler := filepath.Join(data, "filler")
	t.Logf("filled the data dir with %d MiB", fill(t, filler)>>20)
	if engine.InFlight() == 0 {
		t.Fatal("the job left the speech engine before the disk was full: it would not meet the full disk in flight")
	}

	status, h, body := answer(t, "PUT", waiting.UploadURL, "", mono)
	storageFull(t, "an upload", status, h, body)
	// A create writes a few pages to SQLite: the first one that needs
	// space the disk no longer has is refused, and none may be a 500.
	for i := 0; ; i++ {
		status, h, body = answer(t, "POST", api+"/api/createTranscription", key, []byte(`{"type":"single_voice"}`))
		if status == http.StatusOK && i < 50 {
			continue
		}
		t.Logf("%d creates were stored before the full disk refused one", i)
		storageFull(t, "a create", status, h, body)
		break
	}
	status, _, body = answer(t, "GET", api+"/readyz", "", nil)
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "out of storage space") {
		t.Fatalf("/readyz on a full disk: %d %s, want not ready, out of storage space", status, body)
	}
	// The job in flight met the full disk when the engine answered, and
	// waits without failing.
	backoffs := regexp.MustCompile(`hyscribe_stage_backoffs_total\{stage="transcribe"[^}]*\} ([0-9]+)`)
	waitFor(t, "the transcribe stage to wait for space", 30*time.Second, func() (bool, string) {
		_, _, metrics := answer(t, "GET", api+"/metrics", "", nil)
		m := backoffs.FindStringSubmatch(metrics)
		return m != nil && m[1] != "0", "no back-off of the transcribe stage yet"
	})
	// Read from the database itself: a poll counts against the rate limit,
	// a write the full disk may refuse.
	if j := storedJob(t, data, inFlight); j.Status != domain.StatusConverting {
		t.Fatalf("the job in flight while the disk is full is %s (%q), want it converting still", j.Status, j.Error)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "/readyz once space is freed", 10*time.Second, func() (bool, string) {
		status, _, body := answer(t, "GET", api+"/readyz", "", nil)
		return status == http.StatusOK, body
	})
	waitFor(t, "the job in flight once space is freed", 60*time.Second, func() (bool, string) {
		a := poll(t, svc.HTTPAddr(), key, inFlight)
		if a.body["status"] == "failed" {
			t.Fatalf("the job in flight failed: %s", a.raw)
		}
		return a.body["status"] == "transcribed", a.raw
	})
	engine.Delay(0)
	call(t, "PUT", waiting.UploadURL, "", bytes.NewReader(mono), 200, nil)
	waitFor(t, "the job uploaded once space is freed", 60*time.Second, func() (bool, string) {
		a := poll(t, svc.HTTPAddr(), key, waiting.DocID)
		return a.body["status"] == "transcribed", a.raw
	})
}
