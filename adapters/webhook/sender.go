// Package webhook delivers hyscribe's events to customers' receivers: one
// signed HTTP POST per event and no automatic retry (spec §6; docs/decisions.md, Events to receivers).
//
// Receivers are outside our control, so the Sender is built to survive bad
// ones. Each receiver (scheme, host and port) has its own circuit breaker, so
// a dead receiver is failed fast instead of costing a timeout per event, and
// its own concurrency bound, so a slow receiver cannot take every goroutine of
// the notify stage. Addresses are checked when the connection is dialled, on
// the resolved IP, so a receiver's host name cannot be pointed at the
// service's own network (DNS rebinding) unless private targets are allowed.
//
// Requests carry the Standard Webhooks headers (webhook-id, webhook-timestamp,
// webhook-signature); Verify is the receiver's side of that signature.
package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sony/gobreaker/v2"

	"github.com/hyscribe/hyscribe/ports"
)

// Defaults for the zero values of Config.
const (
	DefaultTimeout                  = 5 * time.Second
	DefaultUserAgent                = "hyscribe-webhooks/1.0"
	DefaultBreakerFailures          = 5
	DefaultBreakerCooldown          = 30 * time.Second
	DefaultMaxConcurrentPerReceiver = 8
)

const (
	// maxResponseRead bounds what is read of an answer: receivers are not
	// trusted to send small bodies, and only a snippet is ever kept.
	maxResponseRead = 4 << 10
	// maxErrorBody is how much of a failed answer's body goes into the error
	// that is stored with the delivery and shown to the customer.
	maxErrorBody = 200
	// idleReceiverTTL is how long an unused receiver's breaker and semaphore
	// are kept, so receivers that accounts stopped using do not pile up.
	idleReceiverTTL = 10 * time.Minute
)

// Sentinel errors a Result.Err can be matched against with errors.Is.
var (
	// ErrCircuitOpen: the receiver failed repeatedly and is not tried until
	// its breaker lets a trial request through.
	ErrCircuitOpen = errors.New("receiver circuit open")
	// ErrPrivateAddress: the receiver resolves to an address of the service's
	// own networks and private targets are not allowed.
	ErrPrivateAddress = errors.New("receiver address is private")
)

// Config configures a Sender. Zero values take the defaults above.
type Config struct {
	// Timeout bounds one Send from start to end: waiting for a free slot
	// for the receiver, connecting, and reading the answer.
	Timeout time.Duration
	// AllowPrivate allows private, loopback and link-local receivers
	// (HYSCRIBE_WEBHOOK_ALLOW_PRIVATE=true), for local development.
	AllowPrivate bool
	// UserAgent is sent with every request.
	UserAgent string
	// BreakerFailures is how many failures in a row open a receiver's circuit.
	BreakerFailures uint32
	// BreakerCooldown is how long an open circuit fails fast before one
	// trial request may reach the receiver again (half-open).
	BreakerCooldown time.Duration
	// MaxConcurrentPerReceiver bounds the requests in flight to one receiver.
	MaxConcurrentPerReceiver int
	// Logger receives breaker state changes and one debug line per attempt.
	// Secrets and bodies are never logged. Nil: slog.Default().
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.UserAgent == "" {
		c.UserAgent = DefaultUserAgent
	}
	if c.BreakerFailures == 0 {
		c.BreakerFailures = DefaultBreakerFailures
	}
	if c.BreakerCooldown <= 0 {
		c.BreakerCooldown = DefaultBreakerCooldown
	}
	if c.MaxConcurrentPerReceiver <= 0 {
		c.MaxConcurrentPerReceiver = DefaultMaxConcurrentPerReceiver
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// Sender implements ports.WebhookSender over net/http. It is safe for
// concurrent use; one Sender should serve the whole process so that every
// delivery to a receiver shares that receiver's breaker and bound.
type Sender struct {
	cfg    Config
	client *http.Client
	log    *slog.Logger

	mu        sync.Mutex
	receivers map[string]*receiver
	lastPrune time.Time
}

var _ ports.WebhookSender = (*Sender)(nil)

// receiver is the state kept per scheme://host:port.
type receiver struct {
	key      string
	breaker  *gobreaker.CircuitBreaker[struct{}]
	slots    chan struct{} // semaphore: one token per request in flight
	openedAt atomic.Int64  // unix nanoseconds of the last opening, for messages

	users    int       // Sends holding this receiver; guarded by Sender.mu
	lastUsed time.Time // guarded by Sender.mu
}

// NewSender builds a Sender.
func NewSender(cfg Config) *Sender {
	cfg = cfg.withDefaults()
	dialer := &net.Dialer{
		Timeout:   cfg.Timeout,
		KeepAlive: 30 * time.Second,
	}
	if !cfg.AllowPrivate {
		// Control runs after DNS resolution, on the very address being
		// connected to, so a host name that resolves to a public address
		// when checked and a private one when used cannot slip through.
		dialer.Control = refusePrivate
	}
	transport := &http.Transport{
		// No proxy: through a proxy the dial-time check would see the
		// proxy's address, and the proxy would reach private targets for us.
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    cfg.Timeout,
		MaxIdleConns:           256,
		MaxIdleConnsPerHost:    cfg.MaxConcurrentPerReceiver,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &Sender{
		cfg: cfg,
		client: &http.Client{
			Transport: transport,
			// A receiver that redirects is misconfigured, and following it
			// would re-send a signed event to an address nobody vetted.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		log:       cfg.Logger,
		receivers: map[string]*receiver{},
	}
}

// Send POSTs req.Body to req.URL once. Result.Err is nil only for a 2xx
// answer; otherwise it says what happened in words fit for the customer.
func (s *Sender) Send(ctx context.Context, req ports.WebhookRequest) ports.WebhookResult {
	start := time.Now()
	res, key := s.send(ctx, req)
	res.Latency = time.Since(start)
	if res.Err != nil {
		s.log.Debug("webhook attempt failed", "receiver", key, "eventId", req.EventID,
			"http", res.Status, "latency", res.Latency, "err", res.Err)
	} else {
		s.log.Debug("webhook attempt succeeded", "receiver", key, "eventId", req.EventID,
			"http", res.Status, "latency", res.Latency)
	}
	return res
}

func (s *Sender) send(parent context.Context, req ports.WebhookRequest) (ports.WebhookResult, string) {
	u, key, err := s.target(req.URL)
	if err != nil {
		return ports.WebhookResult{Err: err}, key
	}
	if req.EventID == "" {
		// The signature and the receiver's de-duplication both rest on it.
		return ports.WebhookResult{Err: errors.New("webhook request has no event id")}, key
	}

	ctx, cancel := context.WithTimeout(parent, s.cfg.Timeout)
	defer cancel()

	rcv := s.acquire(key)
	defer s.release(rcv)

	// Checked before queueing for a slot so that an open circuit answers at
	// once even while earlier requests to the receiver are still in flight.
	if st := rcv.breaker.State(); st == gobreaker.StateOpen {
		return ports.WebhookResult{Err: s.circuitErr(rcv, gobreaker.ErrOpenState)}, key
	}
	select {
	case rcv.slots <- struct{}{}:
	case <-ctx.Done():
		if parent.Err() != nil {
			return ports.WebhookResult{Err: fmt.Errorf("delivery cancelled: %w", parent.Err())}, key
		}
		return ports.WebhookResult{Err: fmt.Errorf("receiver busy: %d deliveries to it were already in flight for the whole %s timeout",
			s.cfg.MaxConcurrentPerReceiver, s.cfg.Timeout)}, key
	}
	defer func() { <-rcv.slots }()

	var res ports.WebhookResult
	_, err = rcv.breaker.Execute(func() (struct{}, error) {
		res = s.post(ctx, parent, u, req)
		return struct{}{}, verdict(parent, res)
	})
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		return ports.WebhookResult{Err: s.circuitErr(rcv, err)}, key
	}
	return res, key
}

// post makes the one HTTP attempt.
func (s *Sender) post(ctx, parent context.Context, u *url.URL, req ports.WebhookRequest) ports.WebhookResult {
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(req.Body))
	if err != nil {
		return ports.WebhookResult{Err: fmt.Errorf("webhook request: %w", err)}
	}
	ts := req.Timestamp
	if ts.IsZero() {
		ts = time.Now()
	}
	h := httpReq.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", s.cfg.UserAgent)
	h.Set(HeaderID, req.EventID)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	if req.Secret != "" {
		h.Set(HeaderSignature, signatureHeader(req.Secret, req.EventID, ts.Unix(), req.Body))
	}

	resp, err := s.client.Do(httpReq)
	if err != nil {
		return ports.WebhookResult{Err: s.transportErr(ctx, parent, err)}
	}
	defer resp.Body.Close()
	// The answer's body matters only for the error message; read a bounded
	// amount (which also lets a small answer's connection be reused) and
	// ignore read errors: the status line is the receiver's verdict.
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponseRead))

	res := ports.WebhookResult{Status: resp.StatusCode}
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
	case code >= 300 && code < 400 && resp.Header.Get("Location") != "":
		res.Err = fmt.Errorf("receiver redirected to %s (%s); redirects are not followed, configure the final address",
			clip(resp.Header.Get("Location"), maxErrorBody), statusLine(resp))
	default:
		msg := "receiver answered " + statusLine(resp)
		if body := clip(string(snippet), maxErrorBody); body != "" {
			msg += ": " + body
		}
		res.Err = errors.New(msg)
	}
	return res
}

// transportErr describes a request that got no answer. The *url.Error
// wrapper is dropped: it repeats the whole URL, which may carry a token.
func (s *Sender) transportErr(ctx, parent context.Context, err error) error {
	if pe, ok := errors.AsType[*privateAddrError](err); ok {
		return pe
	}
	if parent.Err() != nil {
		return fmt.Errorf("delivery cancelled: %w", parent.Err())
	}
	var ne net.Error
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("receiver timeout: no answer within %s", s.cfg.Timeout)
	}
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	return fmt.Errorf("receiver connection failed: %w", err)
}

// errUnhealthy and errNotReceiversFault tell the breaker how to count an
// attempt; they never reach callers.
var (
	errUnhealthy         = errors.New("receiver unhealthy")
	errNotReceiversFault = errors.New("not the receiver's fault")
)

// verdict is what an attempt says about the receiver's health. The breaker
// exists to stop spending time on receivers that are down or overloaded, so
// only those signs count as failures: no answer, 5xx, 408 and 429. Any other
// answer, even a 4xx from a misconfigured endpoint, came back promptly from a
// live receiver. Refused addresses and cancellation by our caller say
// nothing about the receiver and are not counted at all.
func verdict(parent context.Context, res ports.WebhookResult) error {
	switch {
	case res.Err == nil:
		return nil
	case errors.Is(res.Err, ErrPrivateAddress), parent.Err() != nil:
		return errNotReceiversFault
	case res.Status == 0, res.Status >= 500, res.Status == http.StatusRequestTimeout, res.Status == http.StatusTooManyRequests:
		return errUnhealthy
	default:
		return nil
	}
}

func (s *Sender) circuitErr(rcv *receiver, cause error) error {
	if errors.Is(cause, gobreaker.ErrTooManyRequests) {
		return fmt.Errorf("%w: deliveries to %s kept failing; a trial delivery is in progress and others fail until it succeeds",
			ErrCircuitOpen, rcv.key)
	}
	wait := time.Until(time.Unix(0, rcv.openedAt.Load()).Add(s.cfg.BreakerCooldown))
	wait = max(wait, 0).Round(time.Second)
	return fmt.Errorf("%w: deliveries to %s kept failing; the next attempt is allowed in %s", ErrCircuitOpen, rcv.key, wait)
}

// acquire returns the receiver for key, creating it on first use, and pins
// it so prune cannot drop it (and with it the bound) while it is in use.
func (s *Sender) acquire(key string) *receiver {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if now.Sub(s.lastPrune) > time.Minute {
		s.prune(now)
	}
	rcv := s.receivers[key]
	if rcv == nil {
		rcv = s.newReceiver(key)
		s.receivers[key] = rcv
	}
	rcv.users++
	rcv.lastUsed = now
	return rcv
}

func (s *Sender) release(rcv *receiver) {
	s.mu.Lock()
	rcv.users--
	s.mu.Unlock()
}

// prune forgets receivers idle for a while. Forgetting an open breaker is
// harmless once its cooldown has passed: it would let a trial through anyway.
// Called with s.mu held.
func (s *Sender) prune(now time.Time) {
	s.lastPrune = now
	ttl := max(idleReceiverTTL, 2*s.cfg.BreakerCooldown)
	for key, rcv := range s.receivers {
		if rcv.users == 0 && now.Sub(rcv.lastUsed) > ttl {
			delete(s.receivers, key)
		}
	}
}

func (s *Sender) newReceiver(key string) *receiver {
	rcv := &receiver{key: key, slots: make(chan struct{}, s.cfg.MaxConcurrentPerReceiver)}
	threshold := s.cfg.BreakerFailures
	rcv.breaker = gobreaker.NewCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        key,
		MaxRequests: 1, // one trial request when half-open
		Timeout:     s.cfg.BreakerCooldown,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= threshold },
		IsExcluded:  func(err error) bool { return errors.Is(err, errNotReceiversFault) },
		OnStateChange: func(name string, from, to gobreaker.State) {
			if to == gobreaker.StateOpen {
				rcv.openedAt.Store(time.Now().UnixNano())
				s.log.Warn("webhook receiver circuit opened", "receiver", name, "from", from.String(), "cooldown", s.cfg.BreakerCooldown)
				return
			}
			s.log.Info("webhook receiver circuit changed", "receiver", name, "from", from.String(), "to", to.String())
		},
	})
	return rcv
}

// statusLine is "500 Internal Server Error", from our table rather than the
// receiver's reason phrase when the code is a known one.
func statusLine(resp *http.Response) string {
	if text := http.StatusText(resp.StatusCode); text != "" {
		return strconv.Itoa(resp.StatusCode) + " " + text
	}
	return clip(resp.Status, 60)
}

// clip makes untrusted text safe for one line of an error message: valid
// UTF-8, no control characters, whitespace collapsed, at most n bytes and
// never a broken character.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
