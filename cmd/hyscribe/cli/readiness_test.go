package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/kafka"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// Readiness follows Kafka: a worker whose brokers are gone answers /readyz
// 503 (out of rotation) while /healthz (liveness) stays 200; the API the
// same on its own port.
func TestReadinessFollowsKafka(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service")
	}
	cluster, err := kafka.StartEmbedded("127.0.0.1:0", t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	cfg, err := cli.LoadConfig(env(map[string]string{
		"HYSCRIBE_DATA_DIR":    t.TempDir(),
		"KAFKA_BROKERS":        cluster.Addrs()[0],
		"HYSCRIBE_HTTP_ADDR":   "127.0.0.1:0",
		"HYSCRIBE_HEALTH_ADDR": "127.0.0.1:0",
		"HYSCRIBE_LOG_LEVEL":   "error",
	}))
	if err != nil {
		t.Fatal(err)
	}
	worker, err := cli.Start(context.Background(), cfg, cli.RoleWorker, []string{cli.StageProcess}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer worker.Stop()
	api, err := cli.Start(context.Background(), cfg, cli.RoleAPI, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer api.Stop()

	status := func(url string) int {
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	// shape is the JSON keys of an answer: api and worker answer /readyz
	// alike (one shape for the probes and whoever reads them).
	shape := func(url string) string {
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		keys := slices.Sorted(maps.Keys(m))
		return fmt.Sprint(res.StatusCode, keys)
	}
	urls := map[string]string{"worker": "http://" + worker.HealthAddr(), "api": "http://" + api.HTTPAddr()}
	for who, u := range urls {
		if r, h := status(u+"/readyz"), status(u+"/healthz"); r != 200 || h != 200 {
			t.Fatalf("%s with Kafka up: /readyz %d, /healthz %d", who, r, h)
		}
	}
	if a, w := shape(urls["api"]+"/readyz"), shape(urls["worker"]+"/readyz"); a != w || a != "200 [status]" {
		t.Errorf("/readyz when ready: api %s, worker %s", a, w)
	}
	cluster.Close()
	for who, u := range urls {
		waitFor(t, who+": /readyz 503 with Kafka gone", 20*time.Second, func() (bool, string) {
			code := status(u + "/readyz")
			return code == http.StatusServiceUnavailable, fmt.Sprint(code)
		})
		if h := status(u + "/healthz"); h != 200 {
			t.Errorf("%s: /healthz %d with Kafka gone: liveness must not follow dependencies", who, h)
		}
	}
	if a, w := shape(urls["api"]+"/readyz"), shape(urls["worker"]+"/readyz"); a != w || a != "503 [code error]" {
		t.Errorf("/readyz when not ready: api %s, worker %s", a, w)
	}
}
