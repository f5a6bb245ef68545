package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// noWaits makes c retry and pace without waiting.
func noWaits(c *Client) {
	none := func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	c.sleep, c.pace = none, none
}

func TestCreateRetriesWithTheSameIdempotencyKey(t *testing.T) {
	var mu sync.Mutex
	var keys, agents []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys, agents = append(keys, r.Header.Get("Idempotency-Key")), append(agents, r.Header.Get("User-Agent"))
		n := len(keys)
		mu.Unlock()
		switch n % 3 {
		case 1: // no answer at all
			hj, _ := w.(http.Hijacker)
			conn, _, _ := hj.Hijack()
			conn.Close()
		case 2:
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(503)
			fmt.Fprint(w, `{"error":"the service is temporarily unavailable; retry later","code":"unavailable"}`)
		default:
			fmt.Fprint(w, `{"docId":"d1","uploadUrl":"http://x/upload/d1?expires=1&sig=a"}`)
		}
	}))
	defer srv.Close()
	c := New(srv.URL, "hsk_test", WithUserAgent("acme-crm/2.1"))
	noWaits(c)
	got, err := c.Create(context.Background(), CreateRequest{Type: PhoneCall})
	if err != nil || got.DocID != "d1" {
		t.Fatalf("create: %+v %v", got, err)
	}
	if len(keys) != 3 || keys[0] == "" || keys[1] != keys[0] || keys[2] != keys[0] {
		t.Fatalf("Idempotency-Keys %q: want one key on all three attempts", keys)
	}
	if !strings.HasPrefix(agents[0], "acme-crm/2.1 hyscribe-go/"+Version+" (go") {
		t.Fatalf("User-Agent %q", agents[0])
	}
	// The caller's key is the one sent; another create gets another key.
	if _, err := c.Create(context.Background(), CreateRequest{Type: PhoneCall, IdempotencyKey: "order-1042"}); err != nil {
		t.Fatal(err)
	}
	if keys[5] != "order-1042" || keys[3] != "order-1042" {
		t.Fatalf("keys %q: want the caller's order-1042", keys)
	}
	// Retries end: 4 attempts by default, then the last error.
	srv503 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(502) }))
	defer srv503.Close()
	c = New(srv503.URL, "k")
	noWaits(c)
	if _, err := c.Create(context.Background(), CreateRequest{Type: SingleVoice}); !errors.Is(err, ErrServer) {
		t.Fatalf("after the retries: %v", err)
	}
	// A 400 is not retried.
	var n400 int
	srv400 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n400++
		w.WriteHeader(400)
		fmt.Fprint(w, `{"error":"type must be single_voice or phone_call","code":"invalid_type"}`)
	}))
	defer srv400.Close()
	c = New(srv400.URL, "k")
	noWaits(c)
	if _, err := c.Create(context.Background(), CreateRequest{Type: "video"}); !errors.Is(err, ErrBadRequest) || n400 != 1 {
		t.Fatalf("400: %v after %d attempts", err, n400)
	}
}

func TestUploadRetriesFromTheStart(t *testing.T) {
	audio := strings.Repeat("ID3 mp3 bytes ", 1000)
	var mu sync.Mutex
	var bodies []string
	uploaded := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		n := len(bodies)
		mu.Unlock()
		switch {
		case n == 1:
			w.WriteHeader(502)
		case n == 2: // stored, but the answer is lost
			uploaded = true
			hj, _ := w.(http.Hijacker)
			conn, _, _ := hj.Hijack()
			conn.Close()
		case uploaded:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(409)
			fmt.Fprint(w, `{"error":"audio was already uploaded for this job","code":"conflict"}`)
		}
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "call.mp3")
	if err := os.WriteFile(path, []byte(audio), 0o600); err != nil {
		t.Fatal(err)
	}
	c := New(srv.URL, "k")
	noWaits(c)
	if err := c.UploadFile(context.Background(), srv.URL+"/upload/d1?sig=x", path); err != nil {
		t.Fatalf("upload: %v", err)
	}
	if len(bodies) != 3 || bodies[0] != audio || bodies[1] != audio || bodies[2] != audio {
		t.Fatalf("%d attempts; each must send the whole file", len(bodies))
	}
	// A first answer of 409 is an error: the job had its audio before.
	if err := c.Upload(context.Background(), srv.URL+"/upload/d1?sig=x", strings.NewReader(audio), int64(len(audio))); !errors.Is(err, ErrConflict) {
		t.Fatalf("a first 409: %v", err)
	}
}

// TestPacerKeepsEveryMinuteUnderTheLimit: however many callers ask at
// once, no 60-second span holds more than 58 slots (60 a minute), and a
// hold pushes every later slot past it.
func TestPacerKeepsEveryMinuteUnderTheLimit(t *testing.T) {
	p := &pacer{gap: gapFor(60)}
	now := time.Date(2026, 1, 1, 10, 0, 59, 900e6, time.UTC)
	var slots []time.Time
	for range 200 {
		slots = append(slots, p.reserve(now))
	}
	for i := range slots {
		n := 0
		for _, s := range slots[i:] {
			if s.Sub(slots[i]) < time.Minute {
				n++
			}
		}
		if n > 58 { // two below the limit: room for the network bringing requests closer
			t.Fatalf("%d slots within a minute from %s", n, slots[i])
		}
	}
	until := slots[len(slots)-1].Add(30 * time.Second)
	p.hold(until)
	if at := p.reserve(now); at.Before(until) {
		t.Fatalf("a slot at %s, inside the hold until %s", at, until)
	}
	// One pacer per service, key and scope, whichever Client asks.
	a, b := New("http://h", "k1"), New("http://h/", "k1")
	if a.pacer(scopePoll) != b.pacer(scopePoll) || a.pacer(scopePoll) == a.pacer(scopeList) || a.pacer(scopePoll) == New("http://h", "k2").pacer(scopePoll) {
		t.Fatal("pacers are not shared per service, key and scope")
	}
}

// fakeService answers list, resend, export and the create-upload-poll
// round trip with fixed bodies in the documented shapes.
func fakeService(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/api/listTranscriptions", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("status") != "transcribed" || q.Get("createdSince") != "2026-11-21T06:00:00Z" || q.Get("limit") != "2" {
			w.WriteHeader(400)
			fmt.Fprintf(w, `{"error":"unexpected query %s","code":"bad"}`, r.URL.RawQuery)
			return
		}
		item := `{"docId":"%s","status":"transcribed","createdAt":"2026-11-21T10:00:00.123Z","type":"phone_call","duration":3.5,"metadata":{},"title":"t"}`
		switch q.Get("cursor") {
		case "":
			fmt.Fprintf(w, `{"items":[`+item+`,`+item+`],"nextCursor":"c2"}`, "d3", "d2")
		case "c2":
			fmt.Fprintf(w, `{"items":[`+item+`],"nextCursor":null}`, "d1")
		}
	})
	mux.HandleFunc("/api/resendEvent", func(w http.ResponseWriter, r *http.Request) {
		var b map[string]string
		_ = json.NewDecoder(r.Body).Decode(&b)
		fmt.Fprintf(w, `{"docId":%q,"event":%q,"webhookId":"%s/transcript.ready","delivered":true,"statusCode":200,"error":null,"attemptedAt":"2026-11-21T10:05:00.000Z"}`, b["docId"], b["event"], b["docId"])
	})
	mux.HandleFunc("/api/exportTranscription", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"docId":"d1","type":"phone_call","languageCode":"hy-AM","duration":3.5,"title":"t","resolution":"r","transcription":"Խոսնակ 1: Բարեւ ձեզ","metadata":{},"segments":[{"start":0.5,"end":2,"speaker":"Խոսնակ 1","text":"Բարեւ ձեզ"}],"words":[{"start":0.5,"end":1.333,"speaker":"Խոսնակ 1","word":"Բարեւ"},{"start":1.5,"end":2,"speaker":"Խոսնակ 1","word":"ձեզ"}]}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestListAllResendAndTypedExport(t *testing.T) {
	srv := fakeService(t)
	c := New(srv.URL, "k")
	noWaits(c)
	var ids []string
	err := c.ListAll(context.Background(), ListOptions{Status: StatusTranscribed, CreatedSince: time.Date(2026, 11, 21, 10, 0, 0, 0, time.FixedZone("AMT", 4*3600)), Limit: 2},
		func(j JobSummary) error {
			if j.Title == nil || j.CreatedAt.IsZero() {
				return fmt.Errorf("item %+v", j)
			}
			ids = append(ids, j.DocID)
			return nil
		})
	if err != nil || strings.Join(ids, ",") != "d3,d2,d1" {
		t.Fatalf("ListAll: %v %v", ids, err)
	}
	r, err := c.Resend(context.Background(), "d1", EventTranscriptReady)
	if err != nil || !r.Delivered || r.WebhookID != "d1/transcript.ready" || r.StatusCode == nil || *r.StatusCode != 200 {
		t.Fatalf("Resend: %+v %v", r, err)
	}
	tr, err := c.ExportTranscript(context.Background(), "d1")
	if err != nil || len(tr.Segments) != 1 || len(tr.Words) != 2 || *tr.Words[1].Speaker != "Խոսնակ 1" || tr.Words[1].Word != "ձեզ" || tr.Title != "t" {
		t.Fatalf("ExportTranscript: %+v %v", tr, err)
	}
}

func TestTranscribeReturnsAFailedJobAsAnError(t *testing.T) {
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/api/createTranscription", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"docId":"d9","uploadUrl":"%s/upload/d9?sig=x"}`, srv.URL)
	})
	mux.HandleFunc("/upload/d9", func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) })
	mux.HandleFunc("/api/getTranscription", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"docId":"d9","status":"failed","createdAt":"2026-11-21T10:00:00.123Z","type":"single_voice","duration":null,"metadata":{},"error":"the file is WAV audio, not MP3"}`)
	})
	srv = httptest.NewServer(mux)
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "x.wav")
	if err := os.WriteFile(path, []byte("RIFF"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := New(srv.URL, "k")
	noWaits(c)
	j, err := c.Transcribe(context.Background(), path, TranscribeOptions{})
	var failed *JobFailedError
	if !errors.As(err, &failed) || failed.DocID != "d9" || failed.Message != "the file is WAV audio, not MP3" || j.Status != StatusFailed {
		t.Fatalf("Transcribe of a failing file: %+v, %v", j, err)
	}
}
