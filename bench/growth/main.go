// Command growth measures what the API's everyday operations cost as the
// store grows (issue 35, "cost flat in the size of the store"): for each
// store (Postgres, SQLite) and each size it seeds N jobs over 1,000
// accounts in bulk (adapters/storeseed: COPY or multi-row INSERTs into the
// real schema, once; a seeded database is reused), then runs the service
// in this process and measures
//
//   - startup: `serve` (API and worker) from Start until /readyz answers 200;
//   - first touch: polls of a key and a job this process has not seen (its
//     key cache misses, the job is read), 8 clients, polls a second, the
//     median of three rounds, each through a new process;
//   - poll: getTranscription with warm keys, 8 clients, p50 and p99;
//   - list: listTranscriptions' first page of 10 and a page with a cursor
//     90 % into the account's jobs, one client, p50;
//   - create+upload: createTranscription and the upload PUT of a 22 KiB
//     MP3, 4 clients, jobs a second.
//
// Each size's figures are printed beside the first size's as a ratio; the
// markdown table goes to -out's section (docs/performance.md) when set.
// `make bench` runs it at 10,000 and 1,000,000 jobs on Postgres and at
// 10,000 and 300,000 on SQLite.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/storeseed"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
	"github.com/hyscribe/hyscribe/domain"
)

type options struct {
	pgURL      string // server URL; each size gets database <pgBase>_<size>
	pgBase     string
	pgSizes    []int
	sqlSizes   []int
	sqliteDir  string
	audio      string
	drop       bool
	out        string
	firstTouch int
	startups   int
	interleave bool
}

func main() {
	var o options
	var pgSizes, sqlSizes string
	flag.StringVar(&o.pgURL, "pg", os.Getenv("HYSCRIBE_TEST_DATABASE_URL"), "Postgres server URL (its database is replaced by one per size); empty: no Postgres")
	flag.StringVar(&o.pgBase, "pgdb", "hyscribe_growth", "prefix of the seeded databases' names")
	flag.StringVar(&pgSizes, "pg-sizes", "10000,1000000", "job counts seeded on Postgres, the first the baseline")
	flag.StringVar(&sqlSizes, "sqlite-sizes", "10000,300000", "job counts seeded on SQLite, the first the baseline; empty: none")
	flag.StringVar(&o.sqliteDir, "sqlite-dir", filepath.Join(os.TempDir(), "hyscribe-growth"), "where the seeded SQLite files are kept")
	flag.StringVar(&o.audio, "audio", "testdata/audio/speech-mono-16k.mp3", "the recording create+upload sends")
	flag.BoolVar(&o.drop, "drop", false, "drop the seeded databases and files at the end")
	flag.StringVar(&o.out, "out", "", "markdown file whose bench:growth section gets the table (docs/performance.md); empty: stdout only")
	flag.IntVar(&o.firstTouch, "first-touch", 2000, "polls of unseen keys and jobs per run")
	flag.IntVar(&o.startups, "startups", 3, "starts measured per size (the median is kept)")
	flag.BoolVar(&o.interleave, "interleave", false, "measure only first touches of the first two Postgres sizes, side by side in alternating rounds")
	flag.Parse()
	o.pgSizes, o.sqlSizes = sizes(pgSizes), sizes(sqlSizes)
	if o.interleave {
		if err := interleaved(context.Background(), o, o.pgSizes); err != nil {
			fmt.Fprintln(os.Stderr, "growth:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "growth:", err)
		os.Exit(1)
	}
}

func sizes(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// figures are one size's measurements.
type figures struct {
	store            string
	jobs             int
	seeded           time.Duration // 0: reused
	startup          time.Duration // until /readyz answers 200
	quiet            time.Duration // until the store is quiet too (Postgres)
	firstTouch       float64       // polls/s
	pollP50, pollP99 time.Duration
	pollRate         float64
	listFirst        time.Duration // p50
	listDeep         time.Duration // p50
	create           float64       // jobs/s
}

func run(ctx context.Context, o options) error {
	audio, err := os.ReadFile(o.audio)
	if err != nil {
		return err
	}
	var all []figures
	if o.pgURL != "" {
		for _, n := range o.pgSizes {
			u, err := url.Parse(o.pgURL)
			if err != nil {
				return err
			}
			u.Path = "/" + o.pgBase + "_" + strconv.Itoa(n)
			dbURL := u.String()
			f, err := measure(ctx, o, audio, "postgres", n, dbURL, "")
			if err != nil {
				return fmt.Errorf("postgres %d jobs: %w", n, err)
			}
			all = append(all, f)
			if o.drop {
				if err := storeseed.DropPostgres(ctx, dbURL); err != nil {
					return err
				}
			}
		}
	}
	for _, n := range o.sqlSizes {
		dir := filepath.Join(o.sqliteDir, "sqlite-"+strconv.Itoa(n))
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return err
		}
		f, err := measure(ctx, o, audio, "sqlite", n, "", dir)
		if err != nil {
			return fmt.Errorf("sqlite %d jobs: %w", n, err)
		}
		all = append(all, f)
		if o.drop {
			_ = os.RemoveAll(dir)
		}
	}
	table := report(all)
	fmt.Print(table)
	if o.out != "" {
		return writeSection(o.out, table)
	}
	return nil
}

// measure seeds (or reuses) one store of n jobs and measures it.
func measure(ctx context.Context, o options, audio []byte, store string, n int, dbURL, dir string) (figures, error) {
	spec := storeseed.Spec{Jobs: n}
	f := figures{store: store, jobs: n}
	var err error
	if dir == "" {
		// Postgres: the processes' data dir (embedded Kafka, uploads) is
		// the run's own, removed after it.
		if dir, err = os.MkdirTemp("", "growth-"); err != nil {
			return f, err
		}
		defer os.RemoveAll(dir)
	}
	reset := func() error {
		if store == "postgres" {
			return storeseed.ResetPostgres(ctx, dbURL, spec)
		}
		return storeseed.ResetSQLite(ctx, filepath.Join(dir, "hyscribe.db"), spec)
	}
	fmt.Fprintf(os.Stderr, "growth: %s, %d jobs: seeding (reused when already there)\n", store, n)
	if store == "postgres" {
		f.seeded, err = storeseed.Postgres(ctx, dbURL, spec)
	} else {
		f.seeded, err = storeseed.SQLite(ctx, filepath.Join(dir, "hyscribe.db"), spec)
	}
	if err != nil {
		return f, err
	}
	if f.seeded > 0 {
		fmt.Fprintf(os.Stderr, "growth: seeded %d jobs in %s\n", n, f.seeded.Round(time.Second))
	}
	if err := reset(); err != nil {
		return f, err
	}
	vars := map[string]string{
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_SHUTDOWN_GRACE":      "1s",
		"HYSCRIBE_LOG_LEVEL":           "error",
		"DATABASE_URL":                 dbURL,
	}

	// Startup: serve (both roles), the median of a few.
	var starts, quiets []time.Duration
	for i := 0; i < o.startups; i++ {
		ready, quiet, err := startup(ctx, vars, dir)
		if err != nil {
			return f, err
		}
		starts, quiets = append(starts, ready), append(quiets, quiet)
	}
	slices.Sort(starts)
	slices.Sort(quiets)
	f.startup, f.quiet = starts[len(starts)/2], quiets[len(quiets)/2]
	fmt.Fprintf(os.Stderr, "growth: startup %v, store quiet %v\n", starts, quiets)

	rng := rand.New(rand.NewPCG(uint64(n), uint64(time.Now().UnixNano()))) //nolint:gosec // which jobs the benchmark polls, not a secret
	job := func(account int) domain.DocID {
		per := n / 1000
		return storeseed.JobID(rng.IntN(max(per, 1))*1000 + account)
	}

	// First touch: keys 0 and 1 of each account, each with a random job of
	// its account, through a new API process (an empty key cache) each
	// round; the median of three rounds. The rest through the last one.
	var svc *cli.Service
	var base string
	var touches []float64
	for round := 0; round < 3; round++ {
		if svc != nil {
			stop(svc)
		}
		if svc, base, err = startAPI(ctx, vars, dir); err != nil {
			return f, fmt.Errorf("first touch, round %d: start: %w", round, err)
		}
		var reqs []pollReq
		for i := 0; i < o.firstTouch; i++ {
			a := i % 1000
			raw, _ := storeseed.Key(a, (i/1000)%2)
			reqs = append(reqs, pollReq{raw, job(a)})
		}
		start := time.Now()
		if _, err := polls(base, reqs, 8); err != nil {
			return f, fmt.Errorf("first touch, round %d: %w", round, err)
		}
		touches = append(touches, float64(len(reqs))/time.Since(start).Seconds())
	}
	slices.Sort(touches)
	f.firstTouch = touches[1]
	fmt.Fprintf(os.Stderr, "growth: first touch %.0f polls/s\n", touches)

	// Warm polls: keys 2-5, each its job; one pass to warm, four measured.
	var reqs []pollReq
	for i := 0; i < 4000; i++ {
		a := i % 1000
		raw, _ := storeseed.Key(a, 2+i/1000)
		reqs = append(reqs, pollReq{raw, job(a)})
	}
	if _, err := polls(base, reqs, 8); err != nil {
		return f, err
	}
	var measured []pollReq
	for r := 0; r < 4; r++ {
		measured = append(measured, reqs...)
	}
	start := time.Now()
	lat, err := polls(base, measured, 8)
	if err != nil {
		return f, err
	}
	f.pollRate = float64(len(measured)) / time.Since(start).Seconds()
	f.pollP50, f.pollP99 = quantile(lat, 0.5), quantile(lat, 0.99)

	// List: first page and a page 90 % in, 200 of each over 200 accounts.
	var first, deep []time.Duration
	per := n / 1000
	for i := 0; i < 200; i++ {
		a := i * 5 % 1000
		raw, _ := storeseed.Key(a, 6)
		d, err := list(base, raw, "")
		if err != nil {
			return f, err
		}
		first = append(first, d)
		at := max(per-1-per*9/10, 1) * 1000 // the account's job 90 % back from the newest (keeping one older)
		cursor := domain.CursorAfter(storeseed.JobCreated(at+a), storeseed.JobID(at+a)).String()
		raw, _ = storeseed.Key(a, 7)
		if d, err = list(base, raw, cursor); err != nil {
			return f, err
		}
		deep = append(deep, d)
	}
	f.listFirst, f.listDeep = quantile(first, 0.5), quantile(deep, 0.5)

	// Create and upload: 400 jobs, 4 clients, keys 8 and 9.
	const creates = 400
	start = time.Now()
	if err := createUploads(base, audio, 0, creates, 4); err != nil {
		return f, err
	}
	f.create = creates / time.Since(start).Seconds()
	fmt.Fprintf(os.Stderr, "growth: %+v\n", f)
	stop(svc)
	return f, reset()
}

func config(vars map[string]string, dir string) (cli.Config, error) {
	v := map[string]string{"HYSCRIBE_DATA_DIR": dir}
	for k, x := range vars {
		v[k] = x
	}
	return cli.LoadConfig(func(k string) string { return v[k] })
}

// startup starts serve and waits for /readyz, then (on Postgres) for the
// store to be quiet: no statement of the service's running for 60 ms, so
// that work a worker starts with (the first sweeps) counts; it stops it
// again.
func startup(ctx context.Context, vars map[string]string, dir string) (ready, quiet time.Duration, err error) {
	const app = "hyscribe_growth_start"
	v := map[string]string{}
	for k, x := range vars {
		v[k] = x
	}
	var conn *pgx.Conn
	if u := v["DATABASE_URL"]; u != "" {
		if conn, err = pgx.Connect(ctx, u); err != nil {
			return 0, 0, err
		}
		defer conn.Close(ctx)
		pu, err := url.Parse(u)
		if err != nil {
			return 0, 0, err
		}
		q := pu.Query()
		q.Set("application_name", app)
		pu.RawQuery = q.Encode()
		v["DATABASE_URL"] = pu.String()
	}
	cfg, err := config(v, dir)
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	svc, err := cli.Start(ctx, cfg, cli.RoleAPI|cli.RoleWorker, nil, io.Discard)
	if err != nil {
		return 0, 0, err
	}
	defer svc.Stop()
	for ready == 0 {
		resp, err := http.Get("http://" + svc.HTTPAddr() + "/readyz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				ready = time.Since(start)
				break
			}
		}
		if time.Since(start) > time.Minute {
			return 0, 0, fmt.Errorf("not ready after a minute")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if conn == nil {
		return ready, ready, nil
	}
	for idle := 0; idle < 3; {
		var active int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND state = 'active'`, app).Scan(&active); err != nil {
			return 0, 0, err
		}
		if active == 0 {
			idle++
		} else {
			idle = 0
		}
		if time.Since(start) > time.Minute {
			return 0, 0, fmt.Errorf("the store still busy a minute after the start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return ready, time.Since(start) - 60*time.Millisecond, nil
}

func startAPI(ctx context.Context, vars map[string]string, dir string) (*cli.Service, string, error) {
	cfg, err := config(vars, dir)
	if err != nil {
		return nil, "", err
	}
	svc, err := cli.Start(ctx, cfg, cli.RoleAPI, nil, io.Discard)
	if err != nil {
		return nil, "", err
	}
	return svc, "http://" + svc.HTTPAddr(), nil
}

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 30 * time.Second}

type pollReq struct {
	key string
	doc domain.DocID
}

// polls sends reqs over clients connections and returns each's latency;
// any answer but 200 is an error.
func polls(base string, reqs []pollReq, clients int) ([]time.Duration, error) {
	lat := make([]time.Duration, len(reqs))
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr atomic.Value
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(reqs) || firstErr.Load() != nil {
					return
				}
				r := reqs[i]
				start := time.Now()
				code, body, err := get(base+"/api/getTranscription?docId="+url.QueryEscape(string(r.doc)), r.key)
				lat[i] = time.Since(start)
				if err == nil && code != http.StatusOK {
					err = fmt.Errorf("poll %s: %d %s", r.doc, code, body)
				}
				if err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		return nil, err
	}
	return lat, nil
}

// listLimit is the list's page size: 10, the jobs an account has at 10,000
// jobs over 1,000 accounts, so that every size's first page is full.
const listLimit = 10

func list(base, key, cursor string) (time.Duration, error) {
	q := "/api/listTranscriptions?limit=" + strconv.Itoa(listLimit)
	if cursor != "" {
		q += "&cursor=" + url.QueryEscape(cursor)
	}
	start := time.Now()
	code, body, err := get(base+q, key)
	d := time.Since(start)
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("list: %d %s", code, body)
	}
	if err == nil {
		var page struct{ Items []json.RawMessage }
		if err = json.Unmarshal(body, &page); err == nil && len(page.Items) == 0 {
			err = fmt.Errorf("list %q: an empty page", cursor)
		}
	}
	return d, err
}

func get(u, key string) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

func createUpload(base, key string, audio []byte) error {
	req, err := http.NewRequest(http.MethodPost, base+"/api/createTranscription", strings.NewReader(`{"type":"single_voice"}`))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("create: %d %s", resp.StatusCode, body)
	}
	var created struct{ UploadURL string }
	if err := json.Unmarshal(body, &created); err != nil {
		return err
	}
	put, err := http.NewRequest(http.MethodPut, created.UploadURL, bytes.NewReader(audio))
	if err != nil {
		return err
	}
	put.Header.Set("Content-Type", "audio/mpeg")
	resp, err = client.Do(put)
	if err != nil {
		return err
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("upload: %d %s", resp.StatusCode, body)
	}
	return nil
}

func quantile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*q))]
}

// interleaved measures first touches of two stores side by side: one API
// process on each, the key cache off (HYSCRIBE_KEY_CACHE_TTL=0, so every
// poll reads its key, as a first touch does), rounds of 500 polls of
// random jobs alternating ABBA, so that the machine's changing load falls
// on both alike. It prints each store's median polls a second.
func interleaved(ctx context.Context, o options, sizes []int) error {
	type side struct {
		n    int
		svc  *cli.Service
		base string
		rate []float64
	}
	var sides []*side
	work, err := os.MkdirTemp("", "growth-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	for _, n := range sizes[:2] {
		u, err := url.Parse(o.pgURL)
		if err != nil {
			return err
		}
		u.Path = "/" + o.pgBase + "_" + strconv.Itoa(n)
		if _, err := storeseed.Postgres(ctx, u.String(), storeseed.Spec{Jobs: n}); err != nil {
			return err
		}
		if err := storeseed.ResetPostgres(ctx, u.String(), storeseed.Spec{Jobs: n}); err != nil {
			return err
		}
		svc, base, err := startAPI(ctx, map[string]string{
			"HYSCRIBE_HTTP_ADDR": "127.0.0.1:0", "HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
			"HYSCRIBE_SHUTDOWN_GRACE": "1s", "HYSCRIBE_LOG_LEVEL": "error", "HYSCRIBE_KEY_CACHE_TTL": "0s",
			"DATABASE_URL": u.String(),
		}, filepath.Join(work, strconv.Itoa(n)))
		if err != nil {
			return err
		}
		sides = append(sides, &side{n: n, svc: svc, base: base})
	}
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano()))) //nolint:gosec // which jobs the benchmark polls, not a secret
	for round := 0; round < 12; round++ {
		order := []int{0, 1}
		if round%2 == 1 {
			order = []int{1, 0}
		}
		for _, i := range order {
			s := sides[i]
			var reqs []pollReq
			for j := 0; j < 500; j++ {
				k := (round*500 + j) % 2000
				a := k % 1000
				raw, _ := storeseed.Key(a, k/1000)
				reqs = append(reqs, pollReq{raw, storeseed.JobID(rng.IntN(max(s.n/1000, 1))*1000 + a)})
			}
			start := time.Now()
			if _, err := polls(s.base, reqs, 8); err != nil {
				return err
			}
			s.rate = append(s.rate, float64(len(reqs))/time.Since(start).Seconds())
		}
	}
	// Create and upload, the same way: rounds of 100 through 4 clients.
	audio, err := os.ReadFile(o.audio)
	if err != nil {
		return err
	}
	creates := make([][]float64, len(sides))
	for round := 0; round < 8; round++ {
		order := []int{0, 1}
		if round%2 == 1 {
			order = []int{1, 0}
		}
		for _, i := range order {
			start := time.Now()
			if err := createUploads(sides[i].base, audio, round*100, 100, 4); err != nil {
				return err
			}
			creates[i] = append(creates[i], 100/time.Since(start).Seconds())
		}
	}
	for i, s := range sides {
		slices.Sort(s.rate)
		slices.Sort(creates[i])
		fmt.Printf("postgres, %d jobs: first touch (key read, job read) %.0f polls/s, median of %d rounds (%.0f-%.0f); create+upload %.0f jobs/s, median of %d rounds (%.0f-%.0f)\n",
			s.n, s.rate[len(s.rate)/2], len(s.rate), s.rate[0], s.rate[len(s.rate)-1],
			creates[i][len(creates[i])/2], len(creates[i]), creates[i][0], creates[i][len(creates[i])-1])
		u, _ := url.Parse(o.pgURL)
		u.Path = "/" + o.pgBase + "_" + strconv.Itoa(s.n)
		stop(s.svc)
		if err := storeseed.ResetPostgres(ctx, u.String(), storeseed.Spec{Jobs: s.n}); err != nil {
			return err
		}
	}
	return nil
}

// createUploads creates and uploads n jobs from the from-th on, over
// clients connections, with keys 8 and 9 of the accounts in turn.
func createUploads(base string, audio []byte, from, n, clients int) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := from + int(next.Add(1)) - 1
				if i >= from+n {
					return
				}
				raw, _ := storeseed.Key(i%1000, 8+(i/1000)%2)
				if err := createUpload(base, raw, audio); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// stop stops a service the benchmark started. What it could not finish in
// its grace (the outbox's last records, with no consumer running) is the
// benchmark's leftovers, which the next reset removes: reported, not fatal.
func stop(svc *cli.Service) {
	if err := svc.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "growth: stopping the service:", err)
	}
}
