package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/adapters/asr"
	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/kafka"
	"github.com/hyscribe/hyscribe/adapters/s3"
	"github.com/hyscribe/hyscribe/adapters/s3/s3test"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

type env struct {
	brokers []string
	minio   *s3test.Server
	store   *s3.Store
}

// setup starts a Kafka cluster and a MinIO that notifies it, and opens a
// bucket whose uploads are announced there.
func setup(t *testing.T, now func() time.Time) *env {
	t.Helper()
	k, err := kafka.StartEmbedded("127.0.0.1:0", "", 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Close)
	e := &env{brokers: k.Addrs()}
	e.minio = s3test.Start(t, e.brokers, "")
	e.store, err = s3.New(s3.Config{Endpoint: e.minio.Endpoint, Bucket: "uploads", AccessKey: e.minio.AccessKey, SecretKey: e.minio.SecretKey, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.store.EnsureBucket(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.store.EnsureBucket(ctx); err != nil { // idempotent
		t.Fatal(err)
	}
	if err := e.store.EnableUploadNotifications(ctx, e.minio.ARN); err != nil {
		t.Fatal(err)
	}
	return e
}

func put(t *testing.T, rawURL string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, rawURL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/octet-stream") // any Content-Type is accepted
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// notifications reads n storage notifications as the uploads stage does.
func notifications(t *testing.T, brokers []string, bucket string, n int) []domain.Event {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(domain.TopicStorageEvents),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out []domain.Event
	for len(out) < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%d of %d notifications after 30s", len(out), n)
		}
		fs.EachRecord(func(r *kgo.Record) {
			ev, err := s3.EventParser{Bucket: bucket}.Parse(r.Topic, r.Value)
			if err != nil {
				t.Fatalf("notification %s: %v", r.Value, err)
			}
			out = append(out, ev)
		})
	}
	return out
}

func TestPresignedPutIsStoredAndAnnounced(t *testing.T) {
	e := setup(t, nil)
	ctx := context.Background()
	audio := bytes.Repeat([]byte("ID3 mp3 "), 5000)
	u, err := e.store.SignUpload(ctx, "Doc_-1", time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(u, "http://"+e.minio.Endpoint+"/uploads/audio/Doc_-1.mp3?") || !strings.Contains(u, "X-Amz-Expires=3600") {
		t.Fatalf("upload URL %s", u)
	}
	if code, body := put(t, u, audio); code != http.StatusOK {
		t.Fatalf("PUT = %d %s", code, body)
	}
	ev := notifications(t, e.brokers, "uploads", 1)[0]
	var d domain.ObjectCreatedData
	if err := ev.DecodeData(&d); err != nil {
		t.Fatal(err)
	}
	if ev.Type != domain.EventTypeObjectCreated || ev.DocID != "Doc_-1" || d.Key != s3.AudioKey("Doc_-1") || d.Size != int64(len(audio)) {
		t.Fatalf("notification %+v %+v", ev, d)
	}
	rc, err := e.store.Open(ctx, d.Key)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Equal(got, audio) {
		t.Fatalf("stored %d bytes, uploaded %d", len(got), len(audio))
	}
	// The same address again: the store takes it (a pre-signed PUT cannot
	// refuse a second upload) and announces it with the same key, which the
	// uploads stage ignores for a job already past uploading.
	if code, _ := put(t, u, audio[:10]); code != http.StatusOK {
		t.Fatalf("second PUT = %d", code)
	}
	evs := notifications(t, e.brokers, "uploads", 2)
	if evs[1].DocID != "Doc_-1" || evs[1].ID == evs[0].ID {
		t.Fatalf("second notification %+v", evs[1])
	}
}

func TestTamperedOrExpiredAddressIsRefusedByTheStore(t *testing.T) {
	e := setup(t, nil)
	ctx := context.Background()
	good, err := e.store.SignUpload(ctx, "doc1", time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	tamper := func(f func(u *url.URL, q url.Values)) string {
		u, _ := url.Parse(good)
		q := u.Query()
		f(u, q)
		u.RawQuery = q.Encode()
		return u.String()
	}
	for name, u := range map[string]string{
		"signature changed": tamper(func(_ *url.URL, q url.Values) {
			s := []byte(q.Get("X-Amz-Signature"))
			s[0] ^= 1
			q.Set("X-Amz-Signature", string(s))
		}),
		"other job":       tamper(func(u *url.URL, _ url.Values) { u.Path = strings.Replace(u.Path, "doc1", "doc2", 1) }),
		"longer validity": tamper(func(_ *url.URL, q url.Values) { q.Set("X-Amz-Expires", "7200") }),
	} {
		if code, body := put(t, u, []byte("audio")); code != http.StatusForbidden {
			t.Errorf("%s: PUT = %d %s, want 403", name, code, body)
		}
	}
	// Without a signature the request is malformed rather than forged:
	// S3 (and MinIO) answer 400 AuthorizationQueryParametersError.
	if code, body := put(t, tamper(func(_ *url.URL, q url.Values) { q.Del("X-Amz-Signature") }), []byte("audio")); code != http.StatusBadRequest {
		t.Errorf("no signature: PUT = %d %s, want 400", code, body)
	}

	short, err := e.store.SignUpload(ctx, "doc3", time.Now().Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	// Time is the premise: MinIO checks expiry against its own clock, which
	// no fake can move, and signed expiries are whole seconds.
	time.Sleep(2100 * time.Millisecond)
	if code, body := put(t, short, []byte("audio")); code != http.StatusForbidden || !strings.Contains(body, "expired") {
		t.Errorf("expired address: PUT = %d %s, want 403 (expired)", code, body)
	}
	for _, k := range []string{"doc1", "doc2", "doc3"} {
		if _, err := e.store.Open(ctx, s3.AudioKey(domain.DocID(k))); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("%s: refused upload stored? Open = %v", k, err)
		}
	}
}

func TestStoreAsBlobStore(t *testing.T) {
	e := setup(t, nil)
	ctx := context.Background()
	s := e.store
	if n, err := s.Put(ctx, "audio/x/1.mp3", strings.NewReader("hello"), 5); err != nil || n != 5 {
		t.Fatalf("Put = %d, %v", n, err)
	}
	if _, err := s.Put(ctx, "audio/x/2.mp3", strings.NewReader("hello!"), 5); !errors.Is(err, domain.ErrTooLarge) {
		t.Fatalf("Put over the limit = %v, want ErrTooLarge", err)
	}
	if _, err := s.Open(ctx, "audio/x/2.mp3"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("an upload over the limit was kept: %v", err)
	}
	rc, err := s.Open(ctx, "audio/x/1.mp3")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if string(b) != "hello" || rc.Size() != 5 {
		t.Fatalf("read %q, size %d", b, rc.Size())
	}
	if err := s.Delete(ctx, "audio/x/1.mp3"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "audio/x/1.mp3"); err != nil {
		t.Fatalf("deleting an absent key: %v", err)
	}
	if _, err := s.Open(ctx, "audio/x/1.mp3"); !errors.Is(err, domain.ErrNotFound) || !strings.Contains(err.Error(), "s3://uploads/audio/x/1.mp3") {
		t.Fatalf("Open after Delete = %v, want ErrNotFound naming the object", err)
	}
	if err := s.VerifyUpload("x", time.Now().Add(time.Hour), "sig", time.Now()); !errors.Is(err, domain.ErrForbidden) {
		t.Fatalf("VerifyUpload = %v, want ErrForbidden", err)
	}
}

// TestObjectGoesToTheEngineWithItsLength sends audio read from the bucket to
// an engine that, like some engines and the proxies in front of them,
// refuses a body without a Content-Length.
func TestObjectGoesToTheEngineWithItsLength(t *testing.T) {
	e := setup(t, nil)
	ctx := t.Context()
	audio := asrtest.WAV(16000, 1, 2, asrtest.Tone{Start: 0.5, End: 1.0})
	if _, err := e.store.Put(ctx, "audio/doc.mp3", bytes.NewReader(audio), 0); err != nil {
		t.Fatal(err)
	}
	engine := asrtest.NewEngine(t, asrtest.WithLengthRequired())
	c, err := asr.New(asr.Config{BaseURL: engine.URL(), MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	open := func() (io.ReadCloser, error) { return e.store.Open(ctx, "audio/doc.mp3") }
	if _, err := c.Recognize(ctx, ports.AudioFile{Name: "audio.wav", Open: open}); err != nil {
		t.Fatalf("an engine that refuses chunked bodies: %v", err)
	}
	req := engine.LastRequest()
	if engine.Chunked() != 0 || req.ContentLength <= int64(len(audio)) || req.FileSize != int64(len(audio)) || req.FileSHA256 == "" {
		t.Errorf("engine got Content-Length %d (%d chunked), a %d-byte file; want the length of a form around %d bytes", req.ContentLength, engine.Chunked(), req.FileSize, len(audio))
	}
}

// TestUploadNotificationsWaitForTheTarget: MinIO says it is ready before it
// has registered its notification targets (seen: a `hyscribe api` started
// then exited with "A specified destination ARN does not exist"; 5 s later
// it started). Here the store first answers without the target and then,
// behind the same address, with it: a proxy switches from a MinIO without
// target LATE to one with it, both real. A caller that may not wait gets
// MinIO's error, one with a 1 s bound a clear one after it, and one with the
// default bound waits, logging each retry, and subscribes the bucket once
// the target exists; its uploads are then announced.
func TestUploadNotificationsWaitForTheTarget(t *testing.T) {
	k, err := kafka.StartEmbedded("127.0.0.1:0", "", 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Close)
	without := s3test.Start(t, k.Addrs(), "")
	with := s3test.Start(t, k.Addrs(), "", "LATE")
	const lateARN = "arn:minio:sqs::LATE:kafka"
	p := newSwitchProxy(t, without.Endpoint)
	var logs s3test.Buffer
	open := func(endpoint string, wait time.Duration) *s3.Store {
		st, err := s3.New(s3.Config{Endpoint: endpoint, Bucket: "uploads", AccessKey: with.AccessKey, SecretKey: with.SecretKey,
			TargetWait: wait, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, endpoint := range []string{without.Endpoint, with.Endpoint} {
		if err := open(endpoint, -1).EnsureBucket(ctx); err != nil {
			t.Fatal(err)
		}
	}

	err = open(p.addr, -1).EnableUploadNotifications(ctx, lateARN)
	if !s3.IsUnknownTarget(err) {
		t.Fatalf("without the target MinIO answered %v; want its \"destination ARN does not exist\"", err)
	}
	err = open(p.addr, time.Second).EnableUploadNotifications(ctx, lateARN)
	if !s3.IsUnknownTarget(err) || !strings.Contains(err.Error(), "had not registered the target after") {
		t.Fatalf("with a 1s bound: %v", err)
	}

	retries := func() int { return strings.Count(logs.String(), "has not registered the notification target yet") }
	before := retries()
	done := make(chan error, 1)
	go func() { done <- open(p.addr, 0).EnableUploadNotifications(ctx, lateARN) }()
	for retries() < before+2 {
		select {
		case err := <-done:
			t.Fatalf("returned %v while the target was missing", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	p.switchTo(with.Endpoint)
	if err := <-done; err != nil {
		t.Fatalf("once the target existed: %v\n%s", err, logs.String())
	}
	t.Logf("waited:\n%s", logs.String())

	u, err := open(with.Endpoint, 0).SignUpload(ctx, "late-target", time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if code, body := put(t, u, []byte("ID3 late")); code != http.StatusOK {
		t.Fatalf("PUT: %d %s", code, body)
	}
	if evs := notifications(t, k.Addrs(), "uploads", 1); evs[0].DocID != "late-target" {
		t.Fatalf("notification %+v", evs[0])
	}
}

// switchProxy forwards TCP connections to one address, then, after
// switchTo, to another, closing the connections it forwarded before.
type switchProxy struct {
	addr  string
	mu    sync.Mutex
	to    string
	conns []net.Conn
}

func newSwitchProxy(t *testing.T, to string) *switchProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &switchProxy{addr: ln.Addr().String(), to: to}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			to := p.to
			p.conns = append(p.conns, c)
			p.mu.Unlock()
			go func() {
				defer c.Close()
				s, err := net.Dial("tcp", to)
				if err != nil {
					return
				}
				defer s.Close()
				go func() { io.Copy(s, c); s.Close() }()
				io.Copy(c, s)
			}()
		}
	}()
	return p
}

func (p *switchProxy) switchTo(to string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.to = to
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
