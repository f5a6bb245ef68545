package asrtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
)

type field struct{ name, value string }

var standard = []field{
	{"model", "whisper-1"},
	{"language", "hy"},
	{"response_format", "verbose_json"},
	{"timestamp_granularities[]", "segment"},
	{"timestamp_granularities[]", "word"},
}

// post sends a form the way an OpenAI client does; fileName "" sends no file.
func post(t *testing.T, ctx context.Context, url string, fields []field, fileName string, audio []byte) (int, http.Header, []byte) {
	t.Helper()
	status, h, body, err := send(ctx, url, fields, fileName, audio)
	if err != nil {
		t.Fatal(err)
	}
	return status, h, body
}

func send(ctx context.Context, url string, fields []field, fileName string, audio []byte) (int, http.Header, []byte, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, f := range fields {
		mw.WriteField(f.name, f.value) // a bytes.Buffer never fails
	}
	if fileName != "" {
		w, _ := mw.CreateFormFile("file", fileName)
		w.Write(audio)
	}
	mw.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/audio/transcriptions", &body)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer res.Body.Close()
	var out bytes.Buffer
	_, err = out.ReadFrom(res.Body)
	return res.StatusCode, res.Header, out.Bytes(), err
}

func decode(t *testing.T, body []byte) asrtest.Response {
	t.Helper()
	var r asrtest.Response
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("answer %s: %v", body, err)
	}
	return r
}

func checkSpans(t *testing.T, got []asrtest.Segment, want [][2]float64, tolerance float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d segments %+v, want %d %v", len(got), got, len(want), want)
	}
	for i, s := range got {
		if math.Abs(s.Start-want[i][0]) > tolerance || math.Abs(s.End-want[i][1]) > tolerance {
			t.Errorf("segment %d spans %.3f-%.3f, want %.3f-%.3f (±%.3f)", i, s.Start, s.End, want[i][0], want[i][1], tolerance)
		}
	}
}

var twoTones = [][2]float64{{0.5, 1.0}, {2.0, 2.5}}

func TestEngineFindsStretchesOfSoundInWAV(t *testing.T) {
	e := asrtest.NewEngine(t)
	for _, tc := range []struct {
		name     string
		rate, ch int
	}{{"16 kHz mono", 16000, 1}, {"8 kHz mono", 8000, 1}, {"44.1 kHz stereo", 44100, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			wav := asrtest.WAV(tc.rate, tc.ch, 3, asrtest.Tone{Start: 0.5, End: 1.0, Channel: -1}, asrtest.Tone{Start: 2.0, End: 2.5, Channel: 0})
			status, _, body := post(t, t.Context(), e.URL(), standard, "call.wav", wav)
			if status != http.StatusOK {
				t.Fatalf("status %d: %s", status, body)
			}
			r := decode(t, body)
			checkSpans(t, r.Segments, twoTones, 0.05)
			if r.Language != "armenian" || math.Abs(r.Duration-3) > 0.01 {
				t.Errorf("language %q duration %v", r.Language, r.Duration)
			}
			wantText := asrtest.DefaultTexts[0] + " " + asrtest.DefaultTexts[1]
			if r.Text != wantText {
				t.Errorf("text %q, want %q", r.Text, wantText)
			}
			if len(r.Words) != len(strings.Fields(wantText)) {
				t.Fatalf("%d words for %q", len(r.Words), wantText)
			}
			for _, w := range r.Words {
				if w.Start < 0.5-0.05 || w.End > 2.5+0.05 || w.End < w.Start {
					t.Errorf("word %+v outside the speech", w)
				}
			}
		})
	}
}

func TestEngineAnswersSilenceWithNothing(t *testing.T) {
	e := asrtest.NewEngine(t)
	status, _, body := post(t, t.Context(), e.URL(), standard, "quiet.wav", asrtest.WAV(16000, 1, 2))
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	r := decode(t, body)
	if r.Text != "" || len(r.Segments) != 0 || len(r.Words) != 0 || math.Abs(r.Duration-2) > 0.01 {
		t.Errorf("silence gave %+v", r)
	}
}

func TestEngineDecodesMP3(t *testing.T) {
	e := asrtest.NewEngine(t)
	for _, tc := range []struct {
		file string
		want [][2]float64
	}{
		{"tones-16k-lame.mp3", twoTones},
		{"tones-44k-stereo-lame.mp3", twoTones},
		{"tones-16k-ffmpeg.mp3", twoTones},
		{"silence-16k-lame.mp3", nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			mp3, err := os.ReadFile("testdata/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			status, _, body := post(t, t.Context(), e.URL(), standard, tc.file, mp3)
			if status != http.StatusOK {
				t.Fatalf("status %d: %s", status, body)
			}
			checkSpans(t, decode(t, body).Segments, tc.want, 0.05)
		})
	}
}

func TestEngineRefusesMalformedRequests(t *testing.T) {
	e := asrtest.NewEngine(t, asrtest.WithModels("whisper-1"))
	wav := asrtest.WAV(16000, 1, 1)
	without := func(name string) []field {
		var out []field
		for _, f := range standard {
			if f.name != name {
				out = append(out, f)
			}
		}
		return out
	}
	with := func(name, value string) []field {
		return append(without(name), field{name, value})
	}
	for _, tc := range []struct {
		name   string
		fields []field
		file   string
		audio  []byte
		want   string
	}{
		{"no file", standard, "", nil, "provide a file"},
		{"no model", without("model"), "a.wav", wav, "model"},
		{"unknown model", with("model", "gpt-9"), "a.wav", wav, "gpt-9"},
		{"other language", with("language", "en"), "a.wav", wav, "language"},
		{"unknown format", with("response_format", "xml"), "a.wav", wav, "response_format"},
		{"words without verbose_json", append(without("response_format"), field{"response_format", "json"}), "a.wav", wav, "verbose_json"},
		{"unknown granularity", with("timestamp_granularities[]", "char"), "a.wav", wav, "char"},
		{"unsupported file", standard, "a.ogg", wav, "Invalid file format"},
		{"undecodable wav", standard, "a.wav", []byte("RIFF....WAVEjunk"), "corrupted"},
		{"undecodable mp3", standard, "a.mp3", []byte("not an mp3 at all"), "corrupted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := post(t, t.Context(), e.URL(), tc.fields, tc.file, tc.audio)
			if status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", status, body)
			}
			var answer struct {
				Error struct {
					Message string `json:"message"`
					Type    string `json:"type"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &answer); err != nil || !strings.Contains(answer.Error.Message, tc.want) || answer.Error.Type == "" {
				t.Errorf("error body %s does not say %q (%v)", body, tc.want, err)
			}
		})
	}

	res, err := http.Post(e.URL()+"/audio/transcriptions", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("a JSON body got %d, want 400", res.StatusCode)
	}
}

func TestEngineRequiresItsAPIKey(t *testing.T) {
	e := asrtest.NewEngine(t, asrtest.WithAPIKey("sk-test"))
	status, _, body := post(t, t.Context(), e.URL(), standard, "a.wav", asrtest.WAV(16000, 1, 1))
	if status != http.StatusUnauthorized || !strings.Contains(string(body), "invalid_api_key") {
		t.Errorf("no key: %d %s", status, body)
	}
}

func TestEngineKnobs(t *testing.T) {
	e := asrtest.NewEngine(t, asrtest.WithSpeakers("A", "B"), asrtest.WithTexts("մեկ", "երկու"))
	wav := asrtest.WAV(16000, 1, 3, asrtest.Tone{Start: 0.5, End: 1.0}, asrtest.Tone{Start: 2.0, End: 2.5})

	e.FailNext(2, http.StatusServiceUnavailable, "7")
	for i := range 2 {
		status, h, _ := post(t, t.Context(), e.URL(), standard, "a.wav", wav)
		if status != http.StatusServiceUnavailable || h.Get("Retry-After") != "7" {
			t.Fatalf("request %d: %d Retry-After %q", i, status, h.Get("Retry-After"))
		}
	}
	status, _, body := post(t, t.Context(), e.URL(), standard, "a.wav", wav)
	if status != http.StatusOK {
		t.Fatalf("third request %d: %s", status, body)
	}
	r := decode(t, body)
	if r.Text != "մեկ երկու" || r.Segments[0].Speaker != "A" || r.Segments[1].Speaker != "B" {
		t.Errorf("texts and speakers: %+v", r)
	}
	if n := e.Requests(); n != 3 {
		t.Errorf("Requests() = %d, want 3", n)
	}
	last := e.LastRequest()
	if last.Field("model") != "whisper-1" || len(last.Fields["timestamp_granularities[]"]) != 2 ||
		last.FileName != "a.wav" || last.FileSize != int64(len(wav)) || !bytes.Equal(last.Audio, wav) {
		t.Errorf("last request %+v", last)
	}

	// Formats other than verbose_json.
	status, _, body = post(t, t.Context(), e.URL(), []field{{"model", "m"}, {"response_format", "text"}}, "a.wav", wav)
	if status != http.StatusOK || string(body) != "մեկ երկու\n" {
		t.Errorf("text format: %d %q", status, body)
	}
	status, _, body = post(t, t.Context(), e.URL(), []field{{"model", "m"}}, "a.wav", wav)
	if status != http.StatusOK || string(body) != `{"text":"մեկ երկու"}`+"\n" {
		t.Errorf("json format: %d %q", status, body)
	}

	// Respond wraps the engine's own answer.
	e.Respond(func(req asrtest.Request) (asrtest.Response, int) {
		res, status := e.Answer(req)
		res.Text = "override"
		return res, status
	})
	_, _, body = post(t, t.Context(), e.URL(), standard, "a.wav", wav)
	if r := decode(t, body); r.Text != "override" || len(r.Segments) != 2 {
		t.Errorf("Respond: %+v", r)
	}
	e.Respond(func(asrtest.Request) (asrtest.Response, int) {
		return asrtest.Response{Error: "Audio is too short", RetryAfter: "3"}, http.StatusUnprocessableEntity
	})
	status, h, body := post(t, t.Context(), e.URL(), standard, "a.wav", wav)
	if status != http.StatusUnprocessableEntity || h.Get("Retry-After") != "3" || !strings.Contains(string(body), "Audio is too short") {
		t.Errorf("Respond error: %d %s", status, body)
	}
	e.Respond(nil)

	// Delay holds the answer until the client gives up.
	e.Delay(time.Minute)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.URL()+"/audio/transcriptions", strings.NewReader(""))
	start := time.Now()
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("delayed request: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Error("Delay ignored the client giving up")
	}
}

func TestEngineIsSafeForConcurrentUse(t *testing.T) {
	e := asrtest.NewEngine(t)
	wav := asrtest.WAV(16000, 1, 1, asrtest.Tone{Start: 0.2, End: 0.6})
	e.FailNext(5, http.StatusTooManyRequests, "")
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[int]int{}
	for range 20 {
		wg.Go(func() {
			status, _, _, err := send(context.Background(), e.URL(), standard, "a.wav", wav)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			counts[status]++
			mu.Unlock()
			_ = e.LastRequest()
		})
	}
	wg.Wait()
	if e.Requests() != 20 || counts[http.StatusTooManyRequests] != 5 || counts[http.StatusOK] != 15 {
		t.Errorf("Requests() = %d, statuses %v", e.Requests(), counts)
	}
}

// Files over WithMaxFileBytes are refused with 413, as OpenAI refuses files
// over 25 MB; a WAV of any length is analysed as it streams in, not kept.
func TestEngineLimitsFileSizeAndHearsLongWAV(t *testing.T) {
	const seconds = 15 * 60 // 28.8 MB at 16 kHz: over 25 MB, the 4 MiB kept, the 10 minutes decoded
	tones := [][2]float64{{1, 2}, {700, 701.5}, {898, 899}}
	var ts []asrtest.Tone
	for _, s := range tones {
		ts = append(ts, asrtest.Tone{Start: s[0], End: s[1], Channel: -1})
	}
	wav := asrtest.WAV(16000, 1, seconds, ts...)

	limited := asrtest.NewEngine(t, asrtest.WithMaxFileBytes(25_000_000))
	status, _, body := post(t, t.Context(), limited.URL(), standard, "call.wav", wav)
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "Maximum content size limit (25000000) exceeded") {
		t.Fatalf("over the limit: status %d: %s", status, body)
	}
	if got := limited.LastRequest().FileSize; got != int64(len(wav)) {
		t.Errorf("file size %d, want %d", got, len(wav))
	}

	for name, e := range map[string]*asrtest.Engine{
		"no limit":      asrtest.NewEngine(t),
		"at the limit":  asrtest.NewEngine(t, asrtest.WithMaxFileBytes(int64(len(wav)))),
		"tiny analysis": asrtest.NewEngine(t, asrtest.WithMaxAnalyzed(1024)),
	} {
		t.Run(name, func(t *testing.T) {
			status, _, body := post(t, t.Context(), e.URL(), standard, "call.wav", wav)
			if status != http.StatusOK {
				t.Fatalf("status %d: %s", status, body)
			}
			r := decode(t, body)
			checkSpans(t, r.Segments, tones, 0.02)
			if math.Abs(r.Duration-seconds) > 0.01 {
				t.Errorf("duration %v", r.Duration)
			}
		})
	}
}

func TestLengthRequiredRefusesChunkedBodies(t *testing.T) {
	e := asrtest.NewEngine(t, asrtest.WithLengthRequired())
	form := func() (*bytes.Buffer, string) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		for _, f := range standard {
			mw.WriteField(f.name, f.value)
		}
		w, _ := mw.CreateFormFile("file", "a.wav")
		w.Write(asrtest.WAV(16000, 1, 1, asrtest.Tone{Start: 0.2, End: 0.6}))
		mw.Close()
		return &body, mw.FormDataContentType()
	}
	do := func(chunked bool) int {
		t.Helper()
		body, ct := form()
		var r io.Reader = body
		if chunked {
			r = io.MultiReader(body) // hides the length: the client sends it chunked
		}
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, e.URL()+"/audio/transcriptions", r)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", ct)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := do(true); got != http.StatusLengthRequired {
		t.Errorf("chunked body: %d, want 411", got)
	}
	if got := e.LastRequest().ContentLength; got != -1 {
		t.Errorf("recorded Content-Length %d of a chunked body, want -1", got)
	}
	if got := do(false); got != http.StatusOK {
		t.Errorf("body with a length: %d, want 200", got)
	}
	if e.Requests() != 2 || e.Chunked() != 1 {
		t.Errorf("%d requests, %d chunked; want 2 and 1", e.Requests(), e.Chunked())
	}
}
