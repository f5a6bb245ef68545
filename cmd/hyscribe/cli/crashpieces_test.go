package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/mp3"
	"github.com/hyscribe/hyscribe/adapters/mp3/mp3test"
	"github.com/hyscribe/hyscribe/adapters/sqlite"
	"github.com/hyscribe/hyscribe/domain"
)

// pieceEngine answers each piece (a request's file name) until answering
// answered pieces, then holds every request until release is closed.
type pieceEngine struct {
	mu       sync.Mutex
	limit    int
	answered map[string]int // pieces answered, by file name: how many times
	asked    map[string]int // requests, by file name
	holding  int
	release  chan struct{}
}

func (e *pieceEngine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, h, err := r.FormFile("file")
	if err != nil {
		http.Error(w, `{"error":{"message":"no file"}}`, http.StatusBadRequest)
		return
	}
	audio, _ := io.ReadAll(f)
	f.Close()
	info, err := mp3.Prober{}.Probe(r.Context(), bytes.NewReader(audio))
	if err != nil {
		http.Error(w, `{"error":{"message":"not mp3"}}`, http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	e.asked[h.Filename]++
	full := len(e.answered) >= e.limit
	if full {
		e.holding++
	}
	e.mu.Unlock()
	if full {
		select {
		case <-e.release:
		case <-r.Context().Done():
			return
		}
	}
	e.mu.Lock()
	e.answered[h.Filename]++
	e.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"task": "transcribe", "language": "armenian", "duration": info.Duration, "text": h.Filename,
		"segments": []map[string]any{{"id": 0, "start": 0, "end": info.Duration, "text": h.Filename}}})
}

// Issue 28: the worker is killed (SIGKILL) in the middle of a long
// recording's recognition, some pieces answered and kept, others at the
// engine. Started again, it loses no job and sends the engine only the
// pieces that had not come back: none answered before the kill is sent
// twice, and the transcript has every piece once.
func TestKilledMidRecognitionResendsOnlyMissingPieces(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the service")
	}
	const before = 6
	eng := &pieceEngine{limit: before, answered: map[string]int{}, asked: map[string]int{}, release: make(chan struct{})}
	srv := httptest.NewServer(eng)
	defer srv.Close()
	dir := t.TempDir()
	vars := map[string]string{
		"HYSCRIBE_DATA_DIR":              dir,
		"HYSCRIBE_HTTP_ADDR":             "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR":   "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":      "2",
		"HYSCRIBE_KAFKA_SESSION_TIMEOUT": "6s",
		"HYSCRIBE_ASR_URL":               srv.URL + "/v1",
		"HYSCRIBE_ASR_CONCURRENCY":       "2",
		"HYSCRIBE_SHUTDOWN_GRACE":        "200ms",
		"HYSCRIBE_STAGE_BACKOFF":         "50ms",
	}
	acct := runCLI(t, env(vars), "account", "create", "--name", "crash", "--plan", "business", "--seconds", "3600")
	key := acct["apiKey"].(string)
	long := mp3test.NewLongSpeech(t, 600)
	r, _ := long.Open()
	audio, _ := io.ReadAll(r)

	first := startProc(t, "first", vars, "serve")
	addr, _ := first.waitLog(t, "http listening", 60*time.Second)["addr"].(string)
	id := createAndUpload(t, addr, key, "single_voice", audio)
	waitFor(t, "pieces answered and the next ones held at the engine", 60*time.Second, func() (bool, string) {
		eng.mu.Lock()
		defer eng.mu.Unlock()
		return len(eng.answered) == before && eng.holding == 2, fmt.Sprintf("%d answered, %d held", len(eng.answered), eng.holding)
	})
	// The answers are kept in the store before the kill.
	live, err := sqlite.Open(context.Background(), filepath.Join(dir, "hyscribe.db"))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the answered pieces kept", 30*time.Second, func() (bool, string) {
		ps, err := live.RecognizedPieces(context.Background(), domain.DocID(id))
		return err == nil && len(ps) == before, fmt.Sprintf("%d kept (%v)", len(ps), err)
	})
	live.Close()
	first.kill()

	store, err := sqlite.Open(context.Background(), filepath.Join(dir, "hyscribe.db"))
	if err != nil {
		t.Fatal(err)
	}
	j, err := store.GetJob(context.Background(), domain.DocID(id))
	if err != nil || j.Status != domain.StatusConverting {
		t.Fatalf("at the kill the job is %s (%v), not mid-recognition", j.Status, err)
	}
	kept, err := store.RecognizedPieces(context.Background(), domain.DocID(id))
	store.Close()
	if err != nil || len(kept) != before {
		t.Fatalf("at the kill %d pieces kept (%v), want the %d answered", len(kept), err, before)
	}
	eng.mu.Lock()
	answeredBefore := map[string]bool{}
	for name := range eng.answered {
		answeredBefore[name] = true
	}
	eng.limit = 1 << 30
	close(eng.release)
	eng.mu.Unlock()

	second := startProc(t, "second", vars, "serve")
	second.waitLog(t, "http listening", 60*time.Second)
	var done domain.Job
	waitFor(t, "the job transcribed after the restart", 90*time.Second, func() (bool, string) {
		s, err := sqlite.Open(context.Background(), filepath.Join(dir, "hyscribe.db"))
		if err != nil {
			return false, err.Error()
		}
		defer s.Close()
		done, err = s.GetJob(context.Background(), domain.DocID(id))
		return err == nil && done.Status == domain.StatusTranscribed, string(done.Status)
	})
	eng.mu.Lock()
	defer eng.mu.Unlock()
	pieces := domain.PieceCount(long.Seconds(), domain.PieceSizing{MaxSeconds: 600, Seconds: 30, WholeSeconds: 90, Slots: 2})
	if len(eng.asked) != pieces || len(done.Segments) != pieces {
		t.Fatalf("%d pieces asked, %d segments; the plan has %d", len(eng.asked), len(done.Segments), pieces)
	}
	for name := range answeredBefore {
		if eng.asked[name] != 1 {
			t.Errorf("piece %s, answered before the kill, was sent %d times", name, eng.asked[name])
		}
	}
	resent := 0
	for name, n := range eng.asked {
		resent += n - 1
		if n > 2 {
			t.Errorf("piece %s sent %d times", name, n)
		}
	}
	t.Logf("%d pieces, %d answered before the kill, %d sent again (those at the engine at the kill)", pieces, before, resent)
	if resent != 2 {
		t.Errorf("%d pieces sent again, want the 2 held at the engine at the kill", resent)
	}
}
