package asr_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/asr"
	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/eventually"
	"github.com/hyscribe/hyscribe/ports"
)

// newClient returns a client of url that retries quickly.
func newClient(t *testing.T, url string, change ...func(*asr.Config)) *asr.Client {
	t.Helper()
	cfg := asr.Config{BaseURL: url, BackoffBase: time.Millisecond, MaxBackoff: 5 * time.Millisecond}
	for _, c := range change {
		c(&cfg)
	}
	c, err := asr.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// memFile is audio in memory that counts how often it was opened.
func memFile(name string, b []byte, opens *atomic.Int32) ports.AudioFile {
	return ports.AudioFile{Name: name, Open: func() (io.ReadCloser, error) {
		if opens != nil {
			opens.Add(1)
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}}
}

// diskFile writes b to a file and opens it from disk, as the pipeline does.
func diskFile(t *testing.T, name string, b []byte) ports.AudioFile {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return ports.AudioFile{Name: name, Open: func() (io.ReadCloser, error) { return os.Open(p) }}
}

var twoTones = asrtest.WAV(16000, 1, 3, asrtest.Tone{Start: 0.5, End: 1.0}, asrtest.Tone{Start: 2.0, End: 2.5})

func TestRecognizeSendsTheFormAndReadsTheSpeech(t *testing.T) {
	e := asrtest.NewEngine(t, asrtest.WithAPIKey("sk-secret"), asrtest.WithModels("whisper-large-v3"))
	c := newClient(t, e.URL(), func(c *asr.Config) { c.APIKey, c.Model = "sk-secret", "whisper-large-v3" })

	rec, err := c.Recognize(t.Context(), diskFile(t, "left.wav", twoTones))
	if err != nil {
		t.Fatal(err)
	}
	req := e.LastRequest()
	for name, want := range map[string][]string{
		"model":                     {"whisper-large-v3"},
		"language":                  {"hy"},
		"response_format":           {"verbose_json"},
		"timestamp_granularities[]": {"segment", "word"},
	} {
		if got := req.Fields[name]; !slices.Equal(got, want) {
			t.Errorf("field %s = %q, want %q", name, got, want)
		}
	}
	if len(req.Fields) != 4 {
		t.Errorf("unexpected fields: %v", req.Fields)
	}
	if req.FileName != "left.wav" || req.FileContentType != "audio/wav" || req.FileSize != int64(len(twoTones)) {
		t.Errorf("file part %q %q %d bytes", req.FileName, req.FileContentType, req.FileSize)
	}
	if req.Header.Get("Authorization") != "Bearer sk-secret" {
		t.Errorf("Authorization %q", req.Header.Get("Authorization"))
	}
	if req.ContentLength <= int64(len(twoTones)) {
		t.Errorf("a file on disk should go with its Content-Length, got %d", req.ContentLength)
	}

	if len(rec.Segments) != 2 {
		t.Fatalf("segments %+v", rec.Segments)
	}
	for i, want := range [][2]float64{{0.5, 1.0}, {2.0, 2.5}} {
		s := rec.Segments[i]
		if math.Abs(s.Start-want[0]) > 0.05 || math.Abs(s.End-want[1]) > 0.05 {
			t.Errorf("segment %d at %.3f-%.3f, want %v", i, s.Start, s.End, want)
		}
		if s.Text != asrtest.DefaultTexts[i] || s.Speaker != "" {
			t.Errorf("segment %d: %+v", i, s)
		}
	}
	if rec.Text != asrtest.DefaultTexts[0]+" "+asrtest.DefaultTexts[1] || rec.Language != "armenian" || math.Abs(rec.Duration-3) > 0.01 {
		t.Errorf("recognition %q %q %v", rec.Text, rec.Language, rec.Duration)
	}
	if len(rec.Words) == 0 || rec.Words[0].Word != "Բարև" || rec.Words[0].Start < 0.45 {
		t.Errorf("words %+v", rec.Words)
	}
}

func TestRecognizeNamesTheFileType(t *testing.T) {
	e := asrtest.NewEngine(t)
	c := newClient(t, e.URL())
	mp3, err := os.ReadFile("asrtest/testdata/tones-16k-lame.mp3")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := c.Recognize(t.Context(), memFile("dir/audio.MP3", mp3, nil))
	if err != nil {
		t.Fatal(err)
	}
	if req := e.LastRequest(); req.FileName != "audio.MP3" || req.FileContentType != "audio/mpeg" {
		t.Errorf("file part %q %q", req.FileName, req.FileContentType)
	}
	if len(rec.Segments) != 2 || math.Abs(rec.Segments[1].Start-2) > 0.05 {
		t.Errorf("segments of the MP3: %+v", rec.Segments)
	}
}

func TestRecognizeFollowsARedirect(t *testing.T) {
	e := asrtest.NewEngine(t)
	moved := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, e.URL()+"/audio/transcriptions", http.StatusPermanentRedirect)
	}))
	defer moved.Close()
	var opens atomic.Int32
	rec, err := newClient(t, moved.URL+"/v1").Recognize(t.Context(), memFile("a.wav", twoTones, &opens))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Segments) != 2 || e.LastRequest().FileSize != int64(len(twoTones)) || opens.Load() != 2 {
		t.Errorf("%d segments, %d bytes at the engine, opened %d times", len(rec.Segments), e.LastRequest().FileSize, opens.Load())
	}
}

func TestRecognizeSilenceIsEmpty(t *testing.T) {
	e := asrtest.NewEngine(t)
	rec, err := newClient(t, e.URL()).Recognize(t.Context(), memFile("quiet.wav", asrtest.WAV(16000, 1, 2), nil))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Text != "" || len(rec.Segments) != 0 || len(rec.Words) != 0 || rec.Duration != 2 {
		t.Errorf("silence: %+v", rec)
	}
}

func TestRecognizeReadsEngineAnswers(t *testing.T) {
	for _, tc := range []struct {
		name        string
		contentType string
		body        string
		want        domain.Recognition
	}{
		{
			name: "verbose_json with words and speakers",
			body: `{"task":"transcribe","language":"hy","duration":"7.25","text":" Բարև ձեզ։ Այո։ ",
				"segments":[
					{"id":1,"start":3.5,"end":4.0,"text":" Այո։","speaker":1,"tokens":[1,2],"avg_logprob":-0.2},
					{"id":0,"start":0.0,"end":2.1,"text":" Բարև ձեզ։","speaker":"SPEAKER_00"},
					{"id":2,"start":5.0,"end":5.5,"text":"  "}],
				"words":[{"word":" Բարև","start":0.1,"end":0.6},{"word":" ձեզ։","start":0.7,"end":1.2},{"word":"","start":2,"end":2}]}`,
			want: domain.Recognition{
				Text: "Բարև ձեզ։ Այո։", Language: "hy", Duration: 7.25,
				Segments: []domain.Segment{
					{Start: 0, End: 2.1, Text: "Բարև ձեզ։", Speaker: "SPEAKER_00"},
					{Start: 3.5, End: 4.0, Text: "Այո։", Speaker: "1"},
				},
				Words: []domain.Word{{Start: 0.1, End: 0.6, Word: "Բարև"}, {Start: 0.7, End: 1.2, Word: "ձեզ։"}},
			},
		},
		{
			name: "words inside segments, no duration, no text",
			body: `{"language":"armenian","segments":[{"start":1,"end":2.5,"text":"Այո","words":[{"word":"Այո","start":1.2,"end":1.8}]}]}`,
			want: domain.Recognition{
				Text: "Այո", Language: "armenian", Duration: 2.5,
				Segments: []domain.Segment{{Start: 1, End: 2.5, Text: "Այո"}},
				Words:    []domain.Word{{Start: 1.2, End: 1.8, Word: "Այո"}},
			},
		},
		{
			name: "plain json text",
			body: `{"text":" Բարև ձեզ "}`,
			want: domain.Recognition{Text: "Բարև ձեզ", Language: "hy", Segments: []domain.Segment{{Text: "Բարև ձեզ"}}, NoTimestamps: true},
		},
		{
			name: "text with a duration",
			body: `{"text":"Բարև","duration":12.5,"language":"armenian"}`,
			want: domain.Recognition{Text: "Բարև", Language: "armenian", Duration: 12.5, Segments: []domain.Segment{{End: 12.5, Text: "Բարև"}}, NoTimestamps: true},
		},
		{
			name:        "plain text body",
			contentType: "text/plain; charset=utf-8",
			body:        "Բարև ձեզ\n",
			want:        domain.Recognition{Text: "Բարև ձեզ", Language: "hy", Segments: []domain.Segment{{Text: "Բարև ձեզ"}}, NoTimestamps: true},
		},
		{
			name: "empty text",
			body: `{"text":"","segments":[]}`,
			want: domain.Recognition{Language: "hy"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", cmpOr(tc.contentType, "application/json"))
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			got, err := newClient(t, srv.URL+"/v1").Recognize(t.Context(), memFile("a.mp3", []byte("x"), nil))
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func TestRecognizeRefusesAnUnreadableAnswer(t *testing.T) {
	e := asrtest.NewEngine(t)
	e.Respond(func(asrtest.Request) (asrtest.Response, int) {
		return asrtest.Response{Raw: []byte(`<html>gateway says hi</html>`)}, http.StatusOK
	})
	_, err := newClient(t, e.URL()).Recognize(t.Context(), memFile("a.wav", twoTones, nil))
	if err == nil || !strings.Contains(err.Error(), "unreadable answer") || !strings.Contains(err.Error(), "gateway says hi") {
		t.Errorf("err = %v", err)
	}
}

func TestRecognizeRetriesTransientFailures(t *testing.T) {
	e := asrtest.NewEngine(t)
	e.FailNext(2, http.StatusServiceUnavailable, "")
	var opens atomic.Int32
	rec, err := newClient(t, e.URL()).Recognize(t.Context(), memFile("a.wav", twoTones, &opens))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Segments) != 2 || e.Requests() != 3 || opens.Load() != 3 {
		t.Errorf("%d segments after %d requests, file opened %d times", len(rec.Segments), e.Requests(), opens.Load())
	}
	if got := e.LastRequest().FileSize; got != int64(len(twoTones)) {
		t.Errorf("the retry sent %d bytes, want %d", got, len(twoTones))
	}
}

func TestRecognizeHonoursRetryAfter(t *testing.T) {
	e := asrtest.NewEngine(t)
	e.FailNext(1, http.StatusTooManyRequests, "1")
	start := time.Now()
	if _, err := newClient(t, e.URL()).Recognize(t.Context(), memFile("a.wav", twoTones, nil)); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed < time.Second {
		t.Errorf("retried after %v, the engine asked for 1s", elapsed)
	}
	if e.Requests() != 2 {
		t.Errorf("%d requests, want 2", e.Requests())
	}
}

func TestRecognizeGivesUpReadably(t *testing.T) {
	e := asrtest.NewEngine(t)
	e.FailNext(100, http.StatusServiceUnavailable, "")
	_, err := newClient(t, e.URL()).Recognize(t.Context(), memFile("a.wav", twoTones, nil))
	if !errors.Is(err, domain.ErrUnavailable) || domain.IsPermanent(err) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	const want = `speech engine unavailable after 4 attempts: 503 Service Unavailable: {"error":{"code":null,"message":"The engine is overloaded`
	if !strings.HasPrefix(err.Error(), want) || len(err.Error()) > len("speech engine unavailable after 4 attempts: 503 Service Unavailable: ")+200 {
		t.Errorf("message %q", err)
	}
	if e.Requests() != 4 {
		t.Errorf("%d requests, want 4", e.Requests())
	}

	// No engine at all: the network error is the reason.
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err = newClient(t, url+"/v1", func(c *asr.Config) { c.MaxAttempts = 2 }).Recognize(t.Context(), memFile("a.wav", twoTones, nil))
	if !errors.Is(err, domain.ErrUnavailable) || !strings.Contains(err.Error(), "speech engine unavailable after 2 attempts: ") ||
		!strings.Contains(err.Error(), "connection refused") {
		t.Errorf("err = %v", err)
	}
}

func TestRecognizeTimesOutEachAttempt(t *testing.T) {
	e := asrtest.NewEngine(t)
	e.Delay(time.Minute)
	c := newClient(t, e.URL(), func(c *asr.Config) { c.Timeout, c.MaxAttempts = 100*time.Millisecond, 2 })
	_, err := c.Recognize(t.Context(), memFile("a.wav", twoTones, nil))
	if !errors.Is(err, domain.ErrUnavailable) || err.Error() != "speech engine unavailable after 2 attempts: no answer within 100ms" {
		t.Errorf("err = %v", err)
	}
}

func TestRecognizeRefusalIsPermanent(t *testing.T) {
	e := asrtest.NewEngine(t)
	e.Respond(func(asrtest.Request) (asrtest.Response, int) {
		return asrtest.Response{Error: "Audio file might be corrupted or unsupported"}, http.StatusBadRequest
	})
	_, err := newClient(t, e.URL()).Recognize(t.Context(), memFile("a.wav", twoTones, nil))
	if !domain.IsPermanent(err) || errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("err = %v, want permanent", err)
	}
	if want := "speech engine rejected the audio: 400 Bad Request: Audio file might be corrupted or unsupported"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	if e.Requests() != 1 {
		t.Errorf("%d requests: a refusal must not be retried", e.Requests())
	}

	// A wrong key is refused, and the key is never quoted.
	keyed := asrtest.NewEngine(t, asrtest.WithAPIKey("sk-right"))
	_, err = newClient(t, keyed.URL(), func(c *asr.Config) { c.APIKey = "sk-wrong" }).Recognize(t.Context(), memFile("a.wav", twoTones, nil))
	if !domain.IsPermanent(err) || err.Error() != "speech engine refused the request: 401 Unauthorized: Incorrect API key provided." {
		t.Errorf("err = %v", err)
	}
}

func TestRecognizeStopsWhenCancelled(t *testing.T) {
	e := asrtest.NewEngine(t)
	c := newClient(t, e.URL())

	// While the engine works.
	e.Delay(time.Minute)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Recognize(ctx, memFile("a.wav", twoTones, nil))
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, domain.ErrUnavailable) || time.Since(start) > 5*time.Second {
		t.Errorf("err = %v after %v", err, time.Since(start))
	}
	if e.Requests() > 1 {
		t.Errorf("%d requests: a cancelled call must not be retried", e.Requests())
	}

	// While waiting to retry.
	e.Delay(0)
	e.FailNext(1, http.StatusTooManyRequests, "30")
	ctx, cancel = context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	start = time.Now()
	_, err = newClient(t, e.URL()).Recognize(ctx, memFile("a.wav", twoTones, nil))
	if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Errorf("err = %v after %v", err, time.Since(start))
	}
}

// generated is a reader of n deterministic bytes that exist nowhere whole:
// a block of a prime length repeated, so no two chunks of a copy look alike.
type generated struct{ n, at int64 }

var pattern = func() []byte {
	b := make([]byte, 65521)
	for i := range b {
		b[i] = byte(i ^ i>>8 ^ i*31)
	}
	return b
}()

func (g *generated) Read(p []byte) (int, error) {
	if g.at >= g.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), g.n-g.at)]
	n := copy(p, pattern[g.at%int64(len(pattern)):])
	g.at += int64(n)
	return n, nil
}

func (*generated) Close() error { return nil }

func TestRecognizeStreamsTheAudio(t *testing.T) {
	const size = 50 << 20
	h := sha256.New()
	io.Copy(h, &generated{n: size})
	wantSum := hex.EncodeToString(h.Sum(nil))

	e := asrtest.NewEngine(t)
	e.Respond(func(asrtest.Request) (asrtest.Response, int) {
		return asrtest.Response{Text: "Բարև"}, http.StatusOK
	})
	audio := ports.AudioFile{Name: "long.mp3", Open: func() (io.ReadCloser, error) { return &generated{n: size}, nil }}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rec, err := newClient(t, e.URL()).Recognize(t.Context(), audio)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	req := e.LastRequest()
	if req.FileSize != size || req.FileSHA256 != wantSum || req.ContentLength != -1 {
		t.Errorf("engine got %d bytes (sha256 %s, Content-Length %d), want %d (%s) chunked", req.FileSize, req.FileSHA256, req.ContentLength, size, wantSum)
	}
	// Client and engine share this process: together they allocated far
	// less than the file, so neither held it whole.
	alloc := after.TotalAlloc - before.TotalAlloc
	if alloc > size/4 {
		t.Errorf("allocated %d MiB to send a %d MiB file", alloc>>20, size>>20)
	}
	t.Logf("sent %d MiB, allocating %.1f MiB", size>>20, float64(alloc)/(1<<20))
	if rec.Text != "Բարև" {
		t.Errorf("text %q", rec.Text)
	}
}

// counted is audio that counts opens and closes.
type counted struct{ opens, closes atomic.Int32 }

func (c *counted) file(b []byte) ports.AudioFile {
	return ports.AudioFile{Name: "a.wav", Open: func() (io.ReadCloser, error) {
		c.opens.Add(1)
		return closeCounter{bytes.NewReader(b), &c.closes}, nil
	}}
}

type closeCounter struct {
	io.Reader
	n *atomic.Int32
}

func (c closeCounter) Close() error { c.n.Add(1); return nil }

func TestRecognizeClosesEveryFileItOpens(t *testing.T) {
	big := bytes.Repeat(twoTones, 40) // more than the pipe and socket buffers hold
	for _, tc := range []struct {
		name  string
		setup func(*asrtest.Engine)
	}{
		{"success", func(*asrtest.Engine) {}},
		{"retries exhausted", func(e *asrtest.Engine) { e.FailNext(10, http.StatusServiceUnavailable, "") }},
		{"refused", func(e *asrtest.Engine) {
			e.Respond(func(asrtest.Request) (asrtest.Response, int) { return asrtest.Response{}, http.StatusBadRequest })
		}},
		{"cancelled", func(e *asrtest.Engine) { e.Delay(time.Minute) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := asrtest.NewEngine(t)
			tc.setup(e)
			ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
			defer cancel()
			var c counted
			newClient(t, e.URL()).Recognize(ctx, c.file(big))
			eventually.Holds(t, 5*time.Second, "the audio opened and every opening closed", func() (bool, string) {
				return c.opens.Load() > 0 && c.closes.Load() == c.opens.Load(), fmt.Sprintf("opened %d times, closed %d", c.opens.Load(), c.closes.Load())
			})
		})
	}
}

func TestNewRefusesAMalformedBaseURL(t *testing.T) {
	for _, base := range []string{
		"", "127.0.0.1:8000/v1", "ftp://example.com/v1", "http://", "http://%zz/v1",
		"https://api.openai.com/v1#x", "https://api.openai.com/v1/audio/transcriptions",
	} {
		if _, err := asr.New(asr.Config{BaseURL: base}); err == nil {
			t.Errorf("New accepted BaseURL %q", base)
		}
	}
	if _, err := asr.New(asr.Config{BaseURL: "http://x/v1", MaxAttempts: -1}); err == nil {
		t.Error("New accepted MaxAttempts -1")
	}
	for _, base := range []string{"https://api.openai.com/v1", "http://127.0.0.1:8000/v1/", "http://whisper:8080"} {
		if _, err := asr.New(asr.Config{BaseURL: base}); err != nil {
			t.Errorf("New refused %q: %v", base, err)
		}
	}
}

func TestTheAPIKeyStaysSecret(t *testing.T) {
	const key = "sk-very-secret-key"
	cfg := asr.Config{BaseURL: "http://x/v1", APIKey: key}
	var logs bytes.Buffer
	slog.New(slog.NewTextHandler(&logs, nil)).Info("config", "asr", cfg)
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), logs.String()} {
		if strings.Contains(s, key) || !strings.Contains(s, "hidden") {
			t.Errorf("config printed as %s", s)
		}
	}

	// Nor do retries log it.
	e := asrtest.NewEngine(t)
	e.FailNext(1, http.StatusBadGateway, "")
	logs.Reset()
	c := newClient(t, e.URL(), func(c *asr.Config) {
		c.APIKey, c.Logger = key, slog.New(slog.NewTextHandler(&logs, nil))
	})
	if _, err := c.Recognize(t.Context(), memFile("a.wav", twoTones, nil)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "502 Bad Gateway") || strings.Contains(logs.String(), key) {
		t.Errorf("retry log: %s", logs.String())
	}
}

func TestNotConfigured(t *testing.T) {
	var r ports.SpeechRecognizer = asr.NotConfigured{}
	_, err := r.Recognize(t.Context(), memFile("a.wav", nil, nil))
	if !domain.IsPermanent(err) || !errors.Is(err, asr.ErrNotConfigured) || !strings.Contains(err.Error(), "HYSCRIBE_ASR_URL") {
		t.Errorf("err = %v", err)
	}
}

// sized is audio that is no file but knows its length, as a ports.Blob
// opened from an object store does.
type sized struct {
	*bytes.Reader
}

func (sized) Close() error { return nil }

var _ ports.Blob = sized{}

func TestRecognizeSendsTheLengthOfABlob(t *testing.T) {
	e := asrtest.NewEngine(t, asrtest.WithLengthRequired())
	audio := ports.AudioFile{Name: "audio.wav", Open: func() (io.ReadCloser, error) { return sized{bytes.NewReader(twoTones)}, nil }}
	rec, err := newClient(t, e.URL()).Recognize(t.Context(), audio)
	if err != nil {
		t.Fatalf("an engine that refuses chunked bodies: %v", err)
	}
	req := e.LastRequest()
	if e.Chunked() != 0 || req.ContentLength <= int64(len(twoTones)) || req.FileSize != int64(len(twoTones)) {
		t.Errorf("engine got Content-Length %d, %d chunked requests, a %d-byte file; want the length of a form around %d bytes",
			req.ContentLength, e.Chunked(), req.FileSize, len(twoTones))
	}
	if len(rec.Segments) != 2 {
		t.Fatalf("segments %+v", rec.Segments)
	}
}
