package cli_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// A worker has no API, but orchestrators still probe it: with
// HYSCRIBE_HEALTH_ADDR it answers /healthz and /metrics there.
func TestWorkerAnswersHealthAndMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service")
	}
	cfg, err := cli.LoadConfig(env(map[string]string{
		"HYSCRIBE_DATA_DIR":            t.TempDir(),
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":    "1",
		"HYSCRIBE_HEALTH_ADDR":         "127.0.0.1:0",
		"HYSCRIBE_LOG_LEVEL":           "error",
	}))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := cli.Start(context.Background(), cfg, cli.RoleWorker, []string{cli.StageProcess}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop()
	for path, want := range map[string]string{"/healthz": `"ok"`, "/metrics": "hyscribe_build_info{"} {
		res, err := http.Get("http://" + svc.HealthAddr() + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Errorf("GET %s = %d %.200s", path, res.StatusCode, b)
		}
	}
	if svc.HTTPAddr() != "" {
		t.Errorf("a worker listens for the API on %s", svc.HTTPAddr())
	}
}
