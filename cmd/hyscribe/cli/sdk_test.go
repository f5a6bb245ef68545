package cli_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/client"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// statusCounter counts a client's answers by status.
type statusCounter struct {
	mu    sync.Mutex
	codes map[int]int
}

func (s *statusCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		s.mu.Lock()
		s.codes[res.StatusCode]++
		s.mu.Unlock()
	}
	return res, err
}

func (s *statusCounter) count(code int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.codes[code]
}

// TestConcurrentWaitsDrawNo429 waits on eight jobs at once with one key,
// each Wait asking every 100 ms, against the real service for longer than
// one rate window: the shared pacer keeps them all under 60 polls a minute
// together, so not one poll is refused, though more than a window's worth
// are answered. Premise: the same eight Waits without the pacer (a client
// told the limit is huge) are refused within seconds.
func TestConcurrentWaitsDrawNo429(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole service and runs for over a minute")
	}
	vars, acctID, key, svc := clientService(t, nil)
	base := "http://" + svc.HTTPAddr()
	waitAll := func(c *client.Client, d time.Duration) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		var wg sync.WaitGroup
		for range 8 {
			created, err := c.Create(context.Background(), client.CreateRequest{Type: client.SingleVoice})
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Wait(ctx, created.DocID, nil); !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Wait on a job never uploaded: %v", err)
				}
			}()
		}
		wg.Wait()
	}

	// The premise, with another key of the account: unpaced, refused.
	other := runCLI(t, env(vars), "account", "key", "--account", acctID)
	unpaced := &statusCounter{codes: map[int]int{}}
	waitAll(client.New(base, other["apiKey"].(string), client.WithPollInterval(100*time.Millisecond),
		client.WithRateLimit(1_000_000), client.WithHTTPClient(&http.Client{Transport: unpaced})), 3*time.Second)
	if unpaced.count(http.StatusTooManyRequests) == 0 {
		t.Fatalf("eight unpaced Waits drew no 429 (answers %v): the premise fails", unpaced.codes)
	}

	paced := &statusCounter{codes: map[int]int{}}
	waitAll(client.New(base, key, client.WithPollInterval(100*time.Millisecond),
		client.WithHTTPClient(&http.Client{Transport: paced})), 66*time.Second)
	if n := paced.count(http.StatusTooManyRequests); n > 0 {
		t.Fatalf("%d polls refused with 429 (answers %v)", n, paced.codes)
	}
	if n := paced.count(http.StatusOK); n <= 60+8 { // 8 creates
		t.Fatalf("only %d answers in 66 s: fewer than a window's worth of polls", n)
	}
}

// TestClientRoundTripAndReconciliation uses the client as an integrator
// would against the real service, on SQLite and on Postgres: Transcribe in one call (the receiver is
// down, so transcript_ready fails), the typed JSON export, List finding
// the job, and Resend delivering the event with its first webhook-id to
// the receiver once it is up, verified by the client's WebhookHandler.
func TestClientRoundTripAndReconciliation(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole service")
	}
	t.Run("sqlite", func(t *testing.T) { clientRoundTrip(t, map[string]string{}) })
	t.Run("postgres", func(t *testing.T) { clientRoundTrip(t, map[string]string{"DATABASE_URL": pgtest.URL(t)}) })
}

func clientRoundTrip(t *testing.T, vars map[string]string) {
	vars["HYSCRIBE_WEBHOOK_ALLOW_PRIVATE"] = "true"
	vars, acctID, key, svc := clientService(t, vars)
	down, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downURL := "http://" + down.Addr().String() + "/hook"
	down.Close() // nothing listens there: the delivery fails
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	runCLI(t, env(vars), "account", "update", "--account", acctID, "--webhook-url", downURL, "--webhook-secret", secret)

	base := "http://" + svc.HTTPAddr()
	c := client.New(base, key, client.WithPollInterval(100*time.Millisecond), client.WithUserAgent("sdk-test/1"))
	ctx := context.Background()
	before := time.Now().Add(-time.Second)
	var seen []string
	j, err := c.Transcribe(ctx, "../../../testdata/audio/call-stereo-22k.mp3", client.TranscribeOptions{
		Type: client.PhoneCall, Metadata: []byte(`{"crm":"A-7"}`), IdempotencyKey: "order-7",
		Progress: func(j client.Job) { seen = append(seen, j.Status) },
	})
	if err != nil || j.Status != client.StatusTranscribed || j.Transcription == nil || !strings.Contains(*j.Transcription, "Խոսնակ 1:") {
		t.Fatalf("Transcribe: %+v %v (progress %v)", j, err, seen)
	}
	tr, err := c.ExportTranscript(ctx, j.DocID)
	if err != nil || len(tr.Segments) == 0 || len(tr.Words) == 0 || tr.Segments[0].Speaker == nil || tr.Words[0].Speaker == nil ||
		tr.Transcription != *j.Transcription || string(tr.Metadata) != `{"crm":"A-7"}` {
		t.Fatalf("ExportTranscript: %+v %v", tr, err)
	}
	var listed []string
	if err := c.ListAll(ctx, client.ListOptions{Status: client.StatusTranscribed, CreatedSince: before, Limit: 1}, func(s client.JobSummary) error {
		listed = append(listed, s.DocID)
		return nil
	}); err != nil || len(listed) != 1 || listed[0] != j.DocID {
		t.Fatalf("ListAll: %v %v", listed, err)
	}

	// The command takes the API's format name (txt) and its own (text) alike.
	var texts []string
	for _, f := range []string{"txt", "text"} {
		var out, progress bytes.Buffer
		err := cli.Run(ctx, []string{"transcribe", "../../../testdata/audio/speech-mono-16k.mp3", "--type", "single_voice", "--format", f, "--poll", "100ms"},
			env(map[string]string{"HYSCRIBE_URL": base, "HYSCRIBE_API_KEY": key}), &out, &progress)
		if err != nil {
			t.Fatalf("transcribe --format %s: %v\n%s", f, err, progress.String())
		}
		texts = append(texts, out.String())
	}
	if texts[0] == "" || texts[0] != texts[1] {
		t.Fatalf("--format txt printed %q, --format text %q", texts[0], texts[1])
	}
	// The delivery to the down receiver is recorded (by the notify stage,
	// asynchronously): Resend finds it once it is.
	events := make(chan client.Event, 1)
	rcv := httptest.NewServer(client.NewWebhookHandler(secret, func(_ context.Context, ev client.Event) { events <- ev }))
	defer rcv.Close()
	var res client.ResendResult
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err = c.Resend(ctx, j.DocID, client.EventTranscriptReady)
		if err == nil || !errors.Is(err, client.ErrConflict) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil || res.Delivered || res.StatusCode != nil {
		t.Fatalf("resend to the receiver still down: %+v %v", res, err)
	}
	runCLI(t, env(vars), "account", "update", "--account", acctID, "--webhook-url", rcv.URL)
	if res2, err := c.Resend(ctx, j.DocID, client.EventTranscriptReady); err != nil || !res2.Delivered || res2.WebhookID != res.WebhookID {
		t.Fatalf("resend to the receiver: %+v %v (first attempt's webhook-id %q)", res2, err, res.WebhookID)
	}
	select {
	case ev := <-events:
		if ev.ID != res.WebhookID || ev.DocID != j.DocID || ev.Type != client.EventTranscriptReady || ev.Transcription != *j.Transcription {
			t.Fatalf("the receiver got %+v", ev)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the resent event never reached the receiver")
	}
	if _, err := c.Resend(ctx, j.DocID, client.EventAnalysisReady); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("resend of an event never sent: %v", err)
	}
}
