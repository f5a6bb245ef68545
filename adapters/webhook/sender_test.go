package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/hyscribe/hyscribe/internal/eventually"
	"github.com/hyscribe/hyscribe/ports"
)

// newSender is a Sender for loopback test servers.
func newSender(cfg Config) *Sender {
	cfg.AllowPrivate = true
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return NewSender(cfg)
}

// recorder is a receiver that keeps what it was sent.
type recorder struct {
	mu      sync.Mutex
	headers http.Header
	body    []byte
	method  string
	hits    atomic.Int32
}

func (rec *recorder) handler(status int, answer string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.headers, rec.body, rec.method = r.Header.Clone(), body, r.Method
		rec.mu.Unlock()
		rec.hits.Add(1)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, answer)
	}
}

func serve(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestSendSignsWithStandardWebhooksHeaders(t *testing.T) {
	var rec recorder
	srv := serve(t, rec.handler(http.StatusOK, "ok"))
	body := []byte(`{"event_type":"transcript_ready","docId":"d1","transcription":"Բարև ձեզ։"}`)
	sent := time.Unix(1_700_000_000, 0)
	req := ports.WebhookRequest{URL: srv.URL + "/hooks?x=1", EventID: "evt_123", Body: body, Secret: "s3cret", Timestamp: sent}

	res := newSender(Config{}).Send(t.Context(), req)
	if res.Err != nil || res.Status != http.StatusOK {
		t.Fatalf("Send = %d, %v; want 200, nil", res.Status, res.Err)
	}
	if res.Latency <= 0 {
		t.Errorf("Latency = %v, want > 0", res.Latency)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.method != http.MethodPost {
		t.Errorf("method = %s, want POST", rec.method)
	}
	if !bytes.Equal(rec.body, body) {
		t.Errorf("body changed in transit:\n got %s\nwant %s", rec.body, body)
	}
	for name, want := range map[string]string{
		"Content-Type":      "application/json",
		"User-Agent":        DefaultUserAgent,
		"webhook-id":        "evt_123",
		"webhook-timestamp": "1700000000",
	} {
		if got := rec.headers.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}

	// By hand, as a receiver without our library would.
	mac := hmac.New(sha256.New, []byte("s3cret"))
	mac.Write([]byte("evt_123.1700000000." + string(body)))
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if got := rec.headers.Get("webhook-signature"); got != want {
		t.Errorf("webhook-signature = %q, want %q", got, want)
	}

	if err := Verify("s3cret", rec.headers, rec.body, sent.Add(time.Minute), 0); err != nil {
		t.Errorf("Verify of a genuine delivery: %v", err)
	}
	for name, check := range map[string]func() error{
		"wrong secret": func() error { return Verify("other", rec.headers, rec.body, sent, time.Minute) },
		"tampered body": func() error {
			return Verify("s3cret", rec.headers, append([]byte(" "), rec.body...), sent, time.Minute)
		},
		"replayed later": func() error { return Verify("s3cret", rec.headers, rec.body, sent.Add(time.Hour), 5*time.Minute) },
		"from the future": func() error {
			return Verify("s3cret", rec.headers, rec.body, sent.Add(-time.Hour), 5*time.Minute)
		},
		"no signature": func() error {
			h := rec.headers.Clone()
			h.Del("webhook-signature")
			return Verify("s3cret", h, rec.body, sent, time.Minute)
		},
		"other id": func() error {
			h := rec.headers.Clone()
			h.Set("webhook-id", "evt_999")
			return Verify("s3cret", h, rec.body, sent, time.Minute)
		},
	} {
		if check() == nil {
			t.Errorf("Verify accepted a delivery with %s", name)
		}
	}
}

func TestVerifyAcceptsAnyOfSeveralSignatures(t *testing.T) {
	body := []byte(`{}`)
	now := time.Unix(1_700_000_000, 0)
	h := http.Header{}
	h.Set(HeaderID, "evt_1")
	h.Set(HeaderTimestamp, "1700000000")
	h.Set(HeaderSignature, "v1,bm90IGl0 v2,whatever "+signatureHeader("new", "evt_1", now.Unix(), body))
	if err := Verify("new", h, body, now, time.Minute); err != nil {
		t.Fatalf("Verify: %v", err)
	}
}

func TestSendWithoutSecretSendsNoSignature(t *testing.T) {
	var rec recorder
	srv := serve(t, rec.handler(http.StatusNoContent, ""))
	res := newSender(Config{}).Send(t.Context(), ports.WebhookRequest{URL: srv.URL, EventID: "e", Body: []byte(`{}`)})
	if res.Err != nil || res.Status != http.StatusNoContent {
		t.Fatalf("Send = %d, %v; want 204, nil", res.Status, res.Err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if sig, ok := rec.headers["Webhook-Signature"]; ok {
		t.Errorf("webhook-signature sent without a secret: %q", sig)
	}
	if rec.headers.Get("webhook-timestamp") == "" {
		t.Error("webhook-timestamp missing when the request has no Timestamp")
	}
}

func TestSendReportsServerErrorWithStatusAndBody(t *testing.T) {
	var rec recorder
	srv := serve(t, rec.handler(http.StatusInternalServerError, "database\n is down"))
	res := newSender(Config{}).Send(t.Context(), ports.WebhookRequest{URL: srv.URL, EventID: "e", Body: []byte(`{}`)})
	if res.Status != http.StatusInternalServerError {
		t.Errorf("Status = %d, want 500", res.Status)
	}
	if res.Err == nil || res.Err.Error() != "receiver answered 500 Internal Server Error: database is down" {
		t.Errorf("Err = %v", res.Err)
	}
}

func TestSendReadsOnlyABoundedPartOfTheAnswer(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		for range 1024 { // 1 MiB
			_, _ = w.Write(bytes.Repeat([]byte("ա"), 512))
		}
	}))
	res := newSender(Config{}).Send(t.Context(), ports.WebhookRequest{URL: srv.URL, EventID: "e"})
	msg := res.Err.Error()
	prefix := "receiver answered 502 Bad Gateway: "
	if !strings.HasPrefix(msg, prefix) {
		t.Fatalf("Err = %q", msg)
	}
	if n := len(msg) - len(prefix); n > maxErrorBody {
		t.Errorf("error carries %d bytes of the answer, want at most %d", n, maxErrorBody)
	}
	if !strings.HasSuffix(msg, "ա…") {
		t.Errorf("answer cut inside a character or without a mark: %q", msg[len(msg)-10:])
	}
}

func TestPrivateReceiversRefusedUnlessAllowed(t *testing.T) {
	var rec recorder
	srv := serve(t, rec.handler(http.StatusOK, ""))
	u, _ := url.Parse(srv.URL)
	refusing := NewSender(Config{Logger: slog.New(slog.DiscardHandler), BreakerFailures: 2})

	// A literal address is refused before dialling; a host name is resolved
	// and refused at dial time, on the address actually connected to.
	res := refusing.Send(t.Context(), ports.WebhookRequest{URL: srv.URL, EventID: "e"})
	want := "receiver address 127.0.0.1 is private; set HYSCRIBE_WEBHOOK_ALLOW_PRIVATE=true to allow it"
	if res.Err == nil || res.Err.Error() != want || !errors.Is(res.Err, ErrPrivateAddress) || res.Status != 0 {
		t.Errorf("literal loopback: Send = %d, %v; want 0, %q", res.Status, res.Err, want)
	}
	byName := "http://localhost:" + u.Port() + "/hook"
	for range 4 {
		res = refusing.Send(t.Context(), ports.WebhookRequest{URL: byName, EventID: "e"})
		if !errors.Is(res.Err, ErrPrivateAddress) || !strings.HasSuffix(res.Err.Error(), "is private; set HYSCRIBE_WEBHOOK_ALLOW_PRIVATE=true to allow it") {
			t.Fatalf("localhost: Err = %v, want a private-address refusal", res.Err)
		}
	}
	if n := rec.hits.Load(); n != 0 {
		t.Errorf("refused receiver was reached %d times", n)
	}
	// Refusals are our policy, not the receiver's health: no circuit opens.
	if st := refusing.receivers["http://localhost:"+u.Port()].breaker.State(); st != gobreaker.StateClosed {
		t.Errorf("breaker after refusals = %s, want closed", st)
	}

	allowing := NewSender(Config{AllowPrivate: true, Logger: slog.New(slog.DiscardHandler)})
	for _, target := range []string{srv.URL, byName} {
		if res := allowing.Send(t.Context(), ports.WebhookRequest{URL: target, EventID: "e"}); res.Err != nil || res.Status != 200 {
			t.Errorf("AllowPrivate: Send(%s) = %d, %v; want 200, nil", target, res.Status, res.Err)
		}
	}
}

func TestRefusesUnusableURLs(t *testing.T) {
	s := newSender(Config{})
	for _, tc := range []struct{ url, want string }{
		{"ftp://example.com/hook", `receiver URL scheme "ftp" is not allowed: use http or https`},
		{"file:///etc/passwd", `receiver URL scheme "file" is not allowed`},
		{"javascript:alert(1)", `receiver URL scheme "javascript" is not allowed`},
		{"example.com/hook", `receiver URL scheme "" is not allowed`},
		{"", `receiver URL scheme "" is not allowed`},
		{"https://user:pass@example.com/hook", "must not contain a user name or password"},
		{"http:///hook", "receiver URL has no host"},
		{"http://exa mple.com/", "receiver URL is not valid"},
	} {
		res := s.Send(t.Context(), ports.WebhookRequest{URL: tc.url, EventID: "e"})
		if res.Err == nil || !strings.Contains(res.Err.Error(), tc.want) || res.Status != 0 {
			t.Errorf("Send(%q) = %d, %v; want an error containing %q", tc.url, res.Status, res.Err, tc.want)
		}
	}
	if res := s.Send(t.Context(), ports.WebhookRequest{URL: "http://127.0.0.1:1/"}); res.Err == nil || !strings.Contains(res.Err.Error(), "no event id") {
		t.Errorf("Send without EventID: %v", res.Err)
	}
}

func TestSendHonoursTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	res := newSender(Config{Timeout: timeout}).Send(t.Context(), ports.WebhookRequest{URL: srv.URL, EventID: "e"})
	if res.Err == nil || !strings.Contains(res.Err.Error(), "timeout") || res.Status != 0 {
		t.Fatalf("Send = %d, %v; want 0 and a timeout", res.Status, res.Err)
	}
	if res.Latency < timeout || res.Latency > timeout+2*time.Second {
		t.Errorf("Latency = %v, want about %v", res.Latency, timeout)
	}
}

func TestCallerCancellationIsReportedAsSuch(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	s := newSender(Config{BreakerFailures: 1})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	res := s.Send(ctx, ports.WebhookRequest{URL: srv.URL, EventID: "e"})
	if res.Err == nil || !strings.HasPrefix(res.Err.Error(), "delivery cancelled") {
		t.Fatalf("Err = %v, want a cancellation", res.Err)
	}
	// Our caller gave up; that says nothing about the receiver.
	u, _ := url.Parse(srv.URL)
	if st := s.receivers["http://"+u.Host].breaker.State(); st != gobreaker.StateClosed {
		t.Errorf("breaker = %s, want closed", st)
	}
}

func TestRedirectIsNotFollowed(t *testing.T) {
	var final recorder
	dest := serve(t, final.handler(http.StatusOK, ""))
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, dest.URL+"/elsewhere", http.StatusTemporaryRedirect)
	}))
	res := newSender(Config{}).Send(t.Context(), ports.WebhookRequest{URL: srv.URL, EventID: "e", Body: []byte(`{}`)})
	if res.Status != http.StatusTemporaryRedirect {
		t.Errorf("Status = %d, want 307", res.Status)
	}
	if res.Err == nil || !strings.HasPrefix(res.Err.Error(), "receiver redirected to "+dest.URL+"/elsewhere") {
		t.Errorf("Err = %v", res.Err)
	}
	if n := final.hits.Load(); n != 0 {
		t.Errorf("redirect target reached %d times", n)
	}
}

func TestBreakerFailsFastForADeadReceiverOnly(t *testing.T) {
	var dead, healthy recorder
	deadSrv := serve(t, dead.handler(http.StatusServiceUnavailable, "down"))
	healthySrv := serve(t, healthy.handler(http.StatusOK, ""))
	s := newSender(Config{BreakerFailures: 3, BreakerCooldown: time.Minute})

	for i := range 3 {
		res := s.Send(t.Context(), ports.WebhookRequest{URL: deadSrv.URL, EventID: "e"})
		if res.Status != http.StatusServiceUnavailable || errors.Is(res.Err, ErrCircuitOpen) {
			t.Fatalf("attempt %d: Send = %d, %v; want the receiver's 503", i+1, res.Status, res.Err)
		}
	}
	var wg sync.WaitGroup
	var open, other ports.WebhookResult
	wg.Go(func() { open = s.Send(t.Context(), ports.WebhookRequest{URL: deadSrv.URL, EventID: "e"}) })
	wg.Go(func() { other = s.Send(t.Context(), ports.WebhookRequest{URL: healthySrv.URL, EventID: "e"}) })
	wg.Wait()

	if !errors.Is(open.Err, ErrCircuitOpen) || !strings.HasPrefix(open.Err.Error(), "receiver circuit open: ") || open.Status != 0 {
		t.Errorf("after 3 failures: Send = %d, %v; want a fast circuit-open failure", open.Status, open.Err)
	}
	if n := dead.hits.Load(); n != 3 {
		t.Errorf("dead receiver reached %d times, want 3: the open circuit must not reach it", n)
	}
	if other.Err != nil || other.Status != http.StatusOK || healthy.hits.Load() != 1 {
		t.Errorf("healthy receiver: Send = %d, %v; want 200", other.Status, other.Err)
	}
}

func TestBreakerLetsATrialThroughAfterCooldown(t *testing.T) {
	var status atomic.Int32
	status.Store(http.StatusInternalServerError)
	var hits atomic.Int32
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(int(status.Load()))
	}))
	const cooldown = 200 * time.Millisecond
	s := newSender(Config{BreakerFailures: 2, BreakerCooldown: cooldown})
	send := func() ports.WebhookResult {
		return s.Send(t.Context(), ports.WebhookRequest{URL: srv.URL, EventID: "e"})
	}
	send()
	beforeOpen := time.Now() // the second failure opens the circuit
	send()
	if res := send(); !errors.Is(res.Err, ErrCircuitOpen) {
		t.Fatalf("third Send: %v, want circuit open", res.Err)
	}
	status.Store(http.StatusOK) // the receiver recovers
	var trial ports.WebhookResult
	eventually.True(t, 10*cooldown, "a trial let through", func() bool {
		trial = send()
		return !errors.Is(trial.Err, ErrCircuitOpen)
	})
	if waited := time.Since(beforeOpen); waited < cooldown {
		t.Errorf("a trial went through %v after the circuit opened, before the cooldown of %v", waited, cooldown)
	}
	if trial.Err != nil {
		t.Fatalf("trial after cooldown: %v", trial.Err)
	}
	if res := send(); res.Err != nil {
		t.Fatalf("after a successful trial: %v", res.Err)
	}
	if n := hits.Load(); n != 4 {
		t.Errorf("receiver reached %d times, want 4", n)
	}
}

func TestSlowReceiverDoesNotDelayOthers(t *testing.T) {
	const timeout = time.Second
	var (
		mu       sync.Mutex
		arrivals []time.Time
	)
	arrived := make(chan struct{}, 16)
	slow := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		mu.Unlock()
		arrived <- struct{}{}
		<-r.Context().Done() // never answers
	}))
	var healthy recorder
	fast := serve(t, healthy.handler(http.StatusOK, ""))
	s := newSender(Config{Timeout: timeout, MaxConcurrentPerReceiver: 2})

	const slowSends = 6
	results := make([]ports.WebhookResult, slowSends)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range slowSends {
		wg.Go(func() { results[i] = s.Send(t.Context(), ports.WebhookRequest{URL: slow.URL, EventID: "e"}) })
	}
	<-arrived
	<-arrived // the slow receiver's slots are taken and four more Sends queue
	other := s.Send(t.Context(), ports.WebhookRequest{URL: fast.URL, EventID: "e"})
	wg.Wait()

	if other.Err != nil {
		t.Fatalf("healthy receiver: %v", other.Err)
	}
	fastest := results[0].Latency
	for i, r := range results {
		if r.Err == nil {
			t.Errorf("slow Send %d succeeded", i)
		}
		fastest = min(fastest, r.Latency)
	}
	if other.Latency >= fastest/2 {
		t.Errorf("healthy receiver took %v while the slow one's Sends took at least %v: it was held up", other.Latency, fastest)
	}
	// With two slots, a third request can leave only once a slot is freed,
	// which the timeout does at the earliest `timeout` after the Sends began
	// (queued Sends mostly time out waiting for a slot and never leave).
	// Arrival times are measured where the requests land, so a loaded
	// machine only makes them later, never earlier (counting requests in
	// flight on the server instead would also count a timed-out request
	// whose closed connection the server has not noticed yet).
	mu.Lock()
	defer mu.Unlock()
	early := 0
	for _, at := range arrivals {
		if at.Sub(start) < timeout {
			early++
		}
	}
	if early > 2 {
		t.Errorf("%d requests reached the slow receiver within the first %v, want at most 2 (its concurrency bound)", early, timeout)
	}
}

func TestSecretAndBodyNeverLogged(t *testing.T) {
	var logs bytes.Buffer
	var lmu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		lmu.Lock()
		defer lmu.Unlock()
		return logs.Write(p)
	}), &slog.HandlerOptions{Level: slog.LevelDebug}))
	var ok, bad recorder
	okSrv := serve(t, ok.handler(http.StatusOK, ""))
	badSrv := serve(t, bad.handler(http.StatusInternalServerError, "no"))
	s := newSender(Config{Logger: logger, BreakerFailures: 1})
	for _, target := range []string{okSrv.URL, badSrv.URL, badSrv.URL} {
		s.Send(t.Context(), ports.WebhookRequest{URL: target + "/?token=URLTOKEN", EventID: "e", Secret: "SECRETVALUE", Body: []byte(`{"secret":"SECRETVALUE","x":"BODYMARK"}`)})
	}
	lmu.Lock()
	defer lmu.Unlock()
	if logs.Len() == 0 {
		t.Fatal("nothing logged")
	}
	for _, leak := range []string{"SECRETVALUE", "BODYMARK", "URLTOKEN"} {
		if strings.Contains(logs.String(), leak) {
			t.Errorf("log contains %s:\n%s", leak, logs.String())
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestIdleReceiversAreForgotten(t *testing.T) {
	s := newSender(Config{})
	rcv := s.acquire("http://a:80")
	s.acquire("http://b:80")
	s.release(rcv)
	s.mu.Lock()
	s.prune(time.Now().Add(time.Hour))
	_, a := s.receivers["http://a:80"]
	_, b := s.receivers["http://b:80"]
	s.mu.Unlock()
	if a || !b {
		t.Errorf("after prune: a kept = %v (idle), b kept = %v (in use); want false, true", a, b)
	}
}
