package cli_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// When ClickHouse refuses the analytics stage's writes (here: its database
// dropped under the running service), /metrics counts the failed writes in
// hyscribe_analytics_write_failures_total, what the alert
// HyscribeAnalyticsSinkFailing reads, while the jobs themselves finish.
func TestAFailingAnalyticsSinkIsCountedInMetrics(t *testing.T) {
	dsn := clickhouseDB(t) // skips without ClickHouse
	engine := asrtest.NewEngine(t)
	vars := map[string]string{
		"HYSCRIBE_DATA_DIR":            t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":    "2",
		"HYSCRIBE_ASR_URL":             engine.URL(),
		"HYSCRIBE_SHUTDOWN_GRACE":      "200ms",
		"HYSCRIBE_LOG_LEVEL":           "warn",
		"CLICKHOUSE_DSN":               dsn,
	}
	key := runCLI(t, env(vars), "account", "create", "--name", "sink", "--plan", "business", "--seconds", "3600")["apiKey"].(string)
	svc := startService(t, vars, cli.RoleAPI|cli.RoleWorker, cli.AllStages)
	failures := func() float64 {
		res, err := http.Get("http://" + svc.HTTPAddr() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		m := regexp.MustCompile(`(?m)^hyscribe_analytics_write_failures_total (\S+)$`).FindSubmatch(b)
		if m == nil {
			t.Fatalf("/metrics has no hyscribe_analytics_write_failures_total:\n%s", b)
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		return v
	}
	if n := failures(); n != 0 {
		t.Fatalf("%v failed writes before anything failed", n)
	}

	opts, err := ch.ParseDSN(os.Getenv("CLICKHOUSE_TEST_DSN"))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := ch.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	u, _ := url.Parse(dsn)
	if err := conn.Exec(context.Background(), "DROP DATABASE "+strings.TrimPrefix(u.Path, "/")); err != nil {
		t.Fatal(err)
	}

	mono, err := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ DocID, UploadURL string }
	call(t, "POST", "http://"+svc.HTTPAddr()+"/api/createTranscription", key, strings.NewReader(`{"type":"single_voice"}`), 200, &created)
	call(t, "PUT", created.UploadURL, "", bytes.NewReader(mono), 200, nil)
	waitFor(t, "a failed write to the dropped database counted", 60*time.Second, func() (bool, string) {
		n := failures()
		return n > 0, strconv.FormatFloat(n, 'g', -1, 64) + " failed writes"
	})
}
