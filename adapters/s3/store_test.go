package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
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
