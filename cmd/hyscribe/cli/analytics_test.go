package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/clickhouse/chtest"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/servicetest"
)

// clickhouseDB creates a database of the test's own (chtest) and returns
// a DSN naming it; dropped at the end.
func clickhouseDB(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts the whole service with ClickHouse")
	}
	dsn, _ := chtest.Database(t, "hyscribe_cli_")
	return dsn
}

// clickhouseServer returns a connection to the tests' ClickHouse (chtest),
// a database name of the test's own (not created; dropped at the end if it
// was) and a DSN naming it.
func clickhouseServer(t *testing.T) (ch.Conn, string, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts the whole service with ClickHouse")
	}
	return chtest.Name(t, "hyscribe_cli_")
}

// TestChecklistAnalysisReachesClickHouseAndTheReport runs the whole
// service with the analytics stage: a job with a checklist is analysed, the
// analysis lands in ClickHouse, and `hyscribe report checklist` prints it.
func TestChecklistAnalysisReachesClickHouseAndTheReport(t *testing.T) {
	dsn := clickhouseDB(t)
	dir := t.TempDir()
	vars := analyticsVars(t, dir, dsn, "warn")
	getenv := env(vars)
	acct := runCLI(t, getenv, "account", "create", "--name", "qa", "--plan", "business", "--seconds", "3600")
	accountID, key := acct["accountId"].(string), acct["apiKey"].(string)
	def := filepath.Join(dir, "checklist.json")
	if err := os.WriteFile(def, []byte(`{"name":"Զանգի որակ","questions":[{"id":"greet","text":"Ողջունե՞ց","expect":["բարև"]},{"id":"none","text":"Անհնար","expect":["զզզզզզ քքքքքք"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	checklistID := runCLI(t, getenv, "checklist", "create", "--account", accountID, "--file", def)["checklistId"].(string)
	if got := runCLI(t, getenv, "checklist", "show", "--account", accountID, "--checklist", checklistID); got["version"] != float64(1) {
		t.Fatalf("checklist show: %v", got)
	}

	cfg, err := cli.LoadConfig(getenv)
	if err != nil {
		t.Fatal(err)
	}
	logs, _ := os.Create(filepath.Join(dir, "log"))
	defer logs.Close()
	svc, err := cli.Start(context.Background(), cfg, cli.RoleAPI|cli.RoleWorker, cli.AllStages, logs)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop()
	// Every stage but uploads (no S3 here) runs: each consumes exactly
	// what app.Pipeline declares (analytics also reads job.deleted).
	assertStageSubscriptions(t, svc.Brokers(), cli.StageProcess, cli.StageTranscribe, cli.StageEnrich,
		cli.StageNotify, cli.StageAnalyze, cli.StageAnalytics)
	mono, _ := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	for range 2 {
		var created struct{ DocID, UploadURL string }
		call(t, "POST", "http://"+svc.HTTPAddr()+"/api/createTranscription", key, strings.NewReader(`{"type":"single_voice","checklistId":"`+checklistID+`"}`), 200, &created)
		call(t, "PUT", created.UploadURL, "", bytes.NewReader(mono), 200, nil)
	}

	today := time.Now().UTC().Format(time.DateOnly)
	tomorrow := time.Now().UTC().Add(24 * time.Hour).Format(time.DateOnly)
	var rep map[string]any
	waitFor(t, "the two analyses in the report", 30*time.Second, func() (bool, string) {
		rep = runCLI(t, getenv, "report", "checklist", "--account", accountID, "--checklist", checklistID, "--from", today, "--to", tomorrow, "--json")
		days, _ := rep["days"].([]any)
		return len(days) == 1 && days[0].(map[string]any)["analyses"] == float64(2), fmt.Sprint(rep)
	})
	qs := rep["questions"].([]any)
	if len(qs) != 2 || qs[1].(map[string]any)["questionId"] != "none" || qs[1].(map[string]any)["passRate"] != float64(0) ||
		qs[1].(map[string]any)["answers"] != float64(2) {
		t.Fatalf("questions %v", qs)
	}
	var out, errb bytes.Buffer
	if err := cli.Run(context.Background(), []string{"report", "checklist", "--account", accountID, "--checklist", checklistID, "--from", today, "--to", tomorrow}, getenv, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	if !strings.Contains(out.String(), "pass rate") || !strings.Contains(out.String(), today+"  2") {
		t.Fatalf("report:\n%s", out.String())
	}
	t.Logf("report:\n%s", out.String())
}

// TestAnalyticsCreatesItsDatabaseAndWaitsForClickHouse: CLICKHOUSE_DSN
// names a database that does not exist, on a ClickHouse that cannot be
// reached when the service starts (a proxy that drops every connection).
// The service starts anyway, its other stages transcribe a job, and the
// analytics stage says it waits; once ClickHouse answers, the stage creates
// the database and its tables and the job's status events, kept in Kafka
// meanwhile, arrive.
func TestAnalyticsCreatesItsDatabaseAndWaitsForClickHouse(t *testing.T) {
	admin, db, dsn := clickhouseServer(t)
	server, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}

	// The proxy drops connections until up is set, then forwards them to
	// the real server.
	var up atomic.Bool
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if !up.Load() {
				c.Close()
				continue
			}
			go func() {
				defer c.Close()
				s, err := net.Dial("tcp", server.Host)
				if err != nil {
					return
				}
				defer s.Close()
				go func() { io.Copy(s, c); s.Close() }()
				io.Copy(c, s)
			}()
		}
	}()
	proxied := *server
	proxied.Host = ln.Addr().String()

	dir := t.TempDir()
	vars := analyticsVars(t, dir, proxied.String(), "info")
	getenv := env(vars)
	key := runCLI(t, getenv, "account", "create", "--name", "ch", "--plan", "business", "--seconds", "3600")["apiKey"].(string)
	cfg, err := cli.LoadConfig(getenv)
	if err != nil {
		t.Fatal(err)
	}
	var logs servicetest.LockedBuffer
	svc, err := cli.Start(context.Background(), cfg, cli.RoleAPI|cli.RoleWorker, cli.AllStages, &logs)
	if err != nil {
		t.Fatalf("the service did not start with ClickHouse down: %v", err)
	}
	defer svc.Stop()
	if !strings.Contains(logs.String(), "analytics waits for ClickHouse") {
		t.Fatalf("no word that analytics waits:\n%s", logs.String())
	}

	mono, _ := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	var created struct{ DocID, UploadURL string }
	call(t, "POST", "http://"+svc.HTTPAddr()+"/api/createTranscription", key, strings.NewReader(`{"type":"single_voice"}`), 200, &created)
	call(t, "PUT", created.UploadURL, "", bytes.NewReader(mono), 200, nil)
	waitFor(t, "the job transcribed while ClickHouse is down", 60*time.Second, func() (bool, string) {
		a := poll(t, svc.HTTPAddr(), key, created.DocID)
		return a.body["status"] == "transcribed", a.raw
	})
	waitFor(t, "the analytics stage retrying", 60*time.Second, func() (bool, string) {
		return strings.Contains(logs.String(), "waiting for ClickHouse"), ""
	})

	up.Store(true)
	waitFor(t, "the job's status events in the new database", 90*time.Second, func() (bool, string) {
		var n uint64
		err := admin.QueryRow(context.Background(), "SELECT count() FROM "+db+".job_status_events WHERE doc_id = ?", created.DocID).Scan(&n)
		return err == nil && n > 0, fmt.Sprint(n, err)
	})
}

// analyticsVars is the environment of a whole service with the analytics
// stage writing to the ClickHouse of dsn, its data in dir and a test engine
// of its own; logLevel as the test needs to read the log.
func analyticsVars(t *testing.T, dir, dsn, logLevel string) map[string]string {
	t.Helper()
	return map[string]string{
		"HYSCRIBE_DATA_DIR":            dir,
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":    "2",
		"HYSCRIBE_ASR_URL":             asrtest.NewEngine(t).URL(),
		"HYSCRIBE_SHUTDOWN_GRACE":      "200ms",
		"HYSCRIBE_LOG_LEVEL":           logLevel,
		"CLICKHOUSE_DSN":               dsn,
	}
}
