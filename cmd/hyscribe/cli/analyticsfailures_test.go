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

	"github.com/hyscribe/hyscribe/adapters/clickhouse/chtest"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// When ClickHouse refuses the analytics stage's writes (here: its database
// dropped under the running service), /metrics counts the failed writes in
// hyscribe_analytics_write_failures_total, what the alert
// HyscribeAnalyticsSinkFailing reads, while the jobs themselves finish.
func TestAFailingAnalyticsSinkIsCountedInMetrics(t *testing.T) {
	dsn := clickhouseDB(t) // fails under CI without ClickHouse (testenv)
	vars := analyticsVars(t, t.TempDir(), dsn, "warn")
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

	opts, err := ch.ParseDSN(chtest.Server(t))
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
