package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/blob"
	"github.com/hyscribe/hyscribe/domain"
)

func (e *env) put(path string, body io.Reader, length int64) response {
	e.t.Helper()
	h := header{"Content-Type": "audio/mpeg", "Content-Length": strconv.FormatInt(length, 10)}
	return e.do("PUT", path, h, body)
}

func (e *env) job(id string) domain.Job {
	e.t.Helper()
	j, err := e.store.GetJob(context.Background(), domain.DocID(id))
	if err != nil {
		e.t.Fatal(err)
	}
	return j
}

func (e *env) blob(key string) []byte {
	e.t.Helper()
	rc, err := e.blobs.Open(context.Background(), key)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

// withQuery rewrites one query parameter of an upload path.
func withQuery(path, name, value string) string {
	u, _ := url.Parse(path)
	q := u.Query()
	if value == "" {
		q.Del(name)
	} else {
		q.Set(name, value)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func TestUpload(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *options) { o.maxUpload = 1 << 20 })
	_, key := e.account(domain.PlanBusiness)
	id, path := e.newJob(key)
	audio := bytes.Repeat([]byte("\xff\xfb\x90\x64"), 10000)

	r := e.put(path, bytes.NewReader(audio), int64(len(audio)))
	if r.status != 200 || len(r.body) != 0 || r.header.Get("Content-Type") != "" {
		t.Fatalf("upload: %d %q (Content-Type %q), want 200 with an empty body", r.status, r.body, r.header.Get("Content-Type"))
	}
	j := e.job(id)
	if j.Status != domain.StatusProcessing || j.AudioBytes != int64(len(audio)) {
		t.Fatalf("job after upload: %s, %d bytes", j.Status, j.AudioBytes)
	}
	if !bytes.Equal(e.blob(j.BlobKey), audio) {
		t.Fatal("stored audio differs from the upload")
	}
	wantJob(t, e.poll(key, id).json(t), "processing")

	msg := e.put(path, bytes.NewReader(audio), int64(len(audio))).wantError(t, 409, "conflict")
	if !strings.Contains(msg, "already uploaded") {
		t.Fatalf("409 message %q", msg)
	}
}

func TestUploadRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *options) { o.maxUpload = 1 << 20 })
	_, key := e.account(domain.PlanBusiness)
	id, path := e.newJob(key)
	otherID, otherPath := e.newJob(key)
	u, _ := url.Parse(path)
	sig := u.Query().Get("signature")
	flipped := []byte(sig)
	if flipped[0] == '0' {
		flipped[0] = '1'
	} else {
		flipped[0] = '0'
	}
	exp, _ := strconv.ParseInt(u.Query().Get("expires"), 10, 64)
	audio := []byte("ID3 some mp3 bytes")

	forbidden := map[string]struct{ path, reason string }{
		"tampered signature":  {withQuery(path, "signature", string(flipped)), "does not match"},
		"another job's docId": {strings.Replace(path, id, otherID, 1), "does not match"},
		"later expires":       {withQuery(path, "expires", strconv.FormatInt(exp+3600, 10)), "does not match"},
		"missing signature":   {withQuery(path, "signature", ""), "signature"},
		"garbled signature":   {withQuery(path, "signature", strings.Repeat("z", 64)), "signature"},
		"missing expires":     {withQuery(path, "expires", ""), "expires"},
		"garbled expires":     {withQuery(path, "expires", "12ab"), "expires"},
		"negative expires":    {withQuery(path, "expires", "-5"), "expires"},
		"no query":            {"/upload/" + id, "expires"},
	}
	for name, c := range forbidden {
		t.Run(name, func(t *testing.T) {
			msg := e.put(c.path, bytes.NewReader(audio), int64(len(audio))).wantError(t, 403, "forbidden")
			if !strings.Contains(msg, c.reason) {
				t.Fatalf("message %q does not say %q", msg, c.reason)
			}
		})
	}
	// A valid signature for a job that does not exist.
	signer := blob.NewSigner(e.base, []byte("test secret, 32 bytes long......"))
	ghost := strings.TrimPrefix(signer.Sign("ghost", e.clock.Now().Add(time.Hour)), e.base)
	e.put(ghost, bytes.NewReader(audio), int64(len(audio))).wantError(t, 403, "forbidden")

	// Empty bodies, known length and chunked.
	e.put(path, bytes.NewReader(nil), 0).wantError(t, 400, "empty_body")
	e.put(path, onlyReader{strings.NewReader("")}, -1).wantError(t, 400, "empty_body")

	// Over the limit: by Content-Length (refused before reading) and
	// chunked (refused once the limit is passed). Neither leaves audio.
	big := bytes.Repeat([]byte{0xff}, 2<<20)
	msg := e.put(path, bytes.NewReader(big), int64(len(big))).wantError(t, 413, "too_large")
	if !strings.Contains(msg, "1 MiB") {
		t.Fatalf("413 message %q does not name the limit", msg)
	}
	e.put(path, onlyReader{strings.NewReader(string(big))}, -1).wantError(t, 413, "too_large")

	if j := e.job(id); j.Status != domain.StatusUploading || j.BlobKey != "" {
		t.Fatalf("refused uploads changed the job: %s %q", j.Status, j.BlobKey)
	}
	// Every refusal left the job uploadable.
	if r := e.put(path, bytes.NewReader(audio), int64(len(audio))); r.status != 200 {
		t.Fatalf("upload after refusals: %d %s", r.status, r.body)
	}

	// After the hour the address is dead.
	e.clock.Advance(time.Hour)
	msg = e.put(otherPath, bytes.NewReader(audio), int64(len(audio))).wantError(t, 403, "forbidden")
	if !strings.Contains(msg, "expired") {
		t.Fatalf("message %q does not say the address expired", msg)
	}
}

// rawRequest writes raw bytes on a new connection and returns it with a
// reader for the answers.
func (e *env) rawConn(t *testing.T) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(e.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	return c, bufio.NewReader(c)
}

func readResponse(t *testing.T, br *bufio.Reader) (*http.Response, []byte) {
	t.Helper()
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

func TestUploadCutShortStoresNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanBusiness)
	id, path := e.newJob(key)

	c, br := e.rawConn(t)
	_, _ = io.WriteString(c, "PUT "+path+" HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n"+strings.Repeat("a", 20000))
	_ = c.(*net.TCPConn).CloseWrite() // the client gives up mid-body
	res, body := readResponse(t, br)
	if res.StatusCode != 400 || !strings.Contains(string(body), "incomplete_upload") {
		t.Fatalf("cut-short upload: %d %s", res.StatusCode, body)
	}
	if j := e.job(id); j.Status != domain.StatusUploading {
		t.Fatalf("a partial upload moved the job to %s", j.Status)
	}
}

// patternReader yields n bytes of a repeating pattern without holding them.
type patternReader struct{ left int64 }

func (p *patternReader) Read(b []byte) (int, error) {
	if p.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > p.left {
		b = b[:p.left]
	}
	for i := range b {
		b[i] = byte(i*7 + 3)
	}
	p.left -= int64(len(b))
	return len(b), nil
}

// TestUploadStreams checks that an upload flows to disk without being held
// in memory: the process allocates far less than the file's size while the
// file crosses it, with a known length and chunked. The limit (128 MiB) is
// also far above fiber's default body limit (4 MiB), which must not apply.
func TestUploadStreams(t *testing.T) {
	e := newEnv(t, func(o *options) { o.maxUpload = 128 << 20 })
	_, key := e.account(domain.PlanBusiness)

	for _, c := range []struct {
		name    string
		size    int64
		chunked bool
	}{{"content-length", 64 << 20, false}, {"chunked", 32 << 20, true}} {
		t.Run(c.name, func(t *testing.T) {
			id, path := e.newJob(key)
			length := c.size
			if c.chunked {
				length = -1
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			r := e.put(path, &patternReader{left: c.size}, length)
			runtime.ReadMemStats(&after)
			if r.status != 200 {
				t.Fatalf("upload: %d %s", r.status, r.body)
			}
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d MiB upload: %.1f MiB allocated by client and server together", c.size>>20, float64(allocated)/(1<<20))
			if allocated > 8<<20 {
				t.Fatalf("allocated %d MiB to move a %d MiB upload: the body is being buffered", allocated>>20, c.size>>20)
			}
			j := e.job(id)
			if j.AudioBytes != c.size {
				t.Fatalf("stored %d bytes, want %d", j.AudioBytes, c.size)
			}
			rc, err := e.blobs.Open(context.Background(), j.BlobKey)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			got, want := sha256.New(), sha256.New()
			_, _ = io.Copy(got, rc)
			_, _ = io.Copy(want, &patternReader{left: c.size})
			if !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
				t.Fatal("stored bytes differ from the upload")
			}
		})
	}
}

// TestUnreadBodiesKeepConnectionsSane sends requests whose bodies the
// handler never reads, followed on the same connection by another request:
// the body must not be mistaken for the next request.
func TestUnreadBodiesKeepConnectionsSane(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	next := "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
	// The unread bodies are themselves requests, the worst case.
	smuggled := "DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
	for name, first := range map[string]string{
		"content-length": "POST /api/getTranscription HTTP/1.1\r\nHost: x\r\nContent-Length: " +
			strconv.Itoa(len(smuggled)) + "\r\n\r\n" + smuggled,
		"chunked": "POST /api/getTranscription HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
			strconv.FormatInt(int64(len(smuggled)), 16) + "\r\n" + smuggled + "\r\n0\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			c, br := e.rawConn(t)
			_, _ = io.WriteString(c, first+next)
			res, _ := readResponse(t, br)
			if res.StatusCode != 405 {
				t.Fatalf("first answer %d", res.StatusCode)
			}
			res, body := readResponse(t, br)
			if res.StatusCode != 200 || string(body) != `{"status":"ok"}` {
				t.Fatalf("second answer %d %s: the unread body was parsed as a request", res.StatusCode, body)
			}
		})
	}

	// A large unread body: the answer arrives intact, then the connection
	// closes instead of carrying on mid-body.
	c, br := e.rawConn(t)
	go func() {
		_, _ = io.WriteString(c, "POST /api/createTranscription HTTP/1.1\r\nHost: x\r\nContent-Length: 8388608\r\n\r\n")
		_, _ = io.Copy(c, &patternReader{left: 8 << 20})
	}()
	res, body := readResponse(t, br)
	if res.StatusCode != 401 || !res.Close || !strings.Contains(string(body), "unauthorized") {
		t.Fatalf("answer %d close=%v %s", res.StatusCode, res.Close, body)
	}
	if _, err := br.ReadByte(); err == nil {
		t.Fatal("the connection carried on after a large unread body")
	}
}

func FuzzParseUploadQuery(f *testing.F) {
	f.Add("1740830400", strings.Repeat("ab", 32))
	f.Add("", "")
	f.Add("-1", "zz")
	f.Add("999999999999999999999", strings.Repeat("A", 64))
	f.Fuzz(func(t *testing.T, expires, signature string) {
		exp, sig, err := parseUploadQuery(expires, signature)
		if err != nil {
			if !strings.Contains(err.Error(), "upload address") {
				t.Fatalf("unreadable refusal %q", err)
			}
			return
		}
		if n, perr := strconv.ParseUint(expires, 10, 64); perr != nil || len(expires) > maxExpiresDigits || exp.Unix() != int64(n) {
			t.Fatalf("expires %q accepted as %d", expires, exp.Unix())
		}
		if len(sig) != 64 {
			t.Fatalf("accepted signature %q", sig)
		}
	})
}

// TestUnparsableRequestsGetJSON covers the answers fasthttp gives before any
// route runs: they go through the same error writer.
func TestUnparsableRequestsGetJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for name, c := range map[string]struct {
		raw    string
		status int
	}{
		"oversized header":  {"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 10000) + "\r\n\r\n", 431},
		"no request target": {"GET\r\n\r\n", 400},
		"odd method":        {"\x01\x02 nonsense\r\n\r\n", 400}, // fasthttp ≥ 1.5x refuses a method that is not a token
		"bad chunked body":  {"PUT /upload/x?expires=1&signature=y HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 403},
	} {
		t.Run(name, func(t *testing.T) {
			conn, br := e.rawConn(t)
			_, _ = io.WriteString(conn, c.raw)
			res, body := readResponse(t, br)
			if res.StatusCode != c.status || res.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("%d %q %s", res.StatusCode, res.Header.Get("Content-Type"), body)
			}
			var m map[string]string
			if err := json.Unmarshal(body, &m); err != nil || m["error"] == "" || m["code"] == "" {
				t.Fatalf("body %s", body)
			}
		})
	}
}
