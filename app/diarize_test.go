package app_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// monoSplitter writes one "mono" file, as a mono recording gives.
type monoSplitter struct{}

func (monoSplitter) SplitChannels(_ context.Context, _ io.Reader, dir string) ([]string, error) {
	p := filepath.Join(dir, "mono.wav")
	return []string{p}, os.WriteFile(p, []byte("mono"), 0o600)
}

type diarizer struct {
	mu    sync.Mutex
	turns []domain.Turn
	calls int
}

func (d *diarizer) Diarize(_ context.Context, path string) ([]domain.Turn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls++
	if b, err := os.ReadFile(path); err != nil || string(b) != "mono" {
		return nil, fmt.Errorf("diarizer got %q, %v", b, err)
	}
	return d.turns, nil
}

// chunker cuts every recording into the pieces given, files holding
// "part-N" so the fake recognizer can answer each.
type chunker struct{ pieces []ports.Chunk }

func (c chunker) Chunk(_ context.Context, open func() (io.ReadCloser, error), dir string, _ ports.ChunkLimits) ([]ports.Chunk, error) {
	r, err := open()
	if err != nil {
		return nil, err
	}
	r.Close()
	var out []ports.Chunk
	if len(c.pieces) > 1 { // dir is made by the chunker (ports.AudioChunker)
		if err := os.Mkdir(dir, 0o700); err != nil {
			return nil, err
		}
	}
	for i, p := range c.pieces {
		if len(c.pieces) > 1 {
			p.Path = filepath.Join(dir, fmt.Sprintf("part-%d", i+1))
			if err := os.WriteFile(p.Path, []byte(fmt.Sprintf("part-%d", i+1)), 0o600); err != nil {
				return nil, err
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// useTranscriber swaps the world's transcribe stage for one built with opts.
func (w *world) useTranscriber(s ports.ChannelSplitter, opts ...app.TranscribeOption) {
	w.tr = app.NewTranscribeAudio(w.store, w.blobs, s, w.rec, w.clock, w.t.TempDir(), nil, opts...)
	w.handlers[domain.TopicAudioProcessed] = []func(context.Context, domain.Event) error{w.tr.Handle}
}

func TestMonoPhoneCallIsDiarized(t *testing.T) {
	w := newWorld(t)
	d := &diarizer{turns: []domain.Turn{{Start: 0, End: 2, Speaker: "B"}, {Start: 2.3, End: 4, Speaker: "A"}, {Start: 4.2, End: 6, Speaker: "B"}}}
	w.useTranscriber(monoSplitter{}, app.WithDiarizer(d))
	// One engine segment runs across the first change of speaker: its
	// words are split where the diarizer says.
	w.rec.def = domain.Recognition{
		Segments: []domain.Segment{{Start: 0.1, End: 3.9, Text: "Բարև ձեզ։ Բարև, լսում եմ։"}, {Start: 4.3, End: 5.5, Text: "Շնորհակալություն։"}},
		Words: []domain.Word{{Start: 0.1, End: 0.6, Word: "Բարև"}, {Start: 0.7, End: 1.5, Word: "ձեզ։"}, {Start: 2.4, End: 2.9, Word: "Բարև,"},
			{Start: 3, End: 3.3, Word: "լսում"}, {Start: 3.4, End: 3.9, Word: "եմ։"}, {Start: 4.3, End: 5.5, Word: "Շնորհակալություն։"}},
	}
	p := w.account(domain.PlanBusiness, 60)
	res := w.newJob(p, `{"type":"phone_call"}`)
	w.put(res.DocID, "MP3 6 1")
	w.drain()
	j := w.job(res.DocID)
	want := "Խոսնակ 1: Բարև ձեզ։\nԽոսնակ 2: Բարև, լսում եմ։\nԽոսնակ 1: Շնորհակալություն։"
	if j.Status != domain.StatusTranscribed || j.Transcription != want {
		t.Fatalf("%s %q %q", j.Status, j.Transcription, j.Error)
	}
	if len(j.Segments) != 3 || j.Segments[1].Speaker != "2" || j.Segments[1].Start != 2.4 || j.Segments[2].Speaker != "1" {
		t.Fatalf("segments %+v", j.Segments)
	}
}

func TestMonoPhoneCallPrefersTheEnginesOwnSpeakers(t *testing.T) {
	w := newWorld(t)
	d := &diarizer{turns: []domain.Turn{{Start: 0, End: 6, Speaker: "A"}}}
	w.useTranscriber(monoSplitter{}, app.WithDiarizer(d))
	w.rec.def = domain.Recognition{Segments: []domain.Segment{
		{Start: 0, End: 1, Text: "Բարև։", Speaker: "spk_1"}, {Start: 1, End: 2, Text: "Ողջույն։", Speaker: "spk_0"}}}
	p := w.account(domain.PlanBusiness, 60)
	res := w.newJob(p, `{"type":"phone_call"}`)
	w.put(res.DocID, "MP3 6 1")
	w.drain()
	if j := w.job(res.DocID); j.Transcription != "Խոսնակ 1: Բարև։\nԽոսնակ 2: Ողջույն։" {
		t.Fatalf("%s %q", j.Status, j.Transcription)
	}
}

func TestMonoPhoneCallWithoutSpeechNeverReachesTheEngine(t *testing.T) {
	w := newWorld(t)
	d := &diarizer{}
	w.useTranscriber(monoSplitter{}, app.WithDiarizer(d))
	p := w.account(domain.PlanBusiness, 60)
	res := w.newJob(p, `{"type":"phone_call"}`)
	w.put(res.DocID, "MP3 6 1")
	w.drain()
	j := w.job(res.DocID)
	if j.Status != domain.StatusFailed || j.Error != "no speech detected in the recording" || w.rec.Calls() != 0 || d.calls != 1 || w.balance(p) != 60000 {
		t.Fatalf("%s %q engine calls %d balance %d", j.Status, j.Error, w.rec.Calls(), w.balance(p))
	}
}

func TestLongRecordingIsRecognizedInPiecesAndStitched(t *testing.T) {
	w := newWorld(t)
	pieces := []ports.Chunk{{Start: -0.05, From: -0.05, End: 600}, {Start: 599.96, From: 600, End: 1200}, {Start: 1199.96, From: 1200, End: 1500}}
	w.useTranscriber(splitter{}, app.WithChunking(chunker{pieces: pieces}, ports.ChunkLimits{MaxSeconds: 600}, 2))
	w.rec.by = map[string]domain.Recognition{
		"part-1": {Text: "Բարև ձեզ։", Segments: []domain.Segment{{Start: 1, End: 2, Text: "Բարև ձեզ։"}}},
		"part-2": {Text: "Պատվերը պատրաստ է։", Segments: []domain.Segment{{Start: 10, End: 12, Text: "Պատվերը պատրաստ է։"}}},
		"part-3": {Text: "Ցտեսություն։", Segments: []domain.Segment{{Start: 200, End: 201, Text: "Ցտեսություն։"}}},
	}
	p := w.account(domain.PlanBusiness, 3600)
	res := w.newJob(p, `{"type":"single_voice"}`)
	w.put(res.DocID, "MP3 1500 1")
	w.drain()
	j := w.job(res.DocID)
	if j.Status != domain.StatusTranscribed || j.Transcription != "Բարև ձեզ։ Պատվերը պատրաստ է։ Ցտեսություն։" || w.rec.Calls() != 3 {
		t.Fatalf("%s %q %q calls %d", j.Status, j.Transcription, j.Error, w.rec.Calls())
	}
	starts := []float64{0.95, 609.96, 1399.96}
	for i, s := range j.Segments {
		if d := s.Start - starts[i]; d > 1e-6 || d < -1e-6 {
			t.Fatalf("segment %d starts at %v, want %v", i, s.Start, starts[i])
		}
	}
}

func TestOnePieceFailingFailsTheRecognition(t *testing.T) {
	w := newWorld(t)
	pieces := []ports.Chunk{{End: 600}, {Start: 600, From: 600, End: 1200}}
	w.useTranscriber(splitter{}, app.WithChunking(chunker{pieces: pieces}, ports.ChunkLimits{MaxSeconds: 600}, 1))
	w.rec.errs = []error{domain.Permanent(errors.New("speech engine refused the file: 413 Request Entity Too Large"))}
	p := w.account(domain.PlanBusiness, 3600)
	res := w.newJob(p, `{"type":"single_voice"}`)
	w.put(res.DocID, "MP3 1200 1")
	w.drain()
	if j := w.job(res.DocID); j.Status != domain.StatusFailed || !strings.Contains(j.Error, "413") {
		t.Fatalf("%s %q", j.Status, j.Error)
	}
}

// A job waiting for an engine whose circuit stays open is failed by the
// sweeper in the end, with an error that names the engine.
func TestSweeperFailsAJobWhoseEngineNeverCameBack(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	down := fmt.Errorf("speech engine unavailable: %w", errors.Join(domain.ErrUnavailable, domain.ErrBackOff))
	w.rec.errs = []error{down, down, down, down, down}
	// The consumer would wait on this error; here it is simply dropped.
	w.handlers[domain.TopicAudioProcessed] = []func(context.Context, domain.Event) error{
		func(ctx context.Context, ev domain.Event) error { w.tr.Handle(ctx, ev); return nil },
	}
	res := w.newJob(p, `{"type":"single_voice"}`)
	w.put(res.DocID, "MP3 4 1")
	w.drain()
	if j := w.job(res.DocID); j.Status != domain.StatusConverting {
		t.Fatalf("%s %q", j.Status, j.Error)
	}
	for i := 0; i <= w.sweeper.MaxRedrives; i++ {
		w.clock.Add(w.sweeper.StuckAfter + time.Second)
		w.sweeper.SweepOnce(w.ctx)
		w.drain()
	}
	j := w.job(res.DocID)
	if j.Status != domain.StatusFailed || !strings.Contains(j.Error, "speech engine was unavailable") || w.balance(p) != 60000 {
		t.Fatalf("%s %q balance %d", j.Status, j.Error, w.balance(p))
	}
}
