package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// keySeen is a server that records the Authorization each request
// brought, and answers a job.
type keySeen struct {
	mu   sync.Mutex
	auth []string
}

func (k *keySeen) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	k.auth = append(k.auth, r.Header.Get("Authorization"))
	k.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"docId":"d1","status":"processing"}`))
}

func (k *keySeen) seen() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.auth...)
}

// redirectTo answers every request with a 307 to target + the path.
func redirectTo(target string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	})
}

// TestRedirectsKeepTheKeyToItsOrigin runs the client against one server
// that redirects to another on another port (same host, 127.0.0.1): the
// key does not go with it. A redirect within the same server keeps it; a
// redirect from https to http is not followed, and the http server never
// sees the key.
func TestRedirectsKeepTheKeyToItsOrigin(t *testing.T) {
	ctx := context.Background()
	other := &keySeen{}
	otherSrv := httptest.NewServer(other)
	defer otherSrv.Close()

	// Another port: followed, without the key.
	hop := httptest.NewServer(redirectTo(otherSrv.URL))
	defer hop.Close()
	if _, err := New(hop.URL, "key-port").Get(ctx, "d1"); err != nil {
		t.Fatalf("get through a redirect: %v", err)
	}
	if got := other.seen(); len(got) != 1 || got[0] != "" {
		t.Fatalf("the server on another port saw Authorization %q, want none", got)
	}

	// The same origin: the key goes with the redirect.
	same := &keySeen{}
	mux := http.NewServeMux()
	mux.Handle("/moved/", http.StripPrefix("/moved", same))
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/moved"+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	sameSrv := httptest.NewServer(mux)
	defer sameSrv.Close()
	if _, err := New(sameSrv.URL, "key-same").Get(ctx, "d1"); err != nil {
		t.Fatalf("get through a same-origin redirect: %v", err)
	}
	if got := same.seen(); len(got) != 1 || got[0] != "Bearer key-same" {
		t.Fatalf("a same-origin redirect brought Authorization %q, want the key", got)
	}

	// https to http: not followed, whatever client the caller gave.
	tlsHop := httptest.NewTLSServer(redirectTo(otherSrv.URL))
	defer tlsHop.Close()
	given := tlsHop.Client()
	_, err := New(tlsHop.URL, "key-tls", WithHTTPClient(given)).Get(ctx, "d1")
	if err == nil || !strings.Contains(err.Error(), "https to http") {
		t.Fatalf("an https to http redirect: %v, want it refused", err)
	}
	if got := other.seen(); len(got) != 1 {
		t.Fatalf("the http server was reached from https: %q", got)
	}
	if given.CheckRedirect != nil {
		t.Fatal("the caller's http.Client was changed")
	}
}
