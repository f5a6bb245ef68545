package cli_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/kafka"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// With HYSCRIBE_ADMIN_ADDR, /metrics, pprof and the readiness details are
// on the operators' listener and /metrics is gone from the public port;
// without it, /metrics stays on the public port (docs/operations.md).
func TestAdminListener(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service")
	}
	cluster, err := kafka.StartEmbedded("127.0.0.1:0", t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	vars := map[string]string{
		"HYSCRIBE_DATA_DIR":   t.TempDir(),
		"KAFKA_BROKERS":       cluster.Addrs()[0],
		"HYSCRIBE_HTTP_ADDR":  "127.0.0.1:0",
		"HYSCRIBE_ADMIN_ADDR": "127.0.0.1:0",
		"HYSCRIBE_LOG_LEVEL":  "error",
	}
	get := func(url string) (int, string) {
		t.Helper()
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	start := func(roles cli.Role, vars map[string]string) *cli.Service {
		cfg, err := cli.LoadConfig(env(vars))
		if err != nil {
			t.Fatal(err)
		}
		svc, err := cli.Start(context.Background(), cfg, roles, []string{cli.StageProcess}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Stop() })
		return svc
	}
	api := start(cli.RoleAPI, vars)
	admin := "http://" + api.AdminAddr()
	if code, _ := get("http://" + api.HTTPAddr() + "/metrics"); code != http.StatusNotFound {
		t.Errorf("public /metrics with an admin listener: %d, want 404", code)
	}
	for path, want := range map[string]string{"/metrics": "hyscribe_build_info{", "/debug/pprof/": "goroutine", "/healthz": `"ok"`, "/readyz": `{"status":"ok"}`} {
		if code, body := get(admin + path); code != 200 || !strings.Contains(body, want) {
			t.Errorf("admin GET %s = %d %.200s", path, code, body)
		}
	}
	code, body := get(admin + "/readyz/details")
	var details struct {
		Status string
		Checks map[string]string
	}
	if err := json.Unmarshal([]byte(body), &details); err != nil || code != 200 || details.Status != "ok" || details.Checks["kafka"] != "ok" || details.Checks["store"] != "ok" {
		t.Errorf("admin /readyz/details = %d %s", code, body)
	}

	worker := start(cli.RoleWorker, vars)
	if code, body := get("http://" + worker.AdminAddr() + "/metrics"); code != 200 || !strings.Contains(body, "hyscribe_build_info{") {
		t.Errorf("worker admin /metrics = %d", code)
	}

	delete(vars, "HYSCRIBE_ADMIN_ADDR")
	plain := start(cli.RoleAPI, vars)
	if code, body := get("http://" + plain.HTTPAddr() + "/metrics"); code != 200 || !strings.Contains(body, "hyscribe_build_info{") {
		t.Errorf("public /metrics without an admin listener = %d", code)
	}
	if plain.AdminAddr() != "" {
		t.Errorf("an admin listener without HYSCRIBE_ADMIN_ADDR: %s", plain.AdminAddr())
	}

	cluster.Close()
	code, body = get(admin + "/readyz/details")
	if err := json.Unmarshal([]byte(body), &details); err != nil || code != 503 || details.Checks["kafka"] == "ok" {
		t.Errorf("admin /readyz/details with Kafka gone = %d %s", code, body)
	}
}
