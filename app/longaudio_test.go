package app_test

// An integration test of the transcribe stage with the real MP3 chunker and
// speech client against an engine that refuses requests over 25 MB, as
// OpenAI's does: a two-hour recording goes through in pieces, stitched back
// without a word doubled or dropped, in flat memory.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/asr"
	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/mp3"
	"github.com/hyscribe/hyscribe/adapters/mp3/mp3test"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/heaptest"
	"github.com/hyscribe/hyscribe/ports"
)

// longBlobs serves the generated recording under every key.
type longBlobs struct{ long *mp3test.LongSpeech }

func (b longBlobs) Put(context.Context, string, io.Reader, int64) (int64, error) {
	return 0, fmt.Errorf("read-only")
}
func (b longBlobs) Open(context.Context, string) (ports.Blob, error) {
	r, err := b.long.Open()
	if err != nil {
		return nil, err
	}
	return sizedBlob{r, b.long.Size()}, nil
}
func (b longBlobs) Delete(context.Context, string) error { return nil }

// sizedBlob is a generated blob whose size is known beforehand.
type sizedBlob struct {
	io.ReadCloser
	size int64
}

func (b sizedBlob) Size() int64 { return b.size }

// wordFinder hears a "word" in every run of frames that code something, as
// the fake engine and the expectation both do. Frames are the fixture's
// 144-byte MPEG-2 16 kHz mono frames.
type wordFinder struct {
	frame  []byte
	n      int // frames seen
	start  int // first frame of the current run, -1 outside one
	words  []domain.Word
	prefix string
}

func newWordFinder(prefix string) *wordFinder { return &wordFinder{start: -1, prefix: prefix} }

func (f *wordFinder) Write(p []byte) (int, error) {
	for _, c := range p {
		f.frame = append(f.frame, c)
		if len(f.frame) == mp3test.FrameBytes {
			// part2_3_length: 12 bits after main_data_begin (8) and the
			// private bit (1) of the side information after the header.
			side := f.frame[4:]
			p23 := int(side[1]&0x7F)<<5 | int(side[2]>>3)
			f.step(p23 > 0)
			f.frame = f.frame[:0]
		}
	}
	return len(p), nil
}

func (f *wordFinder) step(sound bool) {
	switch {
	case sound && f.start < 0:
		f.start = f.n
	case !sound && f.start >= 0:
		f.emit()
	}
	f.n++
}

func (f *wordFinder) emit() {
	w := domain.Word{Start: float64(f.start) * mp3test.FrameSeconds, End: float64(f.n) * mp3test.FrameSeconds, Word: f.prefix}
	f.words = append(f.words, w)
	f.start = -1
}

func (f *wordFinder) finish() []domain.Word {
	if f.start >= 0 {
		f.emit()
	}
	return f.words
}

// limitedEngine is an OpenAI-style endpoint that answers 413 above maxBytes.
func limitedEngine(t *testing.T, maxBytes int64, requests *atomic.Int32, peakConcurrent *atomic.Int32) *httptest.Server {
	var inFlight atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peakConcurrent.Load(); n > p && !peakConcurrent.CompareAndSwap(p, n); p = peakConcurrent.Load() {
		}
		requests.Add(1)
		mr, err := r.MultipartReader()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var finder *wordFinder
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if part.FormName() != "file" {
				continue
			}
			finder = newWordFinder("բառ")
			size, err := io.Copy(finder, io.LimitReader(part, maxBytes+1))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if size > maxBytes {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusRequestEntityTooLarge)
				fmt.Fprintf(w, `{"error":{"message":"Maximum content size limit (%d) exceeded","type":"invalid_request_error"}}`, maxBytes)
				return
			}
		}
		if finder == nil {
			http.Error(w, "no file", http.StatusBadRequest)
			return
		}
		words := finder.finish()
		type seg struct {
			Start float64 `json:"start"`
			End   float64 `json:"end"`
			Text  string  `json:"text"`
		}
		var segs []seg
		var texts []string
		for _, wd := range words {
			segs = append(segs, seg{wd.Start, wd.End, wd.Word})
			texts = append(texts, wd.Word)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"task": "transcribe", "language": "armenian", "duration": float64(finder.n) * mp3test.FrameSeconds,
			"text": strings.Join(texts, " "), "segments": segs, "words": words,
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestTwoHourRecordingIsChunkedUnderTheEnginesLimit(t *testing.T) {
	const limit = 25_000_000
	long := mp3test.NewLongSpeech(t, 2*3600)
	if long.Size() <= limit {
		t.Fatalf("the recording is %d bytes, not over the engine's limit", long.Size())
	}
	var requests, peakConcurrent atomic.Int32
	srv := limitedEngine(t, limit, &requests, &peakConcurrent)
	client, err := asr.New(asr.Config{BaseURL: srv.URL + "/v1", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	engine := asr.Guard(client, asr.GuardConfig{Concurrency: 2})

	// Whole, the recording is refused: the limit is real.
	if _, err := engine.Recognize(context.Background(), ports.AudioFile{Name: "audio.mp3", Open: long.Open}); !domain.IsPermanent(err) || !strings.Contains(err.Error(), "413") {
		t.Fatalf("whole recording: %v", err)
	}
	requests.Store(0)

	// What the engine hears in the whole recording, in one streaming pass.
	want := newWordFinder("բառ")
	r, _ := long.Open()
	io.Copy(want, r)
	wantWords := want.finish()

	w := newWorld(t)
	w.tr = app.NewTranscribeAudio(w.store, longBlobs{long}, mp3.Splitter{}, engine, w.clock, t.TempDir(), nil,
		app.WithChunking(mp3.Chunker{}, ports.ChunkLimits{MaxBytes: 24 << 20, MaxSeconds: 3600}, 4))
	w.handlers[domain.TopicAudioProcessed] = []func(context.Context, domain.Event) error{w.tr.Handle}
	p := w.account(domain.PlanBusiness, 3*3600)
	res := w.newJob(p, `{"type":"single_voice"}`)
	w.put(res.DocID, fmt.Sprintf("MP3 %.3f 1", long.Seconds()))

	var peak atomic.Uint64
	stop := heaptest.SamplePeak(&peak)
	start := time.Now()
	w.drain()
	stop()
	j := w.job(res.DocID)
	t.Logf("%.0f s recording, %.1f MB: %d requests (at most %d at once) in %v; peak heap in use %.1f MB",
		long.Seconds(), float64(long.Size())/1e6, requests.Load(), peakConcurrent.Load(), time.Since(start).Round(time.Millisecond), float64(peak.Load())/1e6)
	if j.Status != domain.StatusTranscribed {
		t.Fatalf("%s %q", j.Status, j.Error)
	}
	if requests.Load() < 2 || peakConcurrent.Load() > 2 {
		t.Fatalf("%d requests, %d at once", requests.Load(), peakConcurrent.Load())
	}
	// Every word once, at its absolute time: nothing doubled or dropped at
	// the seams.
	if len(j.Segments) != len(wantWords) {
		t.Fatalf("%d words after stitching, the whole recording has %d", len(j.Segments), len(wantWords))
	}
	for i, s := range j.Segments {
		if math.Abs(s.Start-wantWords[i].Start) > 1e-6 || math.Abs(s.End-wantWords[i].End) > 1e-6 {
			t.Fatalf("word %d at %.3f–%.3f, want %.3f–%.3f", i, s.Start, s.End, wantWords[i].Start, wantWords[i].End)
		}
	}
	if peak.Load() > 64<<20 {
		t.Errorf("peak heap %d bytes: memory is not flat", peak.Load())
	}
}

// A stereo call goes through the real splitter, chunker and speech client
// against an engine that refuses files over its limit: each channel (a
// WAV over the limit) is cut into pieces in its pauses, and the stitched
// segments of both channels lie at their absolute times. One minute
// against a 1.5 MB limit: the same code and the same cuts as two hours
// against OpenAI's 25 MB, at a scale that decodes in seconds. The two
// hours, and the flat memory that only that length can show, are
// BenchmarkTwoHourStereoCall's (make bench); the chunker alone cuts two
// hours of WAV in adapters/mp3's TestChunkerTwoHourWAV.
func TestLongStereoCallIsChunkedUnderTheEnginesLimit(t *testing.T) {
	stereoCallThroughTheStage(t, 60, 1_500_000, 512<<10)
}

// BenchmarkTwoHourStereoCall is the two-hour stereo call (two channels of
// 230 MB of WAV, nine times the engine's 25 MB) through the transcribe
// stage: its time, and its peak heap (peak-heap-MB), which must stay under
// 64 MB — memory flat in the recording's length.
func BenchmarkTwoHourStereoCall(b *testing.B) {
	for b.Loop() {
		peak := stereoCallThroughTheStage(b, 2*3600, 25_000_000, 24<<20)
		b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
		if peak > 64<<20 {
			b.Errorf("peak heap %d bytes: memory is not flat", peak)
		}
	}
}

// stereoCallThroughTheStage sends a stereo call of seconds through the
// transcribe stage against an engine that refuses files over limit bytes,
// cutting pieces of at most maxBytes, checks every turn comes back at its
// time on its speaker, and returns the peak heap in use meanwhile.
func stereoCallThroughTheStage(tb testing.TB, seconds float64, limit, maxBytes int64) (peakHeap uint64) {
	tb.Helper()
	call := mp3test.NewLongCall(tb, seconds)
	const wavBytesPerSecond = 2 * mp3.SpeechRate
	if channel := int64(call.Seconds() * wavBytesPerSecond); channel <= limit {
		tb.Fatalf("a channel is %d bytes of WAV, not over the engine's limit", channel)
	}
	e := asrtest.NewEngine(tb, asrtest.WithMaxFileBytes(limit))
	client, err := asr.New(asr.Config{BaseURL: e.URL(), MaxAttempts: 1})
	if err != nil {
		tb.Fatal(err)
	}
	engine := asr.Guard(client, asr.GuardConfig{Concurrency: 2})

	w := newWorld(tb)
	tmp := tb.TempDir()
	w.tr = app.NewTranscribeAudio(w.store, longBlobs{&call.LongSpeech}, mp3.Splitter{}, engine, w.clock, tmp, nil,
		app.WithChunking(mp3.Chunker{}, ports.ChunkLimits{MaxBytes: maxBytes, MaxSeconds: 3600}, 4))
	w.handlers[domain.TopicAudioProcessed] = []func(context.Context, domain.Event) error{w.tr.Handle}
	p := w.account(domain.PlanBusiness, 3*3600)
	res := w.newJob(p, `{"type":"phone_call"}`)
	w.put(res.DocID, fmt.Sprintf("MP3 %.3f 2", call.Seconds()))

	var peak atomic.Uint64
	stop := heaptest.SamplePeak(&peak)
	start := time.Now()
	w.drain()
	stop()
	j := w.job(res.DocID)
	tb.Logf("%.0f s stereo call, %.1f MB: %d requests (the last %.1f MB) in %v; peak heap in use %.1f MB",
		call.Seconds(), float64(call.Size())/1e6, e.Requests(), float64(e.LastRequest().FileSize)/1e6, time.Since(start).Round(time.Millisecond), float64(peak.Load())/1e6)
	if j.Status != domain.StatusTranscribed {
		tb.Fatalf("%s %q", j.Status, j.Error)
	}
	// Every repetition of the fixture: left speaks at 0–1.5 s and 3–4.5 s,
	// right at 1.5–3 s and 4.5–6 s, after the codec's delay.
	var want []domain.Segment
	for k := range call.Periods {
		at := float64(k)*mp3test.CallPeriodSeconds + mp3test.CallDelaySeconds
		for i, speaker := range []string{"1", "2", "1", "2"} {
			want = append(want, domain.Segment{Start: at + 1.5*float64(i), End: at + 1.5*float64(i+1), Speaker: speaker})
		}
	}
	if len(j.Segments) != len(want) {
		tb.Fatalf("%d segments after stitching, the call has %d turns", len(j.Segments), len(want))
	}
	for i, s := range j.Segments {
		if s.Speaker != want[i].Speaker || math.Abs(s.Start-want[i].Start) > 0.03 || math.Abs(s.End-want[i].End) > 0.03 {
			tb.Fatalf("segment %d: speaker %s at %.3f–%.3f, want speaker %s at %.3f–%.3f", i, s.Speaker, s.Start, s.End, want[i].Speaker, want[i].Start, want[i].End)
		}
	}
	if e.Requests() < 6 {
		tb.Errorf("%d requests: the channels were not cut", e.Requests())
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		tb.Errorf("temporary files left: %v", left)
	}
	return peak.Load()
}

// The stitching stays exact at the sizes the service now cuts (issue 28):
// an hour cut into pieces of about 30 s, in a multiple of the engine's 4
// slots, through the real chunker and speech client. Every word of the
// recording comes back once at its absolute time, and the pieces reached
// the engine longest first.
func TestHourRecordingInPiecesSizedForTheEnginesSlots(t *testing.T) {
	seconds := 3600.0
	if raceDetector || testing.Short() {
		seconds = 600
	}
	long := mp3test.NewLongSpeech(t, seconds)
	var requests, peakConcurrent atomic.Int32
	srv := limitedEngine(t, 25_000_000, &requests, &peakConcurrent)
	client, err := asr.New(asr.Config{BaseURL: srv.URL + "/v1", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	var sent []float64
	var mu sync.Mutex
	engine := recorded{asr.Guard(client, asr.GuardConfig{Concurrency: 4}), func(a ports.AudioFile) {
		mu.Lock()
		sent = append(sent, a.Seconds)
		mu.Unlock()
	}}

	want := newWordFinder("բառ")
	r, _ := long.Open()
	io.Copy(want, r)
	wantWords := want.finish()

	limits := ports.ChunkLimits{MaxBytes: 24 << 20, MaxSeconds: 600, PieceSeconds: 30, WholeSeconds: 90, Slots: 4}
	w := newWorld(t)
	w.tr = app.NewTranscribeAudio(w.store, longBlobs{long}, mp3.Splitter{}, engine, w.clock, t.TempDir(), nil,
		app.WithChunking(mp3.Chunker{}, limits, 1)) // one at a time: the order is the plan's
	w.handlers[domain.TopicAudioProcessed] = []func(context.Context, domain.Event) error{w.tr.Handle}
	p := w.account(domain.PlanBusiness, 3*3600)
	res := w.newJob(p, `{"type":"single_voice"}`)
	w.put(res.DocID, fmt.Sprintf("MP3 %.3f 1", long.Seconds()))
	w.drain()
	j := w.job(res.DocID)
	if j.Status != domain.StatusTranscribed {
		t.Fatalf("%s %q", j.Status, j.Error)
	}
	n := domain.PieceCount(long.Seconds(), domain.PieceSizing{MaxSeconds: 600, Seconds: 30, WholeSeconds: 90, Slots: 4})
	if int(requests.Load()) != n || n%4 != 0 || n < int(seconds/30)-4 {
		t.Fatalf("%d requests, want the plan's %d pieces (a multiple of 4 slots)", requests.Load(), n)
	}
	for i := 1; i < len(sent); i++ {
		if sent[i] > sent[i-1] {
			t.Fatalf("piece %d (%.2f s) sent after a shorter one (%.2f s): not longest first", i, sent[i], sent[i-1])
		}
	}
	if sent[0] > 30*1.4 || sent[len(sent)-1] < 30*0.6 {
		t.Fatalf("pieces of %.1f–%.1f s, not about 30 s", sent[len(sent)-1], sent[0])
	}
	if len(j.Segments) != len(wantWords) {
		t.Fatalf("%d words after stitching %d pieces, the recording has %d", len(j.Segments), n, len(wantWords))
	}
	for i, s := range j.Segments {
		if math.Abs(s.Start-wantWords[i].Start) > 1e-6 || math.Abs(s.End-wantWords[i].End) > 1e-6 {
			t.Fatalf("word %d at %.3f–%.3f, want %.3f–%.3f", i, s.Start, s.End, wantWords[i].Start, wantWords[i].End)
		}
	}
}

// recorded tells saw of every request before passing it on.
type recorded struct {
	next ports.SpeechRecognizer
	saw  func(ports.AudioFile)
}

func (r recorded) Recognize(ctx context.Context, a ports.AudioFile) (domain.Recognition, error) {
	r.saw(a)
	return r.next.Recognize(ctx, a)
}
