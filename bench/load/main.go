// Command load is the driver of `make bench` (bench/run.sh): it runs
// hyscribe as real processes on Postgres (a schema of its own, dropped at
// the end) and loopback only, measures the figures docs/performance.md
// reports, prints them and writes them to its section of that file.
//
// Figures: poll req/s and latency under wrk with many API keys (and with one
// key, the 429 path) beside a bare fiber handler; create+upload jobs/s;
// pipeline jobs/s and end-to-end latency with an instant speech engine;
// webhook deliveries/s; peak RSS of a worker transcribing a one-hour MP3.
// Every loop is bounded in count and time.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/kafka"
	"github.com/hyscribe/hyscribe/adapters/postgres"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

type options struct {
	bin, bare, wrk, lua, audio, out, dbBase string
	keys, jobs, paced, rate, accounts       int
	sqliteKeys                              int
	pool                                    int
	dur                                     time.Duration
	conns                                   int
	only, pprofDir                          string
	pprofSecs                               int
}

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "", "the hyscribe binary")
	flag.StringVar(&o.bare, "bare", "", "the barefiber binary")
	flag.StringVar(&o.wrk, "wrk", "wrk", "the wrk binary")
	flag.StringVar(&o.lua, "lua", "bench/poll.lua", "wrk script")
	flag.StringVar(&o.audio, "audio", "testdata/audio/speech-mono-16k.mp3", "recording the jobs upload")
	flag.StringVar(&o.out, "out", "docs/performance.md", "file whose bench section is rewritten ('' to skip)")
	flag.StringVar(&o.dbBase, "db", os.Getenv("HYSCRIBE_TEST_DATABASE_URL"), "Postgres server URL")
	flag.IntVar(&o.keys, "keys", 8000, "API keys the poll load rotates through (their 60/min each must outlast a run)")
	flag.IntVar(&o.sqliteKeys, "sqlite-keys", 8000, "API keys the poll load on SQLite (serve) rotates through")
	flag.IntVar(&o.accounts, "accounts", 50, "accounts the keys (and so the jobs) are spread over")
	flag.IntVar(&o.pool, "pool", 16, "pool_max_conns of the hyscribe processes (0: pgx's default, max(4, CPUs))")
	flag.IntVar(&o.jobs, "jobs", 1000, "jobs created for the upload and pipeline figures")
	flag.IntVar(&o.paced, "paced", 300, "jobs of the paced end-to-end latency run")
	flag.IntVar(&o.rate, "rate", 40, "jobs per second of the paced run")
	flag.DurationVar(&o.dur, "duration", 8*time.Second, "length of each wrk run")
	flag.IntVar(&o.conns, "connections", 32, "wrk connections")
	flag.StringVar(&o.only, "only", "", "'pipeline': only create+upload and the backlog run, figures printed, no file written")
	flag.StringVar(&o.pprofDir, "pprof", "", "directory for CPU and allocation profiles of the api and worker during the backlog ('' none)")
	flag.IntVar(&o.pprofSecs, "pprof-seconds", 8, "length of the CPU profiles")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// results are the figures, as printed and written.
type results struct {
	Poll, Limited, Bare           wrkResult
	SQLite                        sqliteResults
	Keys, Accounts, Pool          int
	Uploads                       int
	UploadSecs                    float64
	PipelineJobs                  int
	PipelineSecs, PipelineWallSec float64
	PacedJobs, PacedRate          int
	E2EP50, E2EP99, E2EMax        time.Duration
	Webhooks                      int
	WebhookSecs                   float64
	HourBytes                     int64
	HourSecs                      float64
	HourTook                      time.Duration
	WorkerHWMkB, WorkerIdleHWMkB  int64
	PipeBusy                      float64 // machine CPU busy share during the backlog run
	PipeAPICPU, PipeWorkerCPU     float64 // CPU seconds of the api and worker processes then
	PipePostgresCPU               float64 // and of the Postgres backends serving them
	CPUs                          int
	When                          time.Time
}

type wrkResult struct {
	Requests     int            `json:"requests"`
	Seconds      float64        `json:"seconds"`
	P50us        int            `json:"p50_us"`
	P99us        int            `json:"p99_us"`
	MaxUs        int            `json:"max_us"`
	SocketErrors int            `json:"socket_errors"`
	Statuses     map[string]int `json:"statuses"`
}

func (w wrkResult) rps() float64 { return float64(w.Requests) / w.Seconds }

func run(o options) error {
	if o.bin == "" || o.bare == "" || o.dbBase == "" {
		return errors.New("-bin, -bare and -db (or HYSCRIBE_TEST_DATABASE_URL) are required")
	}
	if o.only != "" && o.only != "pipeline" {
		return fmt.Errorf("-only %q: want '' or 'pipeline'", o.only)
	}
	ctx := context.Background()
	r := results{Keys: o.keys, Accounts: o.accounts, Pool: o.pool, CPUs: runtime.NumCPU(), When: time.Now().UTC()}
	audio, err := os.ReadFile(o.audio)
	if err != nil {
		return err
	}
	dbURL, dropSchema, err := newSchema(ctx, o.dbBase)
	if err != nil {
		return err
	}
	defer dropSchema()
	work, err := os.MkdirTemp("", "hyscribe-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	var procs []*proc
	defer func() {
		for _, p := range procs {
			p.stop()
		}
	}()

	engine, err := startEngine()
	if err != nil {
		return err
	}
	defer engine.Close()
	hook, err := startReceiver()
	if err != nil {
		return err
	}
	defer hook.srv.Close()

	procURL := dbURL + "&application_name=" + benchApp
	if o.pool > 0 {
		procURL += "&pool_max_conns=" + strconv.Itoa(o.pool)
	}
	// The processes share one Kafka cluster, as a production-shaped
	// process (DATABASE_URL set) requires: an embedded one run here.
	cluster, err := kafka.StartEmbedded("127.0.0.1:0", "", 12)
	if err != nil {
		return err
	}
	defer cluster.Close()
	vars := map[string]string{
		"DATABASE_URL":                   procURL,
		"KAFKA_BROKERS":                  strings.Join(cluster.Addrs(), ","),
		"HYSCRIBE_DATA_DIR":              filepath.Join(work, "data"),
		"HYSCRIBE_HTTP_ADDR":             "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":      "12",
		"HYSCRIBE_UPLOAD_SECRET":         "bench-upload-secret-0123456789abcdef",
		"HYSCRIBE_ASR_URL":               engine.url,
		"HYSCRIBE_WEBHOOK_ALLOW_PRIVATE": "true",
		"HYSCRIBE_CREATE_RATE_LIMIT":     "100000",
		"HYSCRIBE_SHUTDOWN_GRACE":        "2s",
		"HYSCRIBE_LOG_LEVEL":             "info",
	}
	if o.pprofDir != "" {
		if err := os.MkdirAll(o.pprofDir, 0o755); err != nil {
			return err
		}
		vars["HYSCRIBE_PPROF_ADDR"] = "127.0.0.1:0"
	}
	api, err := startProc(work, "api", vars, o.bin, "api")
	if err != nil {
		return err
	}
	procs = append(procs, api)
	apiLine, err := api.waitLog("http listening", 60*time.Second)
	if err != nil {
		return err
	}
	apiAddr := apiLine["addr"].(string)
	vars["HYSCRIBE_PUBLIC_URL"] = "http://" + apiAddr // the workers' event links

	// Provisioning straight into the store: an account, its keys, a receiver.
	store, err := postgres.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer store.Close()
	createAccount, updateAccount, createKey := app.NewCreateAccount(store, ports.SystemClock{}), app.NewUpdateAccount(store), app.NewCreateAPIKey(store, ports.SystemClock{})
	// Account 0 holds the keys the poll load rotates through (a job is
	// polled by its own account); the jobs of the pipeline runs are spread
	// over every account, one key each, as many customers' would be.
	hookURL, secret := hook.srv.URL, "bench"
	var keys, jobKeys []string
	for i := range max(o.accounts, 1) {
		acct, first, err := createAccount.Handle(ctx, "bench", domain.PlanBusiness, 1e9)
		if err != nil {
			return err
		}
		if _, err := updateAccount.Handle(ctx, acct.ID, domain.RoleOwner, app.AccountChanges{WebhookURL: &hookURL, WebhookSecret: &secret}); err != nil {
			return err
		}
		jobKeys = append(jobKeys, first)
		if i > 0 {
			continue
		}
		keys = append(keys, first)
		for len(keys) < o.keys {
			k, _, err := createKey.Handle(ctx, acct.ID, domain.RoleOwner)
			if err != nil {
				return err
			}
			keys = append(keys, k)
		}
	}
	keysFile := filepath.Join(work, "keys")
	if err := os.WriteFile(keysFile, []byte(strings.Join(keys, "\n")+"\n"), 0o600); err != nil {
		return err
	}
	oneKey := filepath.Join(work, "one-key")
	if err := os.WriteFile(oneKey, []byte(keys[0]+"\n"), 0o600); err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 30 * time.Second}
	polled, _, err := createJob(client, apiAddr, keys[len(keys)-1])
	if err != nil {
		return err
	}
	pollPath := "/api/getTranscription?docId=" + polled

	if o.only == "pipeline" {
		return runPipeline(ctx, o, &r, work, vars, api, &procs, client, apiAddr, dbURL, jobKeys, audio, hook)
	}

	// 1. Poll: many keys (the 200 path), one key (the 429 path), bare fiber.
	fmt.Fprintf(os.Stderr, "bench: poll under wrk, %d keys, %s\n", o.keys, o.dur)
	if r.Poll, err = runWrk(o, apiAddr, pollPath, keysFile); err != nil {
		return err
	}
	if r.Limited, err = runWrk(o, apiAddr, pollPath, oneKey); err != nil {
		return err
	}
	if r.Bare, err = runBare(o, work, "barefiber", pollPath, keysFile); err != nil {
		return err
	}
	// The same on the embedded default, with its own bare fiber run.
	if r.SQLite, err = pollSQLite(o, work); err != nil {
		return err
	}

	// 2. Create + upload, no worker running: the events wait in Kafka.
	fmt.Fprintf(os.Stderr, "bench: %d creates and uploads\n", o.jobs)
	start := time.Now()
	ids, _, err := submit(client, apiAddr, jobKeys, audio, o.jobs, 16, 0)
	if err != nil {
		return err
	}
	r.Uploads, r.UploadSecs = len(ids), time.Since(start).Seconds()

	// 3. Pipeline: a worker drains the backlog.
	worker, err := drain(ctx, o, &r, work, vars, api, &procs, dbURL, ids, hook)
	if err != nil {
		return err
	}

	// 4. Paced: end-to-end latency at a steady rate the pipeline keeps up with.
	fmt.Fprintf(os.Stderr, "bench: %d jobs at %d/s for end-to-end latency\n", o.paced, o.rate)
	pids, uploaded, err := submit(client, apiAddr, jobKeys, audio, o.paced, 16, o.rate)
	if err != nil {
		return err
	}
	pdone, err := waitTranscribed(ctx, dbURL, pids, 120*time.Second)
	if err != nil {
		return err
	}
	var lat []time.Duration
	for id, at := range pdone {
		lat = append(lat, max(0, at.Sub(uploaded[id])))
	}
	slices.Sort(lat)
	r.PacedJobs, r.PacedRate = len(pids), o.rate
	r.E2EP50, r.E2EP99, r.E2EMax = pct(lat, 50), pct(lat, 99), lat[len(lat)-1]
	worker.stop()

	// 5. Peak RSS of a fresh worker transcribing a one-hour recording.
	fmt.Fprintln(os.Stderr, "bench: one-hour MP3 through a fresh worker")
	hourPath := filepath.Join(work, "hour.mp3")
	if r.HourBytes, r.HourSecs, err = makeHour(audio, hourPath, 3600); err != nil {
		return err
	}
	rssWorker, err := startProc(work, "worker-rss", vars, o.bin, "worker")
	if err != nil {
		return err
	}
	procs = append(procs, rssWorker)
	time.Sleep(2 * time.Second) // joined its groups, idle
	r.WorkerIdleHWMkB, _ = vmHWM(rssWorker.cmd.Process.Pid)
	hourID, hourURL, err := createJob(client, apiAddr, jobKeys[len(jobKeys)-1])
	if err != nil {
		return err
	}
	f, err := os.Open(hourPath)
	if err != nil {
		return err
	}
	t0 := time.Now()
	err = put(client, hourURL, f, r.HourBytes)
	f.Close()
	if err != nil {
		return err
	}
	if _, err := waitTranscribed(ctx, dbURL, []string{hourID}, 120*time.Second); err != nil {
		return err
	}
	r.HourTook = time.Since(t0)
	if r.WorkerHWMkB, err = vmHWM(rssWorker.cmd.Process.Pid); err != nil {
		return err
	}
	rssWorker.stop()

	report := format(r)
	fmt.Println(report)
	if o.out != "" {
		return writeSection(o.out, report)
	}
	return nil
}

// drain starts a worker on the backlog of ids, waits for every job to be
// transcribed and its webhook delivered, and records the pipeline figures.
func drain(ctx context.Context, o options, r *results, work string, vars map[string]string, api *proc, procs *[]*proc, dbURL string, ids []string, hook *receiver) (*proc, error) {
	fmt.Fprintln(os.Stderr, "bench: pipeline drains the backlog")
	hook.reset()
	busy0, total0 := machineCPU()
	api0, pg0 := procCPU(api.cmd.Process.Pid), postgresCPU(ctx, dbURL)
	workerStart := time.Now()
	worker, err := startProc(work, "worker", vars, o.bin, "worker")
	if err != nil {
		return nil, err
	}
	*procs = append(*procs, worker)
	var profiling sync.WaitGroup
	if o.pprofDir != "" {
		for _, p := range []*proc{api, worker} {
			line, err := p.waitLog("pprof listening", 30*time.Second)
			if err != nil {
				return nil, err
			}
			addr := line["addr"].(string)
			profiling.Add(1)
			go func() {
				defer profiling.Done()
				u := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, o.pprofSecs)
				if err := fetchTo(u, filepath.Join(o.pprofDir, p.name+".cpu.pprof")); err != nil {
					fmt.Fprintln(os.Stderr, "bench: cpu profile of", p.name+":", err)
				}
			}()
		}
	}
	done, err := waitTranscribed(ctx, dbURL, ids, 180*time.Second)
	if err != nil {
		return nil, err
	}
	r.PipelineJobs = len(ids)
	r.PipelineWallSec = time.Since(workerStart).Seconds()
	r.PipelineSecs = spread(done)
	busy1, total1 := machineCPU()
	r.PipeBusy = float64(busy1-busy0) / float64(max(total1-total0, 1))
	r.PipeAPICPU, r.PipeWorkerCPU = procCPU(api.cmd.Process.Pid)-api0, procCPU(worker.cmd.Process.Pid)
	r.PipePostgresCPU = postgresCPU(ctx, dbURL) - pg0
	if err := hook.wait(len(ids), 30*time.Second); err != nil {
		return nil, err
	}
	r.Webhooks, r.WebhookSecs = hook.rate()
	profiling.Wait()
	if o.pprofDir != "" {
		for _, p := range []*proc{api, worker} {
			line, _ := p.waitLog("pprof listening", time.Second)
			u := fmt.Sprintf("http://%s/debug/pprof/allocs", line["addr"].(string))
			if err := fetchTo(u, filepath.Join(o.pprofDir, p.name+".allocs.pprof")); err != nil {
				fmt.Fprintln(os.Stderr, "bench: allocation profile of", p.name+":", err)
			}
		}
	}
	return worker, nil
}

// runPipeline is -only pipeline: create+upload and the backlog run, printed.
func runPipeline(ctx context.Context, o options, r *results, work string, vars map[string]string, api *proc, procs *[]*proc, client *http.Client, apiAddr, dbURL string, jobKeys []string, audio []byte, hook *receiver) error {
	fmt.Fprintf(os.Stderr, "bench: %d creates and uploads\n", o.jobs)
	api0, pg0 := procCPU(api.cmd.Process.Pid), postgresCPU(ctx, dbURL)
	start := time.Now()
	ids, _, err := submit(client, apiAddr, jobKeys, audio, o.jobs, 16, 0)
	if err != nil {
		return err
	}
	r.Uploads, r.UploadSecs = len(ids), time.Since(start).Seconds()
	upAPI, upPG := procCPU(api.cmd.Process.Pid)-api0, postgresCPU(ctx, dbURL)-pg0
	if _, err := drain(ctx, o, r, work, vars, api, procs, dbURL, ids, hook); err != nil {
		return err
	}
	fmt.Printf("create + upload: %d jobs in %.2f s = %.0f jobs/s; CPU s: api %.2f, postgres %.2f\n",
		r.Uploads, r.UploadSecs, float64(r.Uploads)/r.UploadSecs, upAPI, upPG)
	fmt.Printf("pipeline: %d jobs in %.2f s (first to last transcribed) = %.0f jobs/s; %.2f s from the worker's start = %.0f jobs/s\n",
		r.PipelineJobs, r.PipelineSecs, float64(r.PipelineJobs)/r.PipelineSecs, r.PipelineWallSec, float64(r.PipelineJobs)/r.PipelineWallSec)
	fmt.Printf("backlog CPU s: api %.2f, worker %.2f, postgres %.2f (machine busy %.0f%%); per job ms: api %.2f, worker %.2f, postgres %.2f\n",
		r.PipeAPICPU, r.PipeWorkerCPU, r.PipePostgresCPU, 100*r.PipeBusy,
		1000*r.PipeAPICPU/float64(r.PipelineJobs), 1000*r.PipeWorkerCPU/float64(r.PipelineJobs), 1000*r.PipePostgresCPU/float64(r.PipelineJobs))
	fmt.Printf("webhooks: %d at %.0f /s\n", r.Webhooks, float64(r.Webhooks)/r.WebhookSecs)
	time.Sleep(time.Second) // backends report their table counts within a second
	return tableCounts(ctx, dbURL, r.PipelineJobs)
}

// tableCounts prints, per table of the bench's schema, the rows inserted,
// updated and deleted and the scans run since it was made, per job: what
// the store did for each job, the pipeline's and the API's together.
func tableCounts(ctx context.Context, dbURL string, jobs int) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, `SELECT relname, n_tup_ins, n_tup_upd, n_tup_del, coalesce(seq_scan, 0), coalesce(idx_scan, 0)
		FROM pg_stat_user_tables WHERE schemaname = current_schema() AND n_tup_ins + n_tup_upd + n_tup_del + coalesce(idx_scan, 0) > 0
		ORDER BY relname`)
	fmt.Println("per job (all phases): table inserts updates deletes seq-scans index-scans")
	var name string
	var ins, upd, del, seq, idx int64
	_, err = pgx.ForEachRow(rows, []any{&name, &ins, &upd, &del, &seq, &idx}, func() error {
		n := float64(max(jobs, 1))
		fmt.Printf("  %-22s %5.2f %5.2f %5.2f %5.2f %5.2f\n", name, float64(ins)/n, float64(upd)/n, float64(del)/n, float64(seq)/n, float64(idx)/n)
		return nil
	})
	return err
}

func fetchTo(u, path string) error {
	res, err := http.Get(u)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return fmt.Errorf("%s: %s", u, res.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// benchApp is the application_name of the hyscribe processes' Postgres
// connections, by which postgresCPU finds their server processes.
const benchApp = "hyscribe-bench"

// postgresCPU sums the CPU seconds of the Postgres server processes serving
// the hyscribe processes' connections (application_name benchApp), so that
// other users of the same server are not counted. Postgres's own background
// processes (WAL writer, checkpointer) are not counted either, nor are
// connections closed meanwhile.
func postgresCPU(ctx context.Context, dbURL string) float64 {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return 0
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1`, benchApp)
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return 0
	}
	total := 0.0
	for _, pid := range pids {
		total += procCPU(int(pid))
	}
	return total
}

// newSchema creates a schema of its own on the server and returns a URL
// that uses it, and a function that drops it.
func newSchema(ctx context.Context, base string) (string, func(), error) {
	b := make([]byte, 6)
	rand.Read(b)
	schema := "bench_" + hex.EncodeToString(b)
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", nil, fmt.Errorf("postgres %s: %w", base, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		return "", nil, err
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if conn, err := pgx.Connect(ctx, base); err == nil {
			conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
			conn.Close(ctx)
		}
	}, nil
}

func runWrk(o options, addr, path, keysFile string) (wrkResult, error) {
	cmd := exec.Command(o.wrk, "-t2", "-c"+strconv.Itoa(o.conns), "-d"+strconv.Itoa(int(o.dur.Seconds()))+"s",
		"-s", o.lua, "http://"+addr)
	cmd.Env = append(os.Environ(), "POLL_PATH="+path, "KEYS_FILE="+keysFile)
	out, err := cmd.Output()
	if err != nil {
		return wrkResult{}, fmt.Errorf("wrk: %w", err)
	}
	var w wrkResult
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "{") {
			if err := json.Unmarshal([]byte(line), &w); err != nil {
				return wrkResult{}, fmt.Errorf("wrk output %q: %w", line, err)
			}
			return w, nil
		}
	}
	return wrkResult{}, fmt.Errorf("wrk printed no figures: %s", out)
}

func createJob(c *http.Client, api, key string) (docID, uploadURL string, err error) {
	req, _ := http.NewRequest("POST", "http://"+api+"/api/createTranscription", strings.NewReader(`{"type":"single_voice"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		return "", "", err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		return "", "", fmt.Errorf("create: %d %s", res.StatusCode, b)
	}
	var out struct{ DocID, UploadURL string }
	if err := json.Unmarshal(b, &out); err != nil {
		return "", "", err
	}
	return out.DocID, out.UploadURL, nil
}

func put(c *http.Client, u string, body io.Reader, n int64) error {
	req, _ := http.NewRequest("PUT", u, body)
	req.ContentLength = n
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		return fmt.Errorf("upload: %d %s", res.StatusCode, b)
	}
	return nil
}

// submit creates and uploads n jobs with conc workers, at most perSec a
// second when perSec > 0, and returns their IDs and upload times.
func submit(c *http.Client, api string, keys []string, audio []byte, n, conc, perSec int) ([]string, map[string]time.Time, error) {
	var (
		mu       sync.Mutex
		ids      []string
		uploaded = map[string]time.Time{}
		next     atomic.Int64
		firstErr error
		wg       sync.WaitGroup
	)
	start := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if perSec > 0 {
					time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(perSec))))
				}
				id, u, err := createJob(c, api, keys[i%len(keys)])
				if err == nil {
					err = put(c, u, bytes.NewReader(audio), int64(len(audio)))
				}
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				ids = append(ids, id)
				uploaded[id] = time.Now()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return ids, uploaded, firstErr
}

// waitTranscribed polls the jobs table until every job is transcribed and
// returns when each was (its last update).
func waitTranscribed(ctx context.Context, dbURL string, ids []string, within time.Duration) (map[string]time.Time, error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	deadline := time.Now().Add(within)
	for {
		rows, _ := conn.Query(ctx, `SELECT id, status, updated_at, error FROM jobs WHERE id = ANY($1)`, ids)
		done := map[string]time.Time{}
		counts := map[string]int{}
		var failed string
		for rows.Next() {
			var id, status, errText string
			var updated int64
			if err := rows.Scan(&id, &status, &updated, &errText); err != nil {
				return nil, err
			}
			counts[status]++
			if status == "transcribed" {
				done[id] = time.UnixMilli(updated)
			}
			if status == "failed" && failed == "" {
				failed = id + ": " + errText
			}
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if failed != "" {
			return nil, fmt.Errorf("job failed: %s", failed)
		}
		if len(done) == len(ids) {
			return done, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%d of %d jobs transcribed after %s: %v", len(done), len(ids), within, counts)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func spread(ts map[string]time.Time) float64 {
	var lo, hi time.Time
	for _, t := range ts {
		if lo.IsZero() || t.Before(lo) {
			lo = t
		}
		if t.After(hi) {
			hi = t
		}
	}
	return max(hi.Sub(lo).Seconds(), 0.001)
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[min(max(i-1, 0), len(sorted)-1)]
}

// machineCPU returns the busy and total jiffies of all CPUs (/proc/stat).
func machineCPU() (busy, total int64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	for i, f := range strings.Fields(line)[1:] {
		n, _ := strconv.ParseInt(f, 10, 64)
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, total
}

// procCPU is the CPU time pid has used, in seconds (/proc/<pid>/stat).
func procCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return float64(u+s) / 100 // USER_HZ
}

// vmHWM is the peak resident set of pid, from /proc/<pid>/status, in kB.
func vmHWM(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no VmHWM in /proc status")
}

// proc is a process the bench started; its output goes to a log file.
type proc struct {
	name, log string
	cmd       *exec.Cmd
	done      chan struct{}
}

func startProc(dir, name string, vars map[string]string, bin string, args ...string) (*proc, error) {
	p := &proc{name: name, log: filepath.Join(dir, name+".log"), done: make(chan struct{})}
	f, err := os.Create(p.log)
	if err != nil {
		return nil, err
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range vars {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout, p.cmd.Stderr = f, f
	if err := p.cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() { p.cmd.Wait(); f.Close(); close(p.done) }()
	return p, nil
}

func (p *proc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

func (p *proc) waitLog(msg string, within time.Duration) (map[string]any, error) {
	return p.waitLine(func(m map[string]any) bool { return m["msg"] == msg }, within)
}

func (p *proc) waitLine(match func(map[string]any) bool, within time.Duration) (map[string]any, error) {
	deadline := time.Now().Add(within)
	for {
		if b, err := os.ReadFile(p.log); err == nil {
			sc := bufio.NewScanner(bytes.NewReader(b))
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				var m map[string]any
				if json.Unmarshal(sc.Bytes(), &m) == nil && match(m) {
					return m, nil
				}
			}
		}
		select {
		case <-p.done:
			b, _ := os.ReadFile(p.log)
			return nil, fmt.Errorf("%s exited: %s", p.name, tail(b))
		default:
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(p.log)
			return nil, fmt.Errorf("%s: no expected log line within %s: %s", p.name, within, tail(b))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// engine is an instant OpenAI-compatible speech engine: it reads the upload
// and answers one fixed Armenian segment at once.
type engine struct {
	srv *http.Server
	url string
}

func startEngine() (*engine, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	answer := []byte(`{"task":"transcribe","language":"hy","duration":1.0,"text":"Բարև ձեզ, ես զանգում եմ պատվերի մասին։","segments":[{"id":0,"start":0,"end":1,"text":"Բարև ձեզ, ես զանգում եմ պատվերի մասին։"}]}`)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/audio/transcriptions", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	})
	e := &engine{srv: &http.Server{Handler: mux}, url: "http://" + ln.Addr().String() + "/v1"}
	go e.srv.Serve(ln)
	return e, nil
}

func (e *engine) Close() { e.srv.Close() }

// receiver counts webhook deliveries and when they came.
type receiver struct {
	srv   *httptestServer
	mu    sync.Mutex
	times []time.Time
}

type httptestServer struct {
	*http.Server
	URL string
}

func startReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		r.mu.Lock()
		r.times = append(r.times, time.Now())
		r.mu.Unlock()
	})}
	r.srv = &httptestServer{Server: srv, URL: "http://" + ln.Addr().String() + "/hook"}
	go srv.Serve(ln)
	return r, nil
}

func (r *receiver) reset() {
	r.mu.Lock()
	r.times = nil
	r.mu.Unlock()
}

func (r *receiver) wait(n int, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		r.mu.Lock()
		got := len(r.times)
		r.mu.Unlock()
		if got >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d webhooks received", got, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rate is the deliveries received and the seconds between the first and
// the last.
func (r *receiver) rate() (int, float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.times) < 2 {
		return len(r.times), 0.001
	}
	lo, hi := r.times[0], r.times[0]
	for _, t := range r.times {
		lo, hi = minTime(lo, t), maxTime(hi, t)
	}
	return len(r.times), max(hi.Sub(lo).Seconds(), 0.001)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
