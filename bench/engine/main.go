// Command engine is the speech-engine part of `make bench` (bench/engine.sh):
// it runs `hyscribe serve` (embedded defaults: SQLite, embedded Kafka)
// against a stand-in engine that behaves like a GPU server — it works on
// -capacity requests at once, queues the rest first come first served, and
// spends the audio's seconds × -rtf on each — and prints issue 28's three
// figures:
//
//  1. one 60-minute single-voice recording, upload → transcribed, over the
//     engine-bound limit (audio × RTF / capacity);
//  2. the engine's busy share while 40 two-minute recordings from 4
//     accounts wait (and their makespan over the ideal);
//  3. another account's one-minute calls, one every 2 s, while the 60-minute
//     recording is recognised: their p95 upload → transcribed over the p95
//     of the same calls on an idle engine.
//
// Times are the service's own: a job's transcribed time is its last update
// in the SQLite store, its start the moment its upload returned.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hyscribe/hyscribe/adapters/mp3"
	"github.com/hyscribe/hyscribe/adapters/sqlite"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

type options struct {
	bin, fixture, out, label string
	capacity, calls, burst   int
	rtf, long                float64
	concurrency              int
}

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "", "the hyscribe binary")
	flag.StringVar(&o.fixture, "fixture", "testdata/audio/speech-mono-16k.mp3", "speech the recordings repeat (MPEG-2 16 kHz mono, 144-byte frames)")
	flag.IntVar(&o.capacity, "capacity", 4, "requests the stand-in engine works on at once (CAPACITY)")
	flag.Float64Var(&o.rtf, "rtf", 0.05, "engine seconds per second of audio (RTF)")
	flag.IntVar(&o.concurrency, "concurrency", 0, "HYSCRIBE_ASR_CONCURRENCY of the service (0: -capacity)")
	flag.Float64Var(&o.long, "long", 3600, "seconds of the long recording of figures 1 and 3")
	flag.IntVar(&o.calls, "calls", 20, "one-minute calls of figure 3 (one every 2 s)")
	flag.IntVar(&o.burst, "burst", 40, "two-minute recordings of figure 2 (from 4 accounts)")
	flag.StringVar(&o.out, "out", "", "file whose engine section is rewritten ('' to print only)")
	flag.StringVar(&o.label, "label", "", "what was measured (a commit), for the report")
	flag.Parse()
	if o.concurrency == 0 {
		o.concurrency = o.capacity
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench engine:", err)
		os.Exit(1)
	}
}

type results struct {
	Long, LongBound            float64 // seconds
	Busy, Makespan, Ideal      float64
	IdleP95, LoadedP95         float64
	LongPieces, LongSlotsUsed  int
	CallsIdle, CallsLoaded     []float64
	BurstJobs, BurstRecordings int
}

func run(o options) error {
	if o.bin == "" {
		return fmt.Errorf("-bin is required")
	}
	fixture, err := os.ReadFile(o.fixture)
	if err != nil {
		return err
	}
	eng, err := startEngine(o.capacity, o.rtf)
	if err != nil {
		return err
	}
	defer eng.Close()
	work, err := os.MkdirTemp("", "hyscribe-bench-engine-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	svc, err := startServe(o, work, eng.url)
	if err != nil {
		return err
	}
	defer svc.stop()
	// Stopped early, the bench leaves no service behind.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		svc.stop()
		os.RemoveAll(work)
		os.Exit(1)
	}()

	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(work, "data", "hyscribe.db"))
	if err != nil {
		return err
	}
	defer store.Close()
	var keys []string
	for i := range 6 {
		_, key, err := app.NewCreateAccount(store, ports.SystemClock{}).Handle(ctx, fmt.Sprint("bench-", i), domain.PlanBusiness, 1e9)
		if err != nil {
			return err
		}
		keys = append(keys, key)
	}
	b := &bench{api: svc.addr, store: store, client: &http.Client{Timeout: 5 * time.Minute}}
	hour, minute, twoMinutes := speech(fixture, o.long), speech(fixture, 60), speech(fixture, 120)
	var r results

	// 3a. The calls on an idle engine.
	fmt.Fprintf(os.Stderr, "bench engine: %d one-minute calls on an idle engine\n", o.calls)
	if r.CallsIdle, err = b.calls(keys[5], minute, o.calls); err != nil {
		return err
	}
	// 1. The hour alone.
	fmt.Fprintln(os.Stderr, "bench engine: one 60-minute recording alone")
	eng.reset()
	id, up, err := b.submit(keys[0], hour)
	if err != nil {
		return err
	}
	done, err := b.wait([]string{id}, 10*time.Minute)
	if err != nil {
		return err
	}
	r.Long = done[id].Sub(up).Seconds()
	r.LongBound = audioSeconds(hour) * o.rtf / float64(o.capacity)
	r.LongPieces, r.LongSlotsUsed = eng.stats()
	fmt.Fprintf(os.Stderr, "bench engine: the hour took %.1f s, %.2f× the engine-bound %.1f s (%d requests, at most %d at once)\n",
		r.Long, r.Long/r.LongBound, r.LongBound, r.LongPieces, r.LongSlotsUsed)

	// 3b. The calls while the hour is recognised.
	fmt.Fprintf(os.Stderr, "bench engine: %d one-minute calls while a 60-minute recording is recognised\n", o.calls)
	eng.reset()
	id, _, err = b.submit(keys[1], hour)
	if err != nil {
		return err
	}
	if err := eng.waitRequests(1, time.Minute); err != nil {
		return err
	}
	if r.CallsLoaded, err = b.calls(keys[5], minute, o.calls); err != nil {
		return err
	}
	if _, err := b.wait([]string{id}, 10*time.Minute); err != nil {
		return err
	}
	r.IdleP95, r.LoadedP95 = p95(r.CallsIdle), p95(r.CallsLoaded)
	fmt.Fprintf(os.Stderr, "bench engine: calls p95 %.2f s beside the hour, %.2f s idle: %.2f×\n", r.LoadedP95, r.IdleP95, r.LoadedP95/r.IdleP95)

	// 2. The burst from 4 accounts.
	fmt.Fprintf(os.Stderr, "bench engine: %d two-minute recordings from 4 accounts at once\n", o.burst)
	eng.reset()
	var ids []string
	var mu sync.Mutex
	var first time.Time
	var wg sync.WaitGroup
	errs := make(chan error, o.burst)
	uploads := make(chan struct{}, 8) // the upload host takes 16 at once from one address
	for i := range o.burst {
		wg.Go(func() {
			uploads <- struct{}{}
			id, up, err := b.submit(keys[i%4], twoMinutes)
			<-uploads
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			ids = append(ids, id)
			if first.IsZero() || up.Before(first) {
				first = up
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	done, err = b.wait(ids, 10*time.Minute)
	if err != nil {
		return err
	}
	var last time.Time
	for _, t := range done {
		if t.After(last) {
			last = t
		}
	}
	r.Busy = eng.busy()
	r.Makespan = last.Sub(first).Seconds()
	r.Ideal = float64(o.burst) * audioSeconds(twoMinutes) * o.rtf / float64(o.capacity)
	r.BurstJobs = o.burst
	r.BurstRecordings, _ = eng.stats()

	text := report(o, r)
	fmt.Print(text)
	if o.out != "" {
		return writeSection(o.out, text)
	}
	return nil
}

// bench talks to the service.
type bench struct {
	api    string
	store  *sqlite.Store
	client *http.Client
}

// submit creates a single-voice job and uploads audio; it returns the job
// and when its upload returned.
func (b *bench) submit(key string, audio []byte) (string, time.Time, error) {
	req, _ := http.NewRequest("POST", "http://"+b.api+"/api/createTranscription", strings.NewReader(`{"type":"single_voice"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := b.client.Do(req)
	if err != nil {
		return "", time.Time{}, err
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		return "", time.Time{}, fmt.Errorf("create: %d %s", res.StatusCode, body)
	}
	var out struct{ DocID, UploadURL string }
	if err := json.Unmarshal(body, &out); err != nil {
		return "", time.Time{}, err
	}
	req, _ = http.NewRequest("PUT", out.UploadURL, bytes.NewReader(audio))
	res, err = b.client.Do(req)
	if err != nil {
		return "", time.Time{}, err
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		return "", time.Time{}, fmt.Errorf("upload: %d %s", res.StatusCode, body)
	}
	return out.DocID, time.Now(), nil
}

// wait returns when every job is transcribed, with when it was.
func (b *bench) wait(ids []string, within time.Duration) (map[string]time.Time, error) {
	deadline := time.Now().Add(within)
	done := map[string]time.Time{}
	for len(done) < len(ids) {
		for _, id := range ids {
			if _, ok := done[id]; ok {
				continue
			}
			j, err := b.store.GetJob(context.Background(), domain.DocID(id))
			if err != nil {
				return nil, err
			}
			switch j.Status {
			case domain.StatusTranscribed:
				done[id] = j.UpdatedAt
			case domain.StatusFailed:
				return nil, fmt.Errorf("job %s failed: %s", id, j.Error)
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%d of %d jobs transcribed after %s", len(done), len(ids), within)
		}
		time.Sleep(50 * time.Millisecond) // the times are the store's, not the poll's
	}
	return done, nil
}

// calls sends n calls, one every 2 s, and returns their upload →
// transcribed seconds.
func (b *bench) calls(key string, audio []byte, n int) ([]float64, error) {
	var mu sync.Mutex
	var out []float64
	var firstErr error
	var wg sync.WaitGroup
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for i := range n {
		if i > 0 {
			<-tick.C
		}
		wg.Go(func() {
			id, up, err := b.submit(key, audio)
			if err == nil {
				var done map[string]time.Time
				if done, err = b.wait([]string{id}, 10*time.Minute); err == nil {
					mu.Lock()
					out = append(out, done[id].Sub(up).Seconds())
					mu.Unlock()
					return
				}
			}
			mu.Lock()
			firstErr = err
			mu.Unlock()
		})
	}
	wg.Wait()
	return out, firstErr
}

func p95(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, (len(s)*95+99)/100-1)]
}

// speech is an MP3 of at least seconds: the fixture again and again, each
// time followed by 0.72 s of digital silence (20 frames coding nothing), as
// adapters/mp3/mp3test makes it.
func speech(fixture []byte, seconds float64) []byte {
	const frame, silent = 144, 20
	period := slices.Clone(fixture)
	blank := make([]byte, frame)
	copy(blank, fixture[:4])
	for range silent {
		period = append(period, blank...)
	}
	periodSec := float64(len(period)/frame) * 0.036
	n := int(seconds/periodSec) + 1
	return bytes.Repeat(period, n)
}

func audioSeconds(b []byte) float64 {
	info, err := mp3.Prober{}.Probe(context.Background(), bytes.NewReader(b))
	if err != nil {
		return 0
	}
	return info.Duration
}

// serve is the hyscribe process.
type serve struct {
	cmd  *exec.Cmd
	addr string
	done chan struct{}
}

func startServe(o options, work, engineURL string) (*serve, error) {
	logPath := filepath.Join(work, "serve.log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(o.bin, "serve")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"HYSCRIBE_DATA_DIR=" + filepath.Join(work, "data"),
		"HYSCRIBE_HTTP_ADDR=127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR=127.0.0.1:0",
		"HYSCRIBE_ASR_URL=" + engineURL,
		fmt.Sprint("HYSCRIBE_ASR_CONCURRENCY=", o.concurrency),
		"HYSCRIBE_SHUTDOWN_GRACE=2s",
		"HYSCRIBE_LOG_LEVEL=info",
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, err
	}
	s := &serve{cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); f.Close(); close(s.done) }()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		b, _ := os.ReadFile(logPath)
		for _, line := range bytes.Split(b, []byte("\n")) {
			var m map[string]any
			if json.Unmarshal(line, &m) == nil && m["msg"] == "http listening" {
				s.addr, _ = m["addr"].(string)
			}
		}
		if s.addr != "" {
			return s, nil
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("serve exited: %s", b[max(0, len(b)-2000):])
		default:
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("serve not listening after 2 minutes")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *serve) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// writeSection replaces the engine section of the file (appending it the
// first time).
func writeSection(path, text string) error {
	const begin, end = "<!-- bench:engine begin (written by make bench) -->\n", "<!-- bench:engine end -->\n"
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(old)
	section := begin + text + end
	if i, j := strings.Index(s, begin), strings.Index(s, end); i >= 0 && j > i {
		s = s[:i] + section + s[j+len(end):]
	} else {
		s = strings.TrimRight(s, "\n") + "\n\n" + section
	}
	return os.WriteFile(path, []byte(s), 0o644)
}

func report(o options, r results) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**missed**"
	}
	busyGoal := r.Busy >= 0.90
	p("## Speech engine: time to transcript (`make bench`, `bench/engine`)\n\n")
	p("Measured %s on this machine (2 CPUs, shared with other work) with `hyscribe serve` (SQLite, embedded Kafka)%s and the stand-in engine of `bench/engine`: CAPACITY %d requests at once, the rest queued first come first served, audio seconds × RTF %.2f each; `HYSCRIBE_ASR_CONCURRENCY=%d`. Command: `go run ./bench/engine -bin <hyscribe> -capacity %d -rtf %.2f` (or `make bench`).\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), labelText(o.label), o.capacity, o.rtf, o.concurrency, o.capacity, o.rtf)
	p("| figure | measured | goal | verdict |\n|---|---|---|---|\n")
	p("| one 60-minute single-voice recording, upload → transcribed, over the engine-bound limit (%.1f s) | **%.2f×** (%.1f s; %d requests) | ≤ 1.15× | %s |\n",
		r.LongBound, r.Long/r.LongBound, r.Long, r.LongPieces, verdict(r.Long/r.LongBound <= 1.15))
	p("| engine busy while %d two-minute recordings from 4 accounts wait | **%.2f** (makespan %.1f s, %.2f× the ideal %.1f s; %d requests) | ≥ 0.90 | %s |\n",
		r.BurstJobs, r.Busy, r.Makespan, r.Makespan/r.Ideal, r.Ideal, r.BurstRecordings, verdict(busyGoal))
	p("| another account's one-minute calls (one every 2 s, %d) while the 60-minute recording is recognised: p95 over the same calls on an idle engine | **%.2f×** (p95 %.2f s against %.2f s) | ≤ 1.5× | %s |\n\n",
		len(r.CallsLoaded), r.LoadedP95/r.IdleP95, r.LoadedP95, r.IdleP95, verdict(r.LoadedP95/r.IdleP95 <= 1.5))
	return b.String()
}

func labelText(l string) string {
	if l == "" {
		return ""
	}
	return ", build " + l
}

// engine is the stand-in GPU server.
type engine struct {
	srv      *http.Server
	url      string
	capacity int
	rtf      float64

	mu      sync.Mutex
	cond    *sync.Cond
	busyN   int
	queue   []uint64 // tickets waiting, first come first served
	next    uint64
	records []record
}

// record is one request: when it arrived, started and ended, and its audio.
type record struct {
	arrived, started, ended time.Time
	seconds                 float64
}

func startEngine(capacity int, rtf float64) (*engine, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	e := &engine{capacity: capacity, rtf: rtf, url: "http://" + ln.Addr().String() + "/v1"}
	e.cond = sync.NewCond(&e.mu)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/audio/transcriptions", e.transcribe)
	e.srv = &http.Server{Handler: mux}
	go e.srv.Serve(ln)
	return e, nil
}

func (e *engine) Close() { e.srv.Close() }

func (e *engine) transcribe(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	f, _, err := r.FormFile("file")
	if err != nil {
		http.Error(w, `{"error":{"message":"no file"}}`, http.StatusBadRequest)
		return
	}
	audio, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		http.Error(w, `{"error":{"message":"read"}}`, http.StatusBadRequest)
		return
	}
	seconds := audioSeconds(audio)
	// Wait for a slot, first come first served.
	e.mu.Lock()
	ticket := e.next
	e.next++
	e.queue = append(e.queue, ticket)
	for e.busyN >= e.capacity || e.queue[0] != ticket {
		e.cond.Wait()
	}
	e.queue = e.queue[1:]
	e.busyN++
	e.cond.Broadcast()
	e.mu.Unlock()
	started := time.Now()
	time.Sleep(time.Duration(seconds * e.rtf * float64(time.Second)))
	e.mu.Lock()
	e.busyN--
	e.records = append(e.records, record{arrived, started, time.Now(), seconds})
	e.cond.Broadcast()
	e.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"task": "transcribe", "language": "armenian", "duration": seconds,
		"text":     "Բարև ձեզ",
		"segments": []map[string]any{{"id": 0, "start": 0, "end": seconds, "text": "Բարև ձեզ"}},
	})
}

func (e *engine) reset() {
	e.mu.Lock()
	e.records = nil
	e.mu.Unlock()
}

// stats is the requests answered since reset, and the most at once.
func (e *engine) stats() (requests, peak int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	type ev struct {
		at time.Time
		d  int
	}
	var evs []ev
	for _, r := range e.records {
		evs = append(evs, ev{r.started, 1}, ev{r.ended, -1})
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.d - b.d
	})
	n := 0
	for _, x := range evs {
		n += x.d
		peak = max(peak, n)
	}
	return len(e.records), peak
}

// busy is the share of the engine's slot-time in use from the first
// request's arrival to the last answer since reset: 1 when no slot stood
// idle while work was on its way.
func (e *engine) busy() float64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.records) == 0 {
		return 0
	}
	first, last := e.records[0].arrived, e.records[0].ended
	var work float64
	for _, r := range e.records {
		if r.arrived.Before(first) {
			first = r.arrived
		}
		if r.ended.After(last) {
			last = r.ended
		}
		work += r.ended.Sub(r.started).Seconds()
	}
	return work / (float64(e.capacity) * last.Sub(first).Seconds())
}

// waitRequests waits until n requests arrived since reset (answered or not).
func (e *engine) waitRequests(n int, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		e.mu.Lock()
		got := len(e.records) + e.busyN
		e.mu.Unlock()
		if got >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the engine got no request within %s", within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
