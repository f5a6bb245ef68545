// Package asr is the speech-recognition adapter: a client of any
// OpenAI-compatible transcription endpoint (OpenAI, Groq, whisper.cpp server,
// speaches, vLLM) implementing ports.SpeechRecognizer.
//
// The audio is streamed to POST {BaseURL}/audio/transcriptions as
// multipart/form-data through a pipe, so a recording of any length passes
// through in constant memory; the file is reopened for every attempt. The
// engine is asked for verbose_json with segment and word timestamps; a plain
// {"text": …} answer is accepted too. Transient failures (network errors,
// timeouts, 408, 429, 5xx) are retried with backoff, then reported wrapping
// domain.ErrUnavailable; other refusals are domain.Permanent.
package asr

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/hyscribe/hyscribe/adapters/internal/retryhttp"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Defaults for the Config fields left zero.
const (
	DefaultModel         = "whisper-1"
	DefaultLanguage      = "hy"
	DefaultTimeout       = 10 * time.Minute
	DefaultMaxAttempts   = 4
	DefaultBackoffBase   = time.Second
	DefaultMaxBackoff    = 30 * time.Second
	DefaultMaxRetryAfter = time.Minute
)

// Config configures a Client. Zero fields take the defaults above.
type Config struct {
	BaseURL       string        // the engine's /v1 base: "https://api.openai.com/v1"
	APIKey        string        // sent as a Bearer token when set; never logged
	Model         string        // "whisper-1"
	Language      string        // ISO-639-1 code of the speech: "hy"
	Timeout       time.Duration // per attempt, upload and answer included
	MaxAttempts   int           // attempts in all before giving up
	BackoffBase   time.Duration // wait before the first retry, doubled each retry
	MaxBackoff    time.Duration // cap on one backoff
	MaxRetryAfter time.Duration // cap on the wait a Retry-After answer asks for
	HTTPClient    *http.Client  // nil: a client with no overall timeout
	Logger        *slog.Logger  // nil: retries are not logged
}

// Validate reports a malformed base URL or a negative setting.
func (c Config) Validate() error {
	if _, err := endpoint(c.BaseURL); err != nil {
		return err
	}
	switch {
	case c.Timeout < 0, c.BackoffBase < 0, c.MaxBackoff < 0, c.MaxRetryAfter < 0:
		return errors.New("asr: durations must not be negative")
	case c.MaxAttempts < 0:
		return errors.New("asr: MaxAttempts must not be negative")
	case strings.ContainsAny(c.Model, "\r\n"), strings.ContainsAny(c.Language, "\r\n"):
		return errors.New("asr: Model and Language must be one line")
	}
	return nil
}

// String describes the configuration with the API key hidden, so that
// logging a Config never leaks it.
func (c Config) String() string {
	key := ""
	if c.APIKey != "" {
		key = "[hidden]"
	}
	return fmt.Sprintf("asr.Config{BaseURL:%q APIKey:%q Model:%q Language:%q Timeout:%s MaxAttempts:%d}",
		c.BaseURL, key, c.Model, c.Language, c.Timeout, c.MaxAttempts)
}

// GoString hides the API key from %#v as well.
func (c Config) GoString() string { return c.String() }

// LogValue hides the API key from slog.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

// endpoint checks the base URL and returns the transcription endpoint.
func endpoint(base string) (string, error) {
	return retryhttp.Endpoint("asr", base, "/audio/transcriptions", "the engine's /v1 base, e.g. http://127.0.0.1:8000/v1")
}

// Client sends audio to an OpenAI-compatible speech engine. It is safe for
// concurrent use.
type Client struct {
	cfg  Config
	post *retryhttp.Client
}

var _ ports.SpeechRecognizer = (*Client)(nil)

// New checks cfg, fills in its defaults and returns a Client.
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ep, _ := endpoint(cfg.BaseURL)
	cfg.Model = cmp.Or(cfg.Model, DefaultModel)
	cfg.Language = cmp.Or(cfg.Language, DefaultLanguage)
	cfg.Timeout = cmp.Or(cfg.Timeout, DefaultTimeout)
	cfg.MaxAttempts = cmp.Or(cfg.MaxAttempts, DefaultMaxAttempts)
	cfg.BackoffBase = cmp.Or(cfg.BackoffBase, DefaultBackoffBase)
	cfg.MaxBackoff = cmp.Or(cfg.MaxBackoff, DefaultMaxBackoff)
	cfg.MaxRetryAfter = cmp.Or(cfg.MaxRetryAfter, DefaultMaxRetryAfter)
	return &Client{cfg: cfg, post: retryhttp.NewClient(ep, cfg.APIKey, cfg.HTTPClient, retryhttp.Policy{
		Service:       "speech engine",
		MaxAttempts:   cfg.MaxAttempts,
		BackoffBase:   cfg.BackoffBase,
		MaxBackoff:    cfg.MaxBackoff,
		MaxRetryAfter: cfg.MaxRetryAfter,
		Timeout:       cfg.Timeout,
		Logger:        cfg.Logger,
	})}, nil
}

// Recognize sends the audio to the engine and returns what it heard. The
// language is the engine's own word for it ("armenian", "hy"), or
// Config.Language when the answer names none. Errors:
// "speech engine unavailable after N attempts: …" wrapping
// domain.ErrUnavailable; domain.Permanent for a refusal ("speech engine
// rejected the audio: 400 Bad Request: …"); ctx's error when it ends; a plain
// error for an answer that cannot be read.
func (c *Client) Recognize(ctx context.Context, audio ports.AudioFile) (domain.Recognition, error) {
	if audio.Open == nil {
		return domain.Recognition{}, errors.New("asr.Recognize: the audio file has no Open function")
	}
	form := c.form(audio.Name)

	// Every body streams through its own pipe; closing them all on return
	// ends any writer a misbehaving transport left blocked.
	var mu sync.Mutex
	var pipes []*io.PipeReader
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, pr := range pipes {
			pr.CloseWithError(errAbandoned)
		}
	}()
	// body opens the file anew and streams the form around it. Its length
	// is -1 when unknown (then it goes chunked).
	body := func() (io.ReadCloser, int64, error) {
		f, err := audio.Open()
		if err != nil {
			return nil, 0, fmt.Errorf("asr.Recognize: opening %s: %w", form.fileName, err)
		}
		size := sizeOf(f)
		pr, pw := io.Pipe()
		mu.Lock()
		pipes = append(pipes, pr)
		mu.Unlock()
		go form.stream(pw, f, size)
		if size < 0 {
			return pr, -1, nil
		}
		return pr, int64(len(form.head)) + size + int64(len(form.tail)), nil
	}
	newRequest := func(ctx context.Context) (*http.Request, error) {
		b, length, err := body()
		if err != nil {
			return nil, err
		}
		req, err := c.post.NewRequest(ctx, form.contentType, b)
		if err != nil {
			b.Close()
			return nil, fmt.Errorf("asr.Recognize: %w", err)
		}
		if length >= 0 {
			req.ContentLength = length
		}
		// The client sends the body again to follow a 307/308 redirect or
		// when a kept-alive connection closed before the request went out.
		req.GetBody = func() (io.ReadCloser, error) {
			b, _, err := body()
			return b, err
		}
		return req, nil
	}

	res, err := c.post.Do(ctx, newRequest)
	if err != nil {
		return domain.Recognition{}, err
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		verb := "rejected the audio"
		switch res.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusMethodNotAllowed:
			verb = "refused the request"
		}
		return domain.Recognition{}, domain.Permanent(fmt.Errorf("speech engine %s: %s", verb, retryhttp.Refusal(res)))
	}
	rec, err := parse(res.Body, res.Header.Get("Content-Type"))
	if err != nil {
		return domain.Recognition{}, err
	}
	if rec.Language == "" {
		rec.Language = c.cfg.Language
	}
	return rec, nil
}

var errAbandoned = errors.New("asr: request abandoned")

// form is the multipart body around the file: the fields and the file part's
// header before it, the closing boundary after it.
type form struct {
	contentType string
	fileName    string
	head, tail  []byte
}

func (c *Client) form(name string) form {
	fileName := path.Base(strings.ReplaceAll(name, `\`, "/"))
	if fileName == "." || fileName == "/" || fileName == "" {
		fileName = "audio.mp3"
	}
	var head, tail strings.Builder
	out := &switchWriter{w: &head}
	mw := multipart.NewWriter(out)
	fields := [][2]string{
		{"model", c.cfg.Model},
		{"language", c.cfg.Language},
		{"response_format", "verbose_json"},
		{"timestamp_granularities[]", "segment"},
		{"timestamp_granularities[]", "word"},
	}
	for _, f := range fields {
		_ = mw.WriteField(f[0], f[1]) // a strings.Builder never fails
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", multipart.FileContentDisposition("file", fileName))
	h.Set("Content-Type", ContentType(fileName))
	_, _ = mw.CreatePart(h)
	out.w = &tail
	_ = mw.Close()
	return form{
		contentType: mw.FormDataContentType(),
		fileName:    fileName,
		head:        []byte(head.String()),
		tail:        []byte(tail.String()),
	}
}

// stream writes the body into the pipe; the transport reads the other end.
// A known size is copied exactly, matching the Content-Length sent.
func (f form) stream(pw *io.PipeWriter, r io.ReadCloser, size int64) {
	defer r.Close()
	_, err := pw.Write(f.head)
	if err == nil {
		if size >= 0 {
			_, err = io.CopyN(pw, r, size)
		} else {
			_, err = io.Copy(pw, r)
		}
	}
	if err == nil {
		_, err = pw.Write(f.tail)
	}
	if err != nil {
		err = fmt.Errorf("asr: reading %s: %w", f.fileName, err)
	}
	pw.CloseWithError(err)
}

type switchWriter struct{ w io.Writer }

func (s *switchWriter) Write(p []byte) (int, error) { return s.w.Write(p) }

// sizeOf returns the length of a reader that knows it (a ports.Blob, from
// local disk or an object store) or of a regular file, -1 for any other
// reader (the body is then sent chunked, which some engines and proxies
// refuse with 411 Length Required).
func sizeOf(r io.Reader) int64 {
	if b, ok := r.(interface{ Size() int64 }); ok && b.Size() >= 0 {
		return b.Size()
	}
	if s, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := s.Stat(); err == nil && fi.Mode().IsRegular() {
			return fi.Size()
		}
	}
	return -1
}

// ContentType is the MIME type sent for an audio file name.
func ContentType(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".mp3", ".mpga", ".mpeg":
		return "audio/mpeg"
	case ".wav":
		return "audio/wav"
	case ".m4a", ".mp4":
		return "audio/mp4"
	case ".ogg", ".oga", ".opus":
		return "audio/ogg"
	case ".flac":
		return "audio/flac"
	case ".webm":
		return "audio/webm"
	}
	return "application/octet-stream"
}

// ErrNotConfigured is what NotConfigured answers, as a domain.Permanent error.
var ErrNotConfigured = errors.New("no speech engine configured (set HYSCRIBE_ASR_URL)")

// NotConfigured stands in for the engine when none is configured, so the
// service still starts and jobs fail with a message saying what to set.
type NotConfigured struct{}

var _ ports.SpeechRecognizer = NotConfigured{}

// Recognize fails permanently with ErrNotConfigured.
func (NotConfigured) Recognize(context.Context, ports.AudioFile) (domain.Recognition, error) {
	return domain.Recognition{}, domain.Permanent(ErrNotConfigured)
}
