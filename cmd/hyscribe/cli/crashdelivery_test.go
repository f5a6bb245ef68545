package cli_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/sqlite"
	"github.com/hyscribe/hyscribe/domain"
)

// holdingReceiver holds every request while hold is set (the process is
// killed mid-delivery), and answers 200 otherwise.
type holdingReceiver struct {
	mu       sync.Mutex
	hold     bool
	held     map[string]bool // docId → a request held
	answered map[string]int  // docId → requests answered 200
	ids      map[string]map[string]bool
	release  chan struct{}
}

func (r *holdingReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var body struct {
		DocID string `json:"docId"`
	}
	_ = json.NewDecoder(req.Body).Decode(&body)
	r.mu.Lock()
	if r.ids[body.DocID] == nil {
		r.ids[body.DocID] = map[string]bool{}
	}
	r.ids[body.DocID][req.Header.Get("webhook-id")] = true
	if r.hold {
		r.held[body.DocID] = true
		r.mu.Unlock()
		select {
		case <-r.release:
		case <-req.Context().Done():
		}
		return
	}
	r.answered[body.DocID]++
	r.mu.Unlock()
}

// TestKilledMidDeliveryEveryEventIsDelivered kills the service (SIGKILL)
// while its webhook deliveries are inside the receiver, starts it again on
// the same data, and checks that every transcript_ready is delivered, and
// recorded delivered, within a bound: the lease (webhook timeout + 10 s)
// plus one takeover round (5 s) plus the start-up. Before, a delivery left
// pending was resumed only by a start-up more than a minute later.
func TestKilledMidDeliveryEveryEventIsDelivered(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the service")
	}
	engine := asrtest.NewEngine(t)
	rcv := &holdingReceiver{hold: true, held: map[string]bool{}, answered: map[string]int{}, ids: map[string]map[string]bool{}, release: make(chan struct{})}
	hook := httptest.NewServer(rcv)
	defer hook.Close()
	dir := t.TempDir()
	vars := map[string]string{
		"HYSCRIBE_DATA_DIR":              dir,
		"HYSCRIBE_HTTP_ADDR":             "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR":   "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":      "2",
		"HYSCRIBE_ASR_URL":               engine.URL(),
		"HYSCRIBE_WEBHOOK_ALLOW_PRIVATE": "true",
		"HYSCRIBE_WEBHOOK_TIMEOUT":       "3s",
		"HYSCRIBE_SHUTDOWN_GRACE":        "200ms",
		"HYSCRIBE_STAGE_BACKOFF":         "50ms",
	}
	acct := runCLI(t, env(vars), "account", "create", "--name", "crash", "--plan", "business", "--seconds", "3600")
	runCLI(t, env(vars), "account", "update", "--account", acct["accountId"].(string), "--webhook-url", hook.URL, "--webhook-secret", "s")
	key := acct["apiKey"].(string)
	mono, err := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}

	first := startProc(t, "first", vars, "serve")
	addr, _ := first.waitLog(t, "http listening", 60*time.Second)["addr"].(string)
	const jobs = 3
	var ids []string
	for range jobs {
		ids = append(ids, createAndUpload(t, addr, key, "single_voice", mono))
	}
	waitFor(t, "every delivery inside the receiver", 60*time.Second, func() (bool, string) {
		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		return len(rcv.held) == jobs, strconv.Itoa(len(rcv.held)) + " held"
	})
	first.kill()
	rcv.mu.Lock()
	rcv.hold = false
	close(rcv.release)
	rcv.mu.Unlock()

	restarted := time.Now()
	second := startProc(t, "second", vars, "serve")
	second.waitLog(t, "http listening", 60*time.Second)
	const bound = 3*time.Second + 10*time.Second + 5*time.Second + 15*time.Second // lease, takeover round, slack for a loaded machine
	waitFor(t, "every event delivered and recorded after the restart", bound, func() (bool, string) {
		rcv.mu.Lock()
		answered := len(rcv.answered)
		rcv.mu.Unlock()
		recorded := deliveredCount(t, dir, ids)
		return answered == jobs && recorded == jobs, strconv.Itoa(answered) + " answered, " + strconv.Itoa(recorded) + " recorded delivered"
	})
	t.Logf("every event delivered %s after the restart (bound %s)", time.Since(restarted).Round(100*time.Millisecond), bound)
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	for _, id := range ids {
		if len(rcv.ids[id]) != 1 {
			t.Errorf("job %s: webhook-ids %v, want one, the same on every attempt", id, rcv.ids[id])
		}
		if rcv.answered[id] != 1 {
			t.Errorf("job %s: delivered %d times after the restart, want 1", id, rcv.answered[id])
		}
	}
}

// deliveredCount is how many of the jobs have a transcript_ready delivery
// recorded delivered, read from the service's SQLite file.
func deliveredCount(t *testing.T, dir string, ids []string) int {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "hyscribe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n := 0
	for _, id := range ids {
		ds, err := st.Deliveries(context.Background(), domain.DocID(id))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.EventType == domain.EventTranscriptReady && d.Status == domain.DeliveryDelivered {
				n++
				break
			}
		}
	}
	return n
}
