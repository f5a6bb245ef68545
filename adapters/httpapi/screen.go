package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// Requests are screened when their headers have arrived, before fasthttp
// reads any of the body (docs/security.md):
//
//   - A request whose length is ambiguous (Content-Length beside
//     Transfer-Encoding, or two different Content-Lengths) is refused with
//     400: front proxies may frame such a request differently, and the bytes
//     after the one body are another request to one of them but not to the
//     other (request smuggling).
//   - An upload PUT is checked from its address and headers alone (signature,
//     expiry, job state, declared size) and a refusal is answered at once:
//     fasthttp would otherwise wait for the first 8 KiB of the body, under
//     the upload's long read deadline, before any handler ran.
//
// A refused request is given a zero length, so that fasthttp reads no body,
// routed like any other, answered with the refusal by observe, and its
// connection closed after the answer (lingerClose): whatever the client
// sends after the headers is never read as a request.

// refusals holds, per request (its header, which fasthttp reuses for the
// next request on the connection, so every screening clears it first), the
// error a screened request is answered with.
type refusals struct{ m sync.Map }

func (r *refusals) set(h *fasthttp.RequestHeader, err error) { r.m.Store(h, err) }
func (r *refusals) clear(h *fasthttp.RequestHeader)          { r.m.Delete(h) }
func (r *refusals) has(h *fasthttp.RequestHeader) bool {
	_, ok := r.m.Load(h)
	return ok
}

func (r *refusals) take(h *fasthttp.RequestHeader) error {
	if v, ok := r.m.LoadAndDelete(h); ok {
		return v.(error)
	}
	return nil
}

// headerReceived screens a request. An upload PUT that passes gets the
// read deadline of one rate window (the client must make progress); every
// other request keeps ReadTimeout, so a slow client cannot hold a
// connection open by trickling a small body.
func (s *server) headerReceived(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	s.refused.clear(h)
	if err := framingError(h.RawHeaders()); err != nil {
		s.refuse(h, err)
		return fasthttp.RequestConfig{}
	}
	if string(h.Method()) != fiber.MethodPut || !bytes.HasPrefix(h.RequestURI(), []byte(uploadPrefix)) {
		return fasthttp.RequestConfig{}
	}
	var u fasthttp.URI
	if err := u.Parse(nil, h.RequestURI()); err != nil {
		return fasthttp.RequestConfig{}
	}
	id := strings.TrimPrefix(string(u.PathOriginal()), uploadPrefix)
	if id == "" || strings.Contains(id, "/") {
		return fasthttp.RequestConfig{} // no such route: 404 as usual
	}
	expires, signature, err := parseUploadQuery(string(u.QueryArgs().Peek("expires")), string(u.QueryArgs().Peek("signature")))
	if err == nil {
		// The store lookup has the deadline of any request's store work.
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.RequestTimeout)
		err = s.commands.ReceiveUpload.Check(ctx, app.UploadRequest{DocID: domain.DocID(id), Expires: expires, Signature: signature,
			ContentLength: uploadLength(h)})
		cancel()
	}
	if err != nil {
		s.refuse(h, err)
		return fasthttp.RequestConfig{}
	}
	return fasthttp.RequestConfig{ReadTimeout: s.cfg.UploadRateWindow}
}

func (s *server) refuse(h *fasthttp.RequestHeader, err error) {
	h.SetContentLength(0)
	h.SetConnectionClose()
	s.refused.set(h, err)
}

// uploadLength is the declared length of an upload, -1 when chunked.
func uploadLength(h *fasthttp.RequestHeader) int64 {
	return max(int64(h.ContentLength()), -1)
}

var errAmbiguousLength = domain.Invalid("ambiguous_length",
	"the request's length is ambiguous: send either one Content-Length or Transfer-Encoding: chunked, not both, and Content-Length once")

// framingError refuses headers that give a request two lengths: a
// Content-Length beside a Transfer-Encoding, or Content-Lengths that differ
// (RFC 9112 §6.3). fasthttp itself refuses a repeated Content-Length, even an
// agreeing one, before this runs (classify answers it as ambiguous_length).
func framingError(raw []byte) error {
	var length []byte
	lengths, encodings := 0, 0
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		name, value, ok := bytes.Cut(bytes.TrimRight(line, "\r"), []byte(":"))
		if !ok {
			continue
		}
		value = bytes.TrimSpace(value)
		switch {
		case asciiEqualFold(bytes.TrimSpace(name), fiber.HeaderContentLength):
			if lengths > 0 && !bytes.Equal(value, length) {
				return errAmbiguousLength
			}
			length = value
			lengths++
		case asciiEqualFold(bytes.TrimSpace(name), fiber.HeaderTransferEncoding):
			encodings++
		}
	}
	if lengths > 0 && encodings > 0 {
		return errAmbiguousLength
	}
	return nil
}

// asciiEqualFold compares a header name the way HTTP does: ASCII letters
// without case, nothing else (bytes.EqualFold would also fold "ſ" to "s").
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// slots bounds the requests of one kind that one client address (uploads)
// or one API key (lists and exports) has in progress at once.
type slots struct {
	mu    sync.Mutex
	inUse map[string]int
}

// acquire takes a slot for ip, or reports false when ip has limit already.
func (u *slots) acquire(ip string, limit int) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.inUse == nil {
		u.inUse = map[string]int{}
	}
	if u.inUse[ip] >= limit {
		return false
	}
	u.inUse[ip]++
	return true
}

func (u *slots) release(ip string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.inUse[ip]--; u.inUse[ip] <= 0 {
		delete(u.inUse, ip)
	}
}

// tooManyHeavy refuses a list or export while the key has limit of them
// in progress.
func tooManyHeavy(c *fiber.Ctx, limit int) error {
	c.Set(fiber.HeaderRetryAfter, "1")
	return &httpError{status: fiber.StatusTooManyRequests, code: "too_many_in_progress",
		msg: fmt.Sprintf("this API key already has %d listTranscriptions or exportTranscription requests in progress; wait for one to finish", limit)}
}

func tooManyUploads(c *fiber.Ctx, limit int) error {
	c.Set(fiber.HeaderRetryAfter, "10")
	return &httpError{status: fiber.StatusTooManyRequests, code: "too_many_uploads",
		msg: fmt.Sprintf("this address already has %d uploads in progress; wait for one to finish", limit)}
}

// errAbandoned marks a body the handler refused unread: guardConn closes
// the connection after the answer instead of reading the rest.
var errAbandoned = errors.New("request body abandoned")

func (b *requestBody) abandon() {
	if !b.eof && b.err == nil {
		b.err = errAbandoned
	}
}

// errTooSlow ends an upload that fell below the minimum transfer rate.
var errTooSlow = errors.New("upload slower than the minimum transfer rate")

// pacedBody reads an upload's body while it makes progress: in every window
// at least minBytes must arrive, and the whole upload must end by the
// deadline. A client that stalls is cut off at the end of the window (the
// connection's read deadline), one that trickles at the window's end; the
// long upload timeout is only for uploads that keep moving.
type pacedBody struct {
	r         io.Reader
	conn      net.Conn
	window    time.Duration
	minBytes  int64
	deadline  time.Time
	windowEnd time.Time
	got       int64 // bytes in the current window
	err       error
}

func newPacedBody(r io.Reader, conn net.Conn, window time.Duration, minRate int64, total time.Duration) *pacedBody {
	now := time.Now()
	return &pacedBody{r: r, conn: conn, window: window, minBytes: minRate * int64(window/time.Second),
		deadline: now.Add(total), windowEnd: now.Add(window)}
}

func (p *pacedBody) Read(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	now := time.Now()
	if !now.Before(p.windowEnd) {
		if p.got < p.minBytes {
			p.err = errTooSlow
			return 0, p.err
		}
		p.got, p.windowEnd = 0, now.Add(p.window)
	}
	if p.conn != nil {
		d := p.windowEnd
		if p.deadline.Before(d) {
			d = p.deadline
		}
		_ = p.conn.SetReadDeadline(d)
	}
	n, err := p.r.Read(b)
	p.got += int64(n)
	return n, err
}
