package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/kafka"
	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/domain"
)

// TestScaledOutProcessesSurviveAWorkerKill is the production topology as
// real OS processes: two `hyscribe api` and two `hyscribe worker` on one
// Postgres schema and a three-broker Kafka cluster the test runs. 200 jobs
// are created and uploaded through both APIs; one worker is killed with
// SIGKILL while the pipeline is busy. Every job still ends transcribed, each
// state change was made once (one status event per job and state), the
// surviving worker holds every partition of the stage groups, and the
// receiver gets at most one transcript_ready per job.
func TestScaledOutProcessesSurviveAWorkerKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs four processes")
	}
	dbURL := pgtest.URL(t) // skips without Postgres
	cluster, err := kafka.StartEmbedded("127.0.0.1:0", "", 12,
		kfake.NumBrokers(3), kfake.GroupMinSessionTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	engine := asrtest.NewEngine(t)
	engine.Delay(20 * time.Millisecond)
	hook := &receiver{got: map[string]int{}}
	hookSrv := httptest.NewServer(hook)
	defer hookSrv.Close()

	vars := map[string]string{
		"DATABASE_URL":                   dbURL,
		"KAFKA_BROKERS":                  strings.Join(cluster.Addrs(), ","),
		"HYSCRIBE_KAFKA_PARTITIONS":      "12",
		"HYSCRIBE_KAFKA_SESSION_TIMEOUT": "3s",
		"HYSCRIBE_OUTBOX_LEASE":          "5s",
		"HYSCRIBE_DATA_DIR":              t.TempDir(), // shared: uploaded blobs
		"HYSCRIBE_HTTP_ADDR":             "127.0.0.1:0",
		"HYSCRIBE_UPLOAD_SECRET":         testUploadSecret,
		"HYSCRIBE_ASR_URL":               engine.URL(),
		"HYSCRIBE_WEBHOOK_ALLOW_PRIVATE": "true",
		"HYSCRIBE_STAGE_BACKOFF":         "50ms",
		"HYSCRIBE_SHUTDOWN_GRACE":        "1s",
		"HYSCRIBE_LOG_LEVEL":             "info",
	}
	acct := runCLI(t, env(vars), "account", "create", "--name", "scaled", "--plan", "business", "--seconds", "100000")
	runCLI(t, env(vars), "account", "update", "--account", acct["accountId"].(string), "--webhook-url", hookSrv.URL, "--webhook-secret", "s")
	key := acct["apiKey"].(string)

	_, api1 := startAPI(t, "api-1", vars)
	_, api2 := startAPI(t, "api-2", vars)
	workerVars := maps.Clone(vars)
	workerVars["HYSCRIBE_PUBLIC_URL"] = "http://" + api1 // a worker with DATABASE_URL needs it
	victim := startProc(t, "worker-1", workerVars, "worker")
	startProc(t, "worker-2", workerVars, "worker")
	apis := []string{api1, api2}

	var (
		mu  sync.Mutex
		ids []string
	)
	// One query per look, not one per job: the test must not be what
	// loads Postgres.
	db, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	count := func(ids []string) map[domain.Status]int {
		mu.Lock()
		ids = slices.Clone(ids)
		mu.Unlock()
		rows, _ := db.Query(context.Background(), `SELECT id, status, error FROM jobs WHERE id = ANY($1)`, ids)
		out := map[domain.Status]int{}
		for rows.Next() {
			var id, status, errText string
			if err := rows.Scan(&id, &status, &errText); err != nil {
				t.Fatal(err)
			}
			out[domain.Status(status)]++
			if domain.Status(status) == domain.StatusFailed {
				t.Fatalf("job %s failed: %s", id, errText)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}

	mono, err := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	submit := func(from, to int) {
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := from + w; i < to; i += 8 {
					// Not call: t.Fatal must not run outside the test's goroutine.
					var created struct{ DocID, UploadURL string }
					body := fmt.Sprintf(`{"type":"single_voice","metadata":{"n":%d}}`, i)
					if err := send("POST", "http://"+apis[i%2]+"/api/createTranscription", key, strings.NewReader(body), &created); err != nil {
						t.Error(err)
						return
					}
					if !strings.HasPrefix(created.UploadURL, "http://"+apis[i%2]+"/") {
						t.Errorf("upload URL %s is not on the API that created it (%s)", created.UploadURL, apis[i%2])
					}
					// Upload through the other API: the shared secret and
					// data dir make either one accept it.
					if err := send("PUT", strings.Replace(created.UploadURL, apis[i%2], apis[(i+1)%2], 1), "", bytes.NewReader(mono), nil); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					ids = append(ids, created.DocID)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}

	// The consumer groups of the stages a worker runs here (analytics needs
	// ClickHouse and uploads S3: neither is configured).
	stageGroups := []string{"hyscribe-process", "hyscribe-transcribe", "hyscribe-enrich", "hyscribe-notify", "hyscribe-analyze"}
	adm := kadmClient(t, cluster.Addrs())
	// The premise of the kill: worker-1 holds partitions of every stage
	// group, so killing it takes work away from a stage mid-pipeline.
	waitForGroupsShared(t, adm, 2, stageGroups...)

	const jobs = 200
	start := time.Now()
	submit(0, jobs/2)
	if t.Failed() {
		t.FailNow()
	}
	// Budgets are generous: on a quiet 2-core machine the whole test takes
	// about 25 s, but it shares the cores with other suites.
	waitFor(t, "the first jobs to finish", 90*time.Second, func() (bool, string) {
		st := count(ids)
		return st[domain.StatusTranscribed] >= 10, fmt.Sprint(st)
	})
	victim.kill()
	// Counted after the kill: a job unfinished now was unfinished at it.
	atKill := count(ids)
	t.Logf("killed worker-1 after %s with %v", time.Since(start).Round(time.Millisecond), atKill)
	if atKill[domain.StatusTranscribed] >= jobs/2 {
		t.Fatalf("premise: the kill came after every job of the first half was done (%v): nothing was mid-pipeline", atKill)
	}
	submit(jobs/2, jobs)
	if t.Failed() {
		t.FailNow()
	}
	waitFor(t, "every job to be transcribed", 150*time.Second, func() (bool, string) {
		st := count(ids)
		return st[domain.StatusTranscribed] == jobs, fmt.Sprint(st)
	})
	t.Logf("%d jobs transcribed %s after the first create", jobs, time.Since(start).Round(time.Millisecond))

	// The survivor owns every partition of every stage group (the groups'
	// session timeouts end at about the same moment; wait a little for the
	// last one).
	waitFor(t, "the survivor to hold every partition", 15*time.Second, func() (bool, string) {
		groups, err := adm.DescribeGroups(context.Background(), stageGroups...)
		if err != nil {
			return false, err.Error()
		}
		var problems []string
		for name, g := range groups {
			if g.Err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", name, g.Err))
				continue
			}
			if len(g.Members) != 1 {
				problems = append(problems, fmt.Sprintf("%s has %d members", name, len(g.Members)))
				continue
			}
			a, ok := g.Members[0].Assigned.AsConsumer()
			if !ok || len(a.Topics) == 0 {
				problems = append(problems, fmt.Sprintf("%s: survivor holds no topic", name))
				continue
			}
			// Every topic a stage reads has 12 partitions; the survivor
			// must hold all of them, whatever topics the stage reads.
			for _, tp := range a.Topics {
				if len(tp.Partitions) != 12 {
					problems = append(problems, fmt.Sprintf("%s: survivor holds %d partitions of %s, want 12", name, len(tp.Partitions), tp.Topic))
				}
			}
		}
		return len(problems) == 0 && len(groups) == len(stageGroups), strings.Join(problems, "; ")
	})

	// Every state change was made once: exactly one status event per job
	// and state, whatever was redone after the kill.
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.Addrs()...), kgo.ConsumeTopics(domain.TopicJobStatus),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	type docStatus struct{ doc, status string }
	eventIDs := map[docStatus]map[string]bool{}
	records := 0
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for len(eventIDs) < jobs*4 && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			var ev domain.Event
			var data domain.JobStatusData
			if json.Unmarshal(r.Value, &ev) != nil || ev.DecodeData(&data) != nil {
				t.Fatalf("undecodable status record %s", r.Value)
			}
			k := docStatus{string(ev.DocID), string(data.Status)}
			if eventIDs[k] == nil {
				eventIDs[k] = map[string]bool{}
			}
			eventIDs[k][ev.ID] = true
			records++
		})
	}
	if len(eventIDs) != jobs*4 {
		t.Fatalf("%d (docId, status) pairs on %s, want %d (uploading, processing, converting, transcribed per job)",
			len(eventIDs), domain.TopicJobStatus, jobs*4)
	}
	for k, evs := range eventIDs {
		if len(evs) != 1 {
			t.Errorf("job %s entered %s %d times: events %v", k.doc, k.status, len(evs), evs)
		}
	}
	// A relay killed between Kafka's ack and marking its batch sent
	// publishes it again once the lease ends: a copy of the same event
	// (same id), which consumers deduplicate (docs/events.md).
	t.Logf("status records read: %d for %d events", records, jobs*4)

	// Webhooks: every job gets its transcript_ready. A delivery the killed
	// worker had leased is taken over by the survivor once its lease passes
	// (docs/security.md); one it had sent but not yet recorded is sent
	// again, with the same webhook-id, so receivers that deduplicate on it
	// see one event per job.
	waitFor(t, "transcript_ready deliveries", 90*time.Second, func() (bool, string) {
		hook.mu.Lock()
		defer hook.mu.Unlock()
		var pending int
		if err := db.QueryRow(context.Background(), `SELECT count(*) FROM deliveries WHERE status = $1`, domain.DeliveryPending).Scan(&pending); err != nil {
			t.Fatal(err)
		}
		return len(hook.got) == jobs && pending == 0, fmt.Sprintf("%d of %d jobs received, %d pending", len(hook.got), jobs, pending)
	})
	hook.mu.Lock()
	defer hook.mu.Unlock()
	again := 0
	for id, n := range hook.got {
		if len(hook.ids[id]) != 1 {
			t.Errorf("job %s: transcript_ready under %d webhook-ids %v, want one", id, len(hook.ids[id]), hook.ids[id])
		}
		again += n - 1
	}
	t.Logf("%d transcript_ready sent again after the kill, each with its first webhook-id", again)
}

// send makes one API request that must answer 200, decoding the body into
// out when out is not nil.
func send(method, url, key string, body io.Reader, out any) error {
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		return err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", method, url, res.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// waitForGroupsShared waits until each of groups has members members, each
// holding partitions.
func waitForGroupsShared(t *testing.T, adm *kadm.Client, members int, groups ...string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d members sharing every group of %v", members, groups), 60*time.Second, func() (bool, string) {
		described, err := adm.DescribeGroups(context.Background(), groups...)
		if err != nil {
			return false, err.Error()
		}
		var problems []string
		for name, g := range described {
			if g.Err != nil || len(g.Members) != members {
				problems = append(problems, fmt.Sprintf("%s: %d members %v", name, len(g.Members), g.Err))
				continue
			}
			for _, m := range g.Members {
				if a, ok := m.Assigned.AsConsumer(); !ok || len(a.Topics) == 0 {
					problems = append(problems, fmt.Sprintf("%s: member %s holds nothing", name, m.ClientID))
				}
			}
		}
		return len(problems) == 0 && len(described) == len(groups), strings.Join(problems, "; ")
	})
}

func kadmClient(t *testing.T, brokers []string) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}
