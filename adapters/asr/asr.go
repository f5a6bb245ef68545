// Package asr is the speech-recognition adapter: a client of any
// OpenAI-compatible transcription endpoint (OpenAI, Azure OpenAI, Groq,
// whisper.cpp server, speaches, vLLM) implementing ports.SpeechRecognizer.
//
// The audio is streamed to POST {BaseURL}/audio/transcriptions (whisper.cpp:
// {BaseURL}/inference) as multipart/form-data through a pipe, so a recording
// of any length passes through in constant memory; the file is reopened for
// every attempt. What is asked for depends on the engine's profile
// (profile.go): verbose_json with segment and word timestamps where the
// engine gives them, json (text only) for OpenAI's gpt-4o transcribe models,
// diarized_json for gpt-4o-transcribe-diarize. An engine that refuses
// timestamps with a 400 is asked again without them, and so are later
// requests. Transient failures (network errors, timeouts, 408, 429, 5xx)
// are retried with backoff, then reported wrapping domain.ErrUnavailable; a
// 413 is a *domain.PieceTooLargeError for the caller to cut the piece
// smaller; other refusals are domain.Permanent.
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
	"net/url"
	"path"
	"strings"
	"sync"
	"sync/atomic"
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
	APIKey        string        // sent as a Bearer token (Azure: api-key header) when set; never logged
	Profile       string        // one of Profiles; "" or "auto": detected from BaseURL
	Model         string        // "" takes the profile's default ("whisper-1" for OpenAI)
	Language      string        // ISO-639-1 code of the speech: "hy"
	Timeout       time.Duration // per attempt, upload and answer included
	MaxAttempts   int           // attempts in all before giving up
	BackoffBase   time.Duration // wait before the first retry, doubled each retry
	MaxBackoff    time.Duration // cap on one backoff
	MaxRetryAfter time.Duration // cap on the wait a Retry-After answer asks for
	HTTPClient    *http.Client  // nil: a client with no overall timeout
	Logger        *slog.Logger  // nil: retries are not logged
}

// Validate reports a malformed base URL, an unknown profile or a negative
// setting.
func (c Config) Validate() error {
	p, err := resolveProfile(c.Profile, c.BaseURL)
	if err != nil {
		return err
	}
	if _, err := endpoint(c.BaseURL, p); err != nil {
		return err
	}
	if p.needsModel && strings.TrimSpace(c.Model) == "" {
		return fmt.Errorf("asr: profile %s needs the model the engine serves (HYSCRIBE_ASR_MODEL: the name `vllm serve` was given, or its --served-model-name)", p.name)
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

// String describes the configuration with the API key (and the base
// URL's query) hidden, so that logging a Config never leaks it.
func (c Config) String() string {
	key := ""
	if c.APIKey != "" {
		key = "[hidden]"
	}
	base := c.BaseURL
	if u, err := url.Parse(base); err == nil && u.RawQuery != "" {
		u.RawQuery = "[hidden]" // a query may carry a proxy's key
		base = u.String()
	}
	return fmt.Sprintf("asr.Config{BaseURL:%q APIKey:%q Profile:%q Model:%q Language:%q Timeout:%s MaxAttempts:%d}",
		base, key, c.Profile, c.Model, c.Language, c.Timeout, c.MaxAttempts)
}

// GoString hides the API key from %#v as well.
func (c Config) GoString() string { return c.String() }

// LogValue hides the API key from slog.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

// endpoint checks the base URL and returns the transcription endpoint.
func endpoint(base string, p profile) (string, error) {
	if p.path == "/inference" {
		// whisper.cpp's base is the server itself; a base given with
		// /inference already is taken as it is.
		if u, err := url.Parse(strings.TrimSpace(base)); err == nil && strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/inference") {
			u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/inference")
			base = u.String()
		}
		return retryhttp.Endpoint("asr", base, p.path, "the whisper.cpp server's address, e.g. http://127.0.0.1:8080")
	}
	return retryhttp.Endpoint("asr", base, p.path, "the engine's /v1 base, e.g. http://127.0.0.1:8000/v1")
}

// Client sends audio to an OpenAI-compatible speech engine. It is safe for
// concurrent use.
type Client struct {
	cfg     Config
	profile profile
	post    *retryhttp.Client
	// plain is set once the engine refused timestamps: every later
	// request asks for json.
	plain atomic.Bool
}

var _ ports.SpeechRecognizer = (*Client)(nil)

// New checks cfg, fills in its defaults and returns a Client.
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p, _ := resolveProfile(cfg.Profile, cfg.BaseURL)
	ep, _ := endpoint(cfg.BaseURL, p)
	cfg.Profile = p.name
	cfg.Model = cmp.Or(strings.TrimSpace(cfg.Model), azureDeployment(cfg.BaseURL, p), p.model)
	cfg.Language = cmp.Or(cfg.Language, DefaultLanguage)
	cfg.Timeout = cmp.Or(cfg.Timeout, DefaultTimeout)
	cfg.MaxAttempts = cmp.Or(cfg.MaxAttempts, DefaultMaxAttempts)
	cfg.BackoffBase = cmp.Or(cfg.BackoffBase, DefaultBackoffBase)
	cfg.MaxBackoff = cmp.Or(cfg.MaxBackoff, DefaultMaxBackoff)
	cfg.MaxRetryAfter = cmp.Or(cfg.MaxRetryAfter, DefaultMaxRetryAfter)
	post := retryhttp.NewClient(ep, cfg.APIKey, cfg.HTTPClient, retryhttp.Policy{
		Service:       "speech engine",
		MaxAttempts:   cfg.MaxAttempts,
		BackoffBase:   cfg.BackoffBase,
		MaxBackoff:    cfg.MaxBackoff,
		MaxRetryAfter: cfg.MaxRetryAfter,
		Timeout:       cfg.Timeout,
		Logger:        cfg.Logger,
	})
	post.KeyHeader = p.keyHeader
	return &Client{cfg: cfg, profile: p, post: post}, nil
}

// azureDeployment is the deployment named in an Azure base URL
// (…/openai/deployments/NAME), the model's name there.
func azureDeployment(base string, p profile) string {
	if p.name != ProfileAzure {
		return ""
	}
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] == "deployments" {
			return parts[i+1]
		}
	}
	return ""
}

// Profile is the profile the client uses (detected when none was named).
func (c *Client) Profile() string { return c.profile.name }

// Model is the model the client names.
func (c *Client) Model() string { return c.cfg.Model }

// Timestamps reports whether the engine gives times with its text, as far
// as its profile and model tell: false for OpenAI's gpt-4o transcribe
// models, which answer text only. A caller that needs times cuts the audio
// into utterances when it is false.
func (c *Client) Timestamps() bool { return c.profile.timed(c.cfg.Model) && !c.plain.Load() }

// Recognize sends the audio to the engine and returns what it heard. The
// language is the engine's own word for it ("armenian", "hy"), or
// Config.Language when the answer names none. Errors:
// "speech engine unavailable after N attempts: …" wrapping
// domain.ErrUnavailable; a *domain.PieceTooLargeError (permanent) for a
// 413; domain.Permanent for a refusal ("speech engine rejected the audio:
// 400 Bad Request: …"); ctx's error when it ends; a plain error for an
// answer that cannot be read.
func (c *Client) Recognize(ctx context.Context, audio ports.AudioFile) (domain.Recognition, error) {
	if audio.Open == nil {
		return domain.Recognition{}, errors.New("asr.Recognize: the audio file has no Open function")
	}
	f := c.profile.formatFor(c.cfg.Model, c.plain.Load())
	res, size, err := c.send(ctx, audio, f)
	if err != nil {
		return domain.Recognition{}, err
	}
	if res.StatusCode == http.StatusBadRequest && f.wantsTimestamps() && refusesTimestamps(res.Body) {
		// The engine (or this model of it) gives no timestamps: ask
		// again for text, and from now on at once.
		if !c.plain.Swap(true) && c.cfg.Logger != nil {
			c.cfg.Logger.Warn("the speech engine refused timestamps; asking for text only from now on (phone calls are cut into utterances)",
				"profile", c.profile.name, "model", c.cfg.Model, "answer", retryhttp.Refusal(res))
		}
		f = c.profile.formatFor(c.cfg.Model, true)
		if res, size, err = c.send(ctx, audio, f); err != nil {
			return domain.Recognition{}, err
		}
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		verb := "rejected the audio"
		switch res.StatusCode {
		case http.StatusRequestEntityTooLarge:
			return domain.Recognition{}, domain.Permanent(&domain.PieceTooLargeError{Bytes: size, Msg: retryhttp.Refusal(res)})
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusMethodNotAllowed:
			verb = "refused the request"
		}
		return domain.Recognition{}, domain.Permanent(fmt.Errorf("speech engine %s: %s", verb, retryhttp.Refusal(res)))
	}
	rec, err := parse(res.Body, res.Header.Get("Content-Type"), c.profile)
	if err != nil {
		return domain.Recognition{}, err
	}
	if rec.Language == "" {
		rec.Language = c.cfg.Language
	}
	return rec, nil
}

// refusesTimestamps reports a 400 that refuses what was asked for times:
// the response format or the timestamp granularities ("response_format
// 'verbose_json' is not compatible with model …", "timestamp_granularities
// … not supported").
func refusesTimestamps(body []byte) bool {
	msg := strings.ToLower(retryhttp.ErrorMessage(body))
	if msg == "" {
		msg = strings.ToLower(retryhttp.Snippet(body, 2000))
	}
	for _, w := range []string{"verbose_json", "timestamp", "granularit", "response_format"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// send posts the audio once (with the retries of the policy) in format f.
// size is the file's length, -1 when unknown.
func (c *Client) send(ctx context.Context, audio ports.AudioFile, f format) (*retryhttp.Response, int64, error) {
	form := c.form(audio.Name, f)

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
	var fileSize atomic.Int64
	fileSize.Store(-1)
	// body opens the file anew and streams the form around it. Its length
	// is -1 when unknown (then it goes chunked).
	body := func() (io.ReadCloser, int64, error) {
		f, err := audio.Open()
		if err != nil {
			return nil, 0, fmt.Errorf("asr.Recognize: opening %s: %w", form.fileName, err)
		}
		size := sizeOf(f)
		fileSize.Store(size)
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
	return res, fileSize.Load(), err
}

var errAbandoned = errors.New("asr: request abandoned")

// form is the multipart body around the file: the fields and the file part's
// header before it, the closing boundary after it.
type form struct {
	contentType string
	fileName    string
	head, tail  []byte
}

func (c *Client) form(name string, f format) form {
	fileName := path.Base(strings.ReplaceAll(name, `\`, "/"))
	if fileName == "." || fileName == "/" || fileName == "" {
		fileName = "audio.mp3"
	}
	var head, tail strings.Builder
	out := &switchWriter{w: &head}
	mw := multipart.NewWriter(out)
	var fields [][2]string
	if !c.profile.noModel && c.cfg.Model != "" {
		fields = append(fields, [2]string{"model", c.cfg.Model})
	}
	fields = append(fields, [2]string{"language", c.cfg.Language}, [2]string{"response_format", f.responseFormat})
	for _, g := range f.grains {
		fields = append(fields, [2]string{"timestamp_granularities[]", g})
	}
	fields = append(fields, f.extra...)
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
