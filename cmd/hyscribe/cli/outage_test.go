package cli_test

import (
	"bufio"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// internalWords are what a store's driver or the service's wiring says
// about itself: none may be in a job's error, which the customer reads.
var internalWords = []string{"postgres", "pgx", "sqlite", "127.0.0.1", "5432", "user=", "database=", "dial tcp", "connection refused", "unavailable:", "transcribe:", "process:", "enrich:"}

// TestPostgresOutageLongerThanRetriesFailsNoJob cuts Postgres under jobs
// in flight for far longer than a stage's whole retry budget
// (HYSCRIBE_STAGE_ATTEMPTS × HYSCRIBE_STAGE_BACKOFF, under a second here):
// the stages wait the outage out without spending attempts, and once the
// database is back every job is transcribed, none failed, none left in a
// stage, and no job's error carries the store's words (issue 35: 3–4 of 41
// jobs failed with the driver's "failed to connect to user=postgres…",
// one stayed converting after a dead letter "anyway").
func TestPostgresOutageLongerThanRetriesFailsNoJob(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service on Postgres")
	}
	direct := pgtest.URL(t) // skips without Postgres
	proxy, viaProxy := pgtest.NewProxy(t, direct)
	engine := asrtest.NewEngine(t)
	vars := map[string]string{
		"DATABASE_URL":                 viaProxy,
		"HYSCRIBE_DATA_DIR":            t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":    "2",
		"HYSCRIBE_ASR_URL":             engine.URL(),
		"HYSCRIBE_STAGE_ATTEMPTS":      "3",
		"HYSCRIBE_STAGE_BACKOFF":       "50ms",
		"HYSCRIBE_SHUTDOWN_GRACE":      "500ms",
		"HYSCRIBE_LOG_LEVEL":           "error",
	}
	created := runCLI(t, env(map[string]string{"DATABASE_URL": direct}), "account", "create", "--name", "outage", "--plan", "business", "--seconds", "36000")
	key := created["apiKey"].(string)
	svc := startService(t, vars, cli.RoleAPI|cli.RoleWorker, cli.AllStages)
	api := svc.HTTPAddr()
	mono, _ := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")

	first := createAndUpload(t, api, key, "single_voice", mono)
	waitFor(t, "a job before the outage", 30*time.Second, func() (bool, string) {
		a := poll(t, api, key, first)
		return a.body["status"] == "transcribed", a.raw
	})
	before := stageTrouble(t, api)

	// The jobs are in the engine at the cut and come out of it during the
	// outage, so each meets the store down on its way to the next stage.
	engine.Delay(1500 * time.Millisecond)
	var jobs []string
	for range 6 {
		jobs = append(jobs, createAndUpload(t, api, key, "single_voice", mono))
	}
	waitFor(t, "jobs inside the speech engine", 30*time.Second, func() (bool, string) {
		return engine.InFlight() > 0, "no request in the engine"
	})
	proxy.Cut()
	// The outage lasts many times the retry budget; it is the premise, not
	// a wait for an outcome.
	time.Sleep(6 * time.Second)
	if engine.InFlight() > 0 {
		t.Fatal("requests still in the engine after the outage: the test would not make the jobs meet the store down")
	}
	proxy.Restore()

	waitFor(t, "every job in flight at the cut", 90*time.Second, func() (bool, string) {
		var notYet []string
		for _, id := range jobs {
			a := poll(t, api, key, id)
			if a.body["status"] == "failed" {
				t.Fatalf("job %s failed for the database's outage: %s", id, a.raw)
			}
			if a.body["status"] != "transcribed" {
				notYet = append(notYet, id+" "+a.raw)
			}
		}
		return len(notYet) == 0, strings.Join(notYet, "\n")
	})
	if stageTrouble(t, api) == before {
		t.Fatal("no stage met the outage (no retry, no wait): the test did not test it")
	}
	for _, id := range append(jobs, first) {
		a := poll(t, api, key, id)
		e, _ := a.body["error"].(string)
		for _, w := range internalWords {
			if strings.Contains(e, w) {
				t.Errorf("job %s's error carries %q: %s", id, w, a.raw)
			}
		}
	}
}

// stageTrouble sums the stages' retries, waits on a dependency down and
// dead letters, read from the service's /metrics.
func stageTrouble(t *testing.T, api string) float64 {
	t.Helper()
	res, err := http.Get("http://" + api + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var n float64
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		for _, name := range []string{"hyscribe_stage_retries_total{", "hyscribe_stage_backoffs_total{", "hyscribe_stage_dead_letters_total{"} {
			if strings.HasPrefix(line, name) {
				f := strings.Fields(line)
				v, err := strconv.ParseFloat(f[len(f)-1], 64)
				if err != nil {
					t.Fatalf("metrics line %q", line)
				}
				n += v
			}
		}
	}
	return n
}
