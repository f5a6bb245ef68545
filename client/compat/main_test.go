package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestTranscribeThroughTheClient runs the program's round trip against a
// service that answers in the documented shapes, so that the module
// builds, vets and runs with the oldest Go the client claims.
func TestTranscribeThroughTheClient(t *testing.T) {
	var mu sync.Mutex
	uploaded, polls := false, 0
	var agent string
	mux := http.NewServeMux()
	var srv *httptest.Server
	mux.HandleFunc("/api/createTranscription", func(w http.ResponseWriter, r *http.Request) {
		agent = r.Header.Get("User-Agent")
		if r.Header.Get("Idempotency-Key") == "" {
			w.WriteHeader(400)
			return
		}
		fmt.Fprintf(w, `{"docId":"d1","uploadUrl":"%s/upload/d1?expires=1&sig=x"}`, srv.URL)
	})
	mux.HandleFunc("/upload/d1", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		uploaded = string(b) == "ID3 audio"
		mu.Unlock()
	})
	mux.HandleFunc("/api/getTranscription", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		polls++
		status := "processing"
		extra := ""
		if uploaded && polls > 1 {
			status, extra = "transcribed", `,"transcription":"Խոսնակ 1: Բարեւ","title":"t","resolution":"r","languageCode":"hy-AM"`
		}
		fmt.Fprintf(w, `{"docId":"d1","status":%q,"createdAt":"2026-11-21T10:00:00.123Z","type":"phone_call","duration":null,"metadata":{"crm":"A-1"}%s}`, status, extra)
	})
	mux.HandleFunc("/api/exportTranscription", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"docId":"d1","type":"phone_call","languageCode":"hy-AM","duration":1,"title":"t","resolution":"r","transcription":"Խոսնակ 1: Բարեւ","metadata":{"crm":"A-1"},"segments":[{"start":0,"end":1,"speaker":"Խոսնակ 1","text":"Բարեւ"}],"words":[{"start":0,"end":1,"speaker":"Խոսնակ 1","word":"Բարեւ"}]}`)
	})
	mux.HandleFunc("/api/listTranscriptions", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"items": []map[string]any{{"docId": "d1", "status": "transcribed",
			"createdAt": "2026-11-21T10:00:00.123Z", "type": "phone_call", "duration": 1, "metadata": map[string]any{}, "title": "t"}}, "nextCursor": nil})
	})
	srv = httptest.NewServer(mux)
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "call.mp3")
	if err := os.WriteFile(path, []byte("ID3 audio"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), srv.URL, "hsk_test", path); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(agent, "integrator/1.0 hyscribe-go/") {
		t.Fatalf("User-Agent %q", agent)
	}
}
