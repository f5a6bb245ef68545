// Package asrtest is a fake OpenAI-compatible speech engine for tests, served
// over real HTTP on loopback.
//
// It reads the multipart upload the way a real engine does and refuses a
// malformed one with an OpenAI-style JSON error. Its answers come from the
// audio itself: every stretch of sound in a WAV file (of any length: it is
// analysed as it streams in) or a short MP3 file becomes one
// segment with its real start and end and a deterministic Armenian sentence,
// and silence yields no text at all, so tests of the whole pipeline can check
// timings without a model. Knobs make it fail, stall or answer anything.
//
// WithShape makes it speak as one real engine does (OpenAI's models, Azure,
// whisper.cpp, speaches, vLLM, Groq: path, key header, refusals and answer
// shape, held to the answers recorded in ../testdata/engines), and
// WithScript makes it recognise scripted recordings (ScriptedCall) whose
// every utterance is a tone of its own, so that any piece of them is heard
// as the words said there.
package asrtest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is what the engine received in one request.
type Request struct {
	Fields          map[string][]string // form fields other than the file
	Header          http.Header
	ContentLength   int64  // -1 when the body came chunked
	FileName        string // "" when no file part came
	FileContentType string
	FileSize        int64
	FileSHA256      string // hex
	Audio           []byte // the file, nil when larger than the analysis limit

	wav *wavAnalysis // a WAV file's analysis, made while it streamed in
}

// wavAnalysis is what the engine heard in a WAV file.
type wavAnalysis struct {
	stretches [][2]float64
	duration  float64
	err       error
}

// Field returns the first value of a form field, "" if absent.
func (r Request) Field(name string) string {
	if v := r.Fields[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Response is an answer, written in the requested response_format.
type Response struct {
	Task     string    `json:"task,omitempty"`
	Language string    `json:"language,omitempty"`
	Duration float64   `json:"duration"`
	Text     string    `json:"text"`
	Segments []Segment `json:"segments,omitempty"`
	Words    []Word    `json:"words,omitempty"`

	// Error is the message of an error status's OpenAI-style body.
	Error string `json:"-"`
	// Raw, when set, is sent as the body instead, as application/json.
	Raw []byte `json:"-"`
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string `json:"-"`
}

// Segment is one verbose_json segment.
type Segment struct {
	ID      int     `json:"id"`
	Start   float64 `json:"start"`
	End     float64 `json:"end"`
	Text    string  `json:"text"`
	Speaker string  `json:"speaker,omitempty"`
}

// Word is one verbose_json word.
type Word struct {
	Word  string  `json:"word"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// DefaultTexts are the sentences segments get, by index.
var DefaultTexts = []string{
	"Բարև ձեզ, ես զանգում եմ պատվերի մասին։",
	"Խնդրում եմ ասել պատվերի համարը։",
	"Պատվերը կառաքվի վաղը առավոտյան։",
	"Շնորհակալություն, ցտեսություն։",
}

type settings struct {
	apiKey      string
	models      []string
	language    string
	threshold   float64
	speakers    []string
	texts       []string
	maxAnalyzed int64
	maxFile     int64
	needLength  bool
	shape       Shape
	script      []Line
}

// Option configures an Engine.
type Option func(*settings)

// WithAPIKey makes the engine require "Authorization: Bearer key" (401 otherwise).
func WithAPIKey(key string) Option { return func(s *settings) { s.apiKey = key } }

// WithModels makes the engine accept only these models (400 otherwise);
// by default any non-empty model is accepted.
func WithModels(models ...string) Option { return func(s *settings) { s.models = models } }

// WithLanguage sets the one language code the engine accepts ("hy" by default).
func WithLanguage(code string) Option { return func(s *settings) { s.language = code } }

// WithThreshold sets the frame RMS, as a fraction of full scale, above which
// audio counts as sound (0.01 by default).
func WithThreshold(rms float64) Option { return func(s *settings) { s.threshold = rms } }

// WithSpeakers labels segments with these speakers in turn, as engines with
// diarization do.
func WithSpeakers(labels ...string) Option { return func(s *settings) { s.speakers = labels } }

// WithTexts replaces DefaultTexts.
func WithTexts(texts ...string) Option { return func(s *settings) { s.texts = texts } }

// WithMaxAnalyzed sets the largest file kept and analysed (4 MiB by
// default). Larger files are still read, counted and hashed, but answered
// with 400 unless a Respond function answers them.
func WithMaxAnalyzed(bytes int64) Option { return func(s *settings) { s.maxAnalyzed = bytes } }

// WithMaxFileBytes makes the engine refuse files over bytes with 413, as
// OpenAI refuses files over 25 MB ("Maximum content size limit (26214400)
// exceeded"); 0, the default, accepts any size.
func WithMaxFileBytes(bytes int64) Option { return func(s *settings) { s.maxFile = bytes } }

// WithLengthRequired makes the engine refuse a request without a
// Content-Length (a chunked body) with 411 Length Required, as some engines
// and the proxies in front of them do.
func WithLengthRequired() Option { return func(s *settings) { s.needLength = true } }

// Engine is the fake engine. Its methods are safe for concurrent use.
type Engine struct {
	srv *httptest.Server
	set settings

	mu             sync.Mutex
	requests       int
	chunked        int // requests whose body came without a Content-Length
	inFlight       int // requests received and not yet answered
	last           Request
	failN          int
	failStatus     int
	failRetryAfter string
	delay          time.Duration
	respond        func(Request) (Response, int)
}

// NewEngine starts an engine, stopped when the test ends.
func NewEngine(t testing.TB, opts ...Option) *Engine {
	t.Helper()
	e := &Engine{set: settings{language: "hy", threshold: 0.01, texts: DefaultTexts, maxAnalyzed: 4 << 20}}
	for _, o := range opts {
		o(&e.set)
	}
	if len(e.set.texts) == 0 {
		e.set.texts = DefaultTexts
	}
	e.srv = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.srv.Close)
	return e
}

// URL is the engine's /v1 base, to pass as the client's BaseURL.
// For a Shape it is what that engine is configured with: Azure's
// deployment base with its api-version, whisper.cpp's server address.
func (e *Engine) URL() string { return e.base() }

// FailNext makes the next n requests fail with status (503 if it is not an
// error status), sending Retry-After when retryAfter is not empty. The body
// is read first, as a proxy would.
func (e *Engine) FailNext(n, status int, retryAfter string) {
	if status < 400 || status > 599 {
		status = http.StatusServiceUnavailable
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.failN, e.failStatus, e.failRetryAfter = n, status, retryAfter
}

// Delay holds every answer back by d (or until the client gives up).
func (e *Engine) Delay(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.delay = d
}

// Respond answers valid requests with fn instead of analysing the audio; fn
// returns the answer and its status. nil restores the analysis. Engine.Answer
// gives fn the answer the engine would have given.
func (e *Engine) Respond(fn func(req Request) (Response, int)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.respond = fn
}

// Requests counts the requests received, failed ones included.
func (e *Engine) Requests() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.requests
}

// Chunked counts the requests whose body came chunked, without a
// Content-Length, refused or not.
func (e *Engine) Chunked() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.chunked
}

// InFlight counts the requests received and not yet answered: recordings
// inside the engine now.
func (e *Engine) InFlight() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.inFlight
}

// LastRequest returns the most recent request received.
func (e *Engine) LastRequest() Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.last
}

func (e *Engine) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != e.path() {
		writeError(w, http.StatusNotFound, "Invalid URL ("+r.Method+" "+r.URL.Path+")", "invalid_request_error", "")
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "Use POST", "invalid_request_error", "")
		return
	}
	req, perr := e.read(r)

	e.mu.Lock()
	e.requests++
	if req.ContentLength < 0 {
		e.chunked++
	}
	e.inFlight++
	defer func() {
		e.mu.Lock()
		e.inFlight--
		e.mu.Unlock()
	}()
	e.last = req
	delay := e.delay
	fail := e.failN > 0
	failStatus, failRetryAfter := e.failStatus, e.failRetryAfter
	if fail {
		e.failN--
	}
	respond := e.respond
	e.mu.Unlock()

	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if e.set.needLength && req.ContentLength < 0 {
		writeError(w, http.StatusLengthRequired, "A request body without Content-Length (chunked) is not accepted", "invalid_request_error", "")
		return
	}
	if fail {
		if failRetryAfter != "" {
			w.Header().Set("Retry-After", failRetryAfter)
		}
		writeError(w, failStatus, "The engine is overloaded, try again later ("+http.StatusText(failStatus)+")", "server_error", "")
		return
	}
	if !e.keyOK(r) {
		writeError(w, http.StatusUnauthorized, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
		return
	}
	if limit := e.set.maxFile; limit > 0 && req.FileSize > limit {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("Maximum content size limit (%d) exceeded (%d bytes read)", limit, req.FileSize), "invalid_request_error", "")
		return
	}
	if status, msg := e.refuse(r, req); status != 0 {
		writeError(w, status, msg, "invalid_request_error", "")
		return
	}
	if perr == "" {
		perr = e.check(req)
	}
	if perr != "" {
		writeError(w, http.StatusBadRequest, perr, "invalid_request_error", "")
		return
	}
	if respond == nil && (e.set.shape != ShapeDefault || e.set.script != nil) {
		body, ct, status := e.shapedAnswer(req)
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(status)
		_, _ = w.Write(body)
		return
	}
	var res Response
	var status int
	if respond != nil {
		res, status = respond(req)
	} else {
		res, status = e.Answer(req)
	}
	write(w, req, res, status)
}

// read takes the multipart body apart, streaming the file through a hash.
// It returns a message for a body that is not a form.
func (e *Engine) read(r *http.Request) (Request, string) {
	req := Request{Fields: map[string][]string{}, Header: r.Header.Clone(), ContentLength: r.ContentLength}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return req, "Content-Type must be multipart/form-data"
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return req, "malformed multipart body: " + err.Error()
	}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return req, ""
		}
		if err != nil {
			return req, "malformed multipart body: " + err.Error()
		}
		if p.FormName() == "file" && p.FileName() != "" {
			req.FileName, req.FileContentType = p.FileName(), p.Header.Get("Content-Type")
			h := sha256.New()
			keep := &capped{max: e.set.maxAnalyzed}
			to := []io.Writer{h, keep}
			var ws *wavStream
			if strings.EqualFold(path.Ext(req.FileName), ".wav") {
				ws = &wavStream{threshold: e.set.threshold}
				to = append(to, ws)
			}
			n, err := io.Copy(io.MultiWriter(to...), p)
			if err != nil {
				return req, "reading the file: " + err.Error()
			}
			if ws != nil {
				a := &wavAnalysis{}
				a.stretches, a.duration, a.err = ws.result()
				req.wav = a
			}
			req.FileSize, req.FileSHA256 = n, hex.EncodeToString(h.Sum(nil))
			if !keep.over {
				req.Audio = keep.buf
			}
			continue
		}
		v, err := io.ReadAll(io.LimitReader(p, 64<<10))
		if err != nil {
			return req, "malformed multipart body: " + err.Error()
		}
		req.Fields[p.FormName()] = append(req.Fields[p.FormName()], string(v))
	}
}

// capped keeps what is written to it until it has more than max bytes.
type capped struct {
	max  int64
	buf  []byte
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if !c.over {
		need := int64(len(c.buf) + len(p))
		switch {
		case need > c.max:
			c.over, c.buf = true, nil
		case need > int64(cap(c.buf)):
			// Double, as append does for small slices only: a large file
			// must not cost many times its size in garbage.
			grown := make([]byte, len(c.buf), min(max(2*need, 64<<10), c.max))
			copy(grown, c.buf)
			c.buf = append(grown, p...)
		default:
			c.buf = append(c.buf, p...)
		}
	}
	return len(p), nil
}

var formats = []string{"json", "text", "verbose_json"}

// check validates the fields as OpenAI does; "" when the request is fine.
func (e *Engine) check(req Request) string {
	if req.FileName == "" {
		return "you must provide a file (multipart field 'file' with a file name)"
	}
	model := req.Field("model")
	switch {
	case model == "" && e.needsModel():
		return "you must provide a model parameter"
	case len(e.set.models) > 0 && !slices.Contains(e.set.models, model):
		return fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", model)
	}
	if lang, ok := req.Fields["language"]; ok && (len(lang) != 1 || lang[0] != e.set.language) {
		return fmt.Sprintf("language %q is not supported by this engine; use %q", strings.Join(lang, ","), e.set.language)
	}
	format := req.Field("response_format")
	if format == "" {
		format = "json"
	}
	if !e.formatOK(format) {
		return fmt.Sprintf("response_format %q is not one of %s", format, strings.Join(formats, ", "))
	}
	for _, g := range req.Fields["timestamp_granularities[]"] {
		if g != "segment" && g != "word" {
			return fmt.Sprintf("timestamp_granularities[] %q is not one of segment, word", g)
		}
		if format != "verbose_json" {
			return "timestamp_granularities[] needs response_format verbose_json"
		}
	}
	return ""
}

// shapedAnswer is the answer of a Shape or a script to a valid request.
func (e *Engine) shapedAnswer(req Request) ([]byte, string, int) {
	if req.Audio == nil && req.FileSize > 0 {
		return errorBody(fmt.Sprintf("the fake engine analyses files up to %d bytes; this one has %d", e.set.maxAnalyzed, req.FileSize))
	}
	var sig signal
	var err error
	switch strings.ToLower(path.Ext(req.FileName)) {
	case ".wav":
		sig, err = decodeWAV(req.Audio)
	default:
		sig, err = decodeMP3(req.Audio)
	}
	if err != nil {
		return errorBody("Audio file might be corrupted or unsupported: " + err.Error())
	}
	var hs []heard
	if e.set.script != nil {
		hs = e.scripted(sig)
	} else {
		for i, st := range stretches(sig, e.set.threshold) {
			hs = append(hs, heard{start: st[0], end: st[1], text: e.set.texts[i%len(e.set.texts)]})
		}
	}
	return e.shaped(req, hs, sig.duration())
}

// Answer is the engine's own answer to a valid request: the analysis of the
// audio, with segments and words as the request's timestamp_granularities[]
// ask (segments only when none are given).
func (e *Engine) Answer(req Request) (Response, int) {
	ext := strings.ToLower(path.Ext(req.FileName))
	if ext == ".wav" && req.wav != nil {
		if req.wav.err != nil {
			return Response{Error: "Audio file might be corrupted or unsupported: " + req.wav.err.Error()}, http.StatusBadRequest
		}
		return e.answer(req, req.wav.stretches, req.wav.duration), http.StatusOK
	}
	if req.Audio == nil && req.FileSize > 0 {
		return Response{Error: fmt.Sprintf("the fake engine analyses files up to %d bytes; this one has %d (use Respond)", e.set.maxAnalyzed, req.FileSize)}, http.StatusBadRequest
	}
	var sig signal
	var err error
	switch ext {
	case ".wav":
		sig, err = decodeWAV(req.Audio)
	case ".mp3", ".mpga", ".mpeg":
		sig, err = decodeMP3(req.Audio)
	default:
		return Response{Error: fmt.Sprintf("Invalid file format %q. Supported formats: ['mp3', 'wav']", ext)}, http.StatusBadRequest
	}
	if err != nil {
		return Response{Error: "Audio file might be corrupted or unsupported: " + err.Error()}, http.StatusBadRequest
	}
	return e.answer(req, stretches(sig, e.set.threshold), sig.duration()), http.StatusOK
}

// answer turns the stretches of sound heard in a file into the engine's
// answer to req.
func (e *Engine) answer(req Request, heard [][2]float64, duration float64) Response {
	res := Response{Task: "transcribe", Language: "armenian", Duration: round(duration)}
	var texts []string
	for i, s := range heard {
		seg := Segment{ID: i, Start: round(s[0]), End: round(s[1]), Text: " " + e.set.texts[i%len(e.set.texts)]}
		if n := len(e.set.speakers); n > 0 {
			seg.Speaker = e.set.speakers[i%n]
		}
		res.Segments = append(res.Segments, seg)
		res.Words = append(res.Words, words(seg)...)
		texts = append(texts, strings.TrimSpace(seg.Text))
	}
	res.Text = strings.Join(texts, " ")
	grains := req.Fields["timestamp_granularities[]"]
	if len(grains) > 0 && !slices.Contains(grains, "segment") {
		res.Segments = nil
	}
	if !slices.Contains(grains, "word") {
		res.Words = nil
	}
	return res
}

// words spreads a segment's words over its time by their length.
func words(s Segment) []Word {
	fields := strings.Fields(s.Text)
	total := 0
	for _, f := range fields {
		total += len([]rune(f))
	}
	out := make([]Word, 0, len(fields))
	at := s.Start
	for _, f := range fields {
		d := (s.End - s.Start) * float64(len([]rune(f))) / float64(max(total, 1))
		out = append(out, Word{Word: " " + f, Start: round(at), End: round(at + d)})
		at += d
	}
	return out
}

func round(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

func write(w http.ResponseWriter, req Request, res Response, status int) {
	if status == 0 {
		status = http.StatusOK
	}
	if res.RetryAfter != "" {
		w.Header().Set("Retry-After", res.RetryAfter)
	}
	switch {
	case res.Raw != nil:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(res.Raw)
	case status >= 400:
		msg := res.Error
		if msg == "" {
			msg = http.StatusText(status)
		}
		writeError(w, status, msg, "invalid_request_error", "")
	case req.Field("response_format") == "text":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, res.Text+"\n")
	case req.Field("response_format") == "verbose_json":
		writeJSON(w, status, res)
	default:
		writeJSON(w, status, map[string]string{"text": res.Text})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes OpenAI's error shape.
func writeError(w http.ResponseWriter, status int, msg, typ, code string) {
	body := map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}
	if code != "" {
		body["code"] = code
	}
	writeJSON(w, status, map[string]any{"error": body})
}
