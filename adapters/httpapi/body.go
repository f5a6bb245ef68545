package httpapi

import (
	"bufio"
	"io"
	"net"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// With StreamRequestBody, fasthttp hands the handler the connection's reader
// and, after the response, parses the next request from wherever the
// handler stopped reading. A body left unread (a 401 before reading the JSON,
// a 413 or 403 before reading an upload) would be parsed as the next request.
// guardConn closes that gap: it finishes every body after the handler, by
// reading the rest when it is small, or by closing the connection when it is
// not.
//
// It also answers methods fiber does not know (fiber would reply with a
// plain-text 400 before any middleware runs).

type bodyKeyType struct{}

// bodyKey is where the request's *requestBody waits in the fasthttp user values.
var bodyKey bodyKeyType

const (
	// drainLimit is how much unread body is read and discarded to keep a
	// connection alive (net/http reads 256 KiB likewise).
	drainLimit = 256 << 10
	// drainTimeout bounds that reading: a stalled client is not worth a
	// goroutine.
	drainTimeout = 2 * time.Second
	// lingerTimeout and lingerLimit bound the reading after the response
	// when the connection is closed with body bytes still arriving.
	lingerTimeout = time.Second
	lingerLimit   = 64 << 20
)

// requestBody reads a streamed request body and remembers how it ended, so
// the body is never read past its end (reading a finished chunked stream
// again would consume the next request) and a body cut short is an error,
// never a silently shorter upload.
type requestBody struct {
	r    io.Reader
	want int64 // Content-Length; -1 when chunked
	n    int64
	eof  bool
	err  error
}

func newRequestBody(r io.Reader, contentLength int) *requestBody {
	want := int64(contentLength)
	if want < 0 {
		want = -1
	}
	return &requestBody{r: r, want: want}
}

func (b *requestBody) Read(p []byte) (int, error) {
	switch {
	case b.eof:
		return 0, io.EOF
	case b.err != nil:
		return 0, b.err
	case b.r == nil:
		b.eof = true
		return 0, io.EOF
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	switch {
	case err == io.EOF && b.want >= 0 && b.n < b.want:
		// fasthttp reports a connection closed mid-body as a plain EOF.
		err = io.ErrUnexpectedEOF
		b.err = err
	case err == io.EOF:
		b.eof = true
	case err != nil:
		b.err = err
	}
	return n, err
}

// drain reads and discards up to limit bytes and reports whether the body
// ended within them.
func (b *requestBody) drain(limit int64) bool {
	_, _ = io.CopyN(io.Discard, b, limit+1)
	return b.eof
}

// bodyOf returns the request's body reader (empty when there is none).
func bodyOf(c *fiber.Ctx) *requestBody {
	if b, ok := c.Locals(bodyKey).(*requestBody); ok {
		return b
	}
	return &requestBody{eof: true}
}

// guardConn wraps fiber's fasthttp handler.
func (s *server) guardConn(next fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		var body *requestBody
		if st := ctx.RequestBodyStream(); st != nil {
			body = newRequestBody(st, ctx.Request.Header.ContentLength())
			ctx.SetUserValue(bodyKey, body)
		}
		refused := s.refused.has(&ctx.Request.Header)
		if knownMethod(string(ctx.Method())) {
			next(ctx)
		} else {
			s.unknownMethod(ctx)
		}
		if refused {
			// Screened out with its body unread (screen.go): answer, close.
			s.refused.clear(&ctx.Request.Header)
			lingerClose(ctx)
			return
		}
		// A handler that called c.Body() made fasthttp read the stream to
		// its end and release it; it must not be touched again.
		if body == nil || body.eof || ctx.RequestBodyStream() != body.r {
			return
		}
		if body.err == nil {
			_ = ctx.Conn().SetReadDeadline(time.Now().Add(drainTimeout))
			if body.drain(drainLimit) {
				return // the next request starts right after this body
			}
		}
		lingerClose(ctx)
	}
}

// lingerClose answers and closes the connection while the client may still
// be sending the body. Closing a socket with unread data makes the kernel
// send a reset, which can destroy the response before the client reads it;
// so the response is written, the sending side shut, and the incoming bytes
// read and dropped for a moment (what web servers call a lingering close).
func lingerClose(ctx *fasthttp.RequestCtx) {
	ctx.Response.Header.SetConnectionClose()
	// fasthttp does not write the response of a "no response" hijack; we do,
	// then linger. (With a normal hijack fasthttp would stop at "Connection:
	// close" and never call the hijack handler.)
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(c net.Conn) {
		_ = c.SetWriteDeadline(time.Now().Add(lingerTimeout * 10))
		bw := bufio.NewWriter(c)
		if err := ctx.Response.Write(bw); err != nil || bw.Flush() != nil {
			return
		}
		raw := c
		if u, ok := c.(interface{ UnsafeConn() net.Conn }); ok {
			raw = u.UnsafeConn()
		}
		if cw, ok := raw.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		_ = c.SetReadDeadline(time.Now().Add(lingerTimeout))
		_, _ = io.CopyN(io.Discard, c, lingerLimit)
		// fasthttp closes the connection when this returns.
	})
}

// unknownMethod answers a method fiber cannot route, in JSON like
// everything else: 405 on a served path, 404 elsewhere.
func (s *server) unknownMethod(ctx *fasthttp.RequestCtx) {
	start := time.Now()
	path := string(ctx.Path())
	allow := s.allowFor(path)
	e := &httpError{status: fiber.StatusNotFound, code: "not_found", msg: noRouteMessage(string(ctx.Method()), path)}
	if allow != "" {
		ctx.Response.Header.Set(fiber.HeaderAllow, allow)
		e = methodError(string(ctx.Method()), path, allow)
	}
	ctx.Response.Header.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	ctx.Response.Header.Set(fiber.HeaderCacheControl, "no-store")
	ctx.SetStatusCode(e.status)
	ctx.SetContentType(fiber.MIMEApplicationJSON)
	ctx.SetBody(errorJSON(e.msg, e.code))
	s.record(s.routeLabel(path), "OTHER", e.status, time.Since(start))
}
