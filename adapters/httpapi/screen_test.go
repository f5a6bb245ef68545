package httpapi

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// answeredAndClosed reads one answer and then expects the server to close
// the connection: nothing the client sent after the headers may be read as
// another request.
func answeredAndClosed(t *testing.T, br *bufio.Reader, status int, code string) {
	t.Helper()
	res, body := readResponse(t, br)
	if res.StatusCode != status || !strings.Contains(string(body), `"code":"`+code+`"`) || !res.Close {
		t.Fatalf("answer %d close=%v %s, want %d %s and Connection: close", res.StatusCode, res.Close, body, status, code)
	}
	if res, err := http1Next(br); err == nil {
		t.Fatalf("a second answer on the same connection: %s", res)
	}
}

func http1Next(br *bufio.Reader) (string, error) {
	line, err := br.ReadString('\n')
	return line, err
}

// TestAmbiguousLengthsAreRefused sends requests whose length two servers
// could read differently, with a second request hidden after the first
// body: the answer is a 400 and the connection is closed, so the hidden
// request is never served.
func TestAmbiguousLengthsAreRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	hidden := "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
	for name, raw := range map[string]string{
		"content-length then chunked": "POST /api/createTranscription HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + hidden,
		"chunked then content-length": "POST /api/createTranscription HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: " +
			strconv.Itoa(5+len(hidden)) + "\r\n\r\n0\r\n\r\n" + hidden,
		"two content-lengths":      "POST /api/createTranscription HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 60\r\n\r\n{}",
		"two, one of them chunked": "PUT /upload/x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\ncontent-length: 0\r\n\r\n0\r\n\r\n" + hidden,
		"an unknown method":        "BREW /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			c, br := e.rawConn(t)
			_, _ = io.WriteString(c, raw)
			res, body := readResponse(t, br)
			if res.StatusCode/100 != 4 || !res.Close {
				t.Fatalf("answer %d close=%v %s, want a 4xx and Connection: close", res.StatusCode, res.Close, body)
			}
			if name != "an unknown method" && !strings.Contains(string(body), `"code":"ambiguous_length"`) {
				t.Fatalf("answer %d %s, want ambiguous_length", res.StatusCode, body)
			}
			if line, err := http1Next(br); err == nil {
				t.Fatalf("a second answer on the same connection: %q", line)
			}
		})
	}
	t.Run("the same content-length twice", func(t *testing.T) {
		// fasthttp refuses a repeated Content-Length even when both agree
		// (RFC 9112 §6.3 allows either); it is answered as ambiguous too.
		c, br := e.rawConn(t)
		_, _ = io.WriteString(c, "POST /api/createTranscription HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}"+hidden)
		answeredAndClosed(t, br, 400, "ambiguous_length")
	})
}

// TestRefusedUploadsAreAnsweredAtOnce sends upload PUT headers that declare
// a body and never send it: every refusal the address and headers decide
// is answered without waiting for the body, and the connection is closed.
// Before, the server waited for the body under the one-hour upload timeout.
func TestRefusedUploadsAreAnsweredAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *options) { o.maxUpload = 1 << 20 })
	_, key := e.account(domain.PlanBusiness)
	_, path := e.newJob(key)
	_, expired := e.newJob(key)
	e.clock.Advance(2 * time.Hour) // every address but those made below has expired
	_, fresh := e.newJob(key)
	_, done := e.newJob(key)
	if r := e.put(done, strings.NewReader("ID3 audio"), 9); r.status != 200 {
		t.Fatalf("upload: %d", r.status)
	}
	tampered := withQuery(path, "signature", strings.Repeat("0", 64))
	for name, c := range map[string]struct {
		path, length string
		status       int
		code         string
	}{
		"bad signature":    {tampered, "1000000", 403, "forbidden"},
		"expired":          {expired, "1000000", 403, "forbidden"},
		"already uploaded": {done, "1000000", 409, "conflict"},
		"too large":        {fresh, strconv.Itoa(2 << 20), 413, "too_large"},
		"chunked, refused": {tampered, "", 403, "forbidden"},
	} {
		t.Run(name, func(t *testing.T) {
			conn, br := e.rawConn(t)
			framing := "Content-Length: " + c.length
			if c.length == "" {
				framing = "Transfer-Encoding: chunked"
			}
			_, _ = io.WriteString(conn, "PUT "+c.path+" HTTP/1.1\r\nHost: x\r\n"+framing+"\r\n\r\n")
			answeredAndClosed(t, br, c.status, c.code)
		})
	}
}

// TestStalledUploadIsCutOff starts an authorised upload and stops sending:
// it is ended at the end of the rate window, not after the upload timeout,
// and the job still waits for its audio.
func TestStalledUploadIsCutOff(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *options) {
		o.cfg.UploadRateWindow, o.cfg.UploadMinRate = time.Second, 1024
	})
	_, key := e.account(domain.PlanBusiness)
	id, path := e.newJob(key)
	for name, sent := range map[string]int{"before the first bytes": 0, "after some": 20000} {
		t.Run(name, func(t *testing.T) {
			conn, br := e.rawConn(t) // its deadline (20 s) is far below the upload timeout (1 h)
			_, _ = io.WriteString(conn, "PUT "+path+" HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n"+strings.Repeat("a", sent))
			res, err := readOrClosed(br)
			if err == nil && res != 400 && res != 408 {
				t.Fatalf("stalled upload answered %d, want 400 or 408, or a closed connection", res)
			}
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("the stalled upload still held the connection when the client gave up")
			}
		})
	}
	if j := e.job(id); j.Status != domain.StatusUploading || j.BlobKey != "" {
		t.Fatalf("job after stalled uploads: %s %q", j.Status, j.BlobKey)
	}
}

// readOrClosed reads one answer's status, or the error that ended the read.
func readOrClosed(br *bufio.Reader) (int, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return 0, err
	}
	f := strings.Fields(line)
	if len(f) < 2 {
		return 0, io.ErrUnexpectedEOF
	}
	return strconv.Atoi(f[1])
}

// TestUploadsPerClientAddressAreBounded holds two authorised uploads open
// from one address: a third from it is refused with 429 and Retry-After.
func TestUploadsPerClientAddressAreBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *options) { o.cfg.UploadsPerClient = 2 })
	_, key := e.account(domain.PlanBusiness)
	open := func(path string) (net.Conn, *bufio.Reader) {
		conn, br := e.rawConn(t)
		// More than fasthttp's 8 KiB prefetch, so the handler runs and
		// holds its slot while the rest is awaited.
		_, _ = io.WriteString(conn, "PUT "+path+" HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n"+strings.Repeat("a", 64<<10))
		return conn, br
	}
	for range 2 {
		_, path := e.newJob(key)
		open(path)
	}
	_, third := e.newJob(key)
	deadline := time.Now().Add(15 * time.Second)
	for {
		conn, br := open(third)
		_ = conn.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		res, err := http1Next(br)
		if err == nil && strings.Contains(res, " 429 ") {
			rest, _ := io.ReadAll(io.LimitReader(br, 4096))
			if !strings.Contains(string(rest), "Retry-After:") || !strings.Contains(string(rest), "too_many_uploads") {
				t.Fatalf("429 without Retry-After or its code: %s", rest)
			}
			return
		}
		conn.Close() // the two held ones may not have reached the handler yet
		if time.Now().After(deadline) {
			t.Fatalf("a third concurrent upload from one address was not refused (last: %q, %v)", res, err)
		}
	}
}
