package app_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// flakyPieces answers each piece by its content ("MP3 120 1-part-N") and
// fails the pieces in fail once, as an engine that drops a request.
type flakyPieces struct {
	mu   sync.Mutex
	fail map[string]bool
	sent []string
}

func (f *flakyPieces) Recognize(_ context.Context, a ports.AudioFile) (domain.Recognition, error) {
	r, err := a.Open()
	if err != nil {
		return domain.Recognition{}, err
	}
	b, _ := io.ReadAll(r)
	r.Close()
	name := string(b)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, name)
	if f.fail[name] {
		delete(f.fail, name)
		return domain.Recognition{}, fmt.Errorf("speech engine: connection reset: %w", domain.ErrUnavailable)
	}
	return domain.Recognition{Segments: []domain.Segment{{Start: 1, End: 2, Text: name}}}, nil
}

// Issue 28: a recording recognised again (its worker killed mid-way, or a
// piece lost and the stage retrying) re-sends only the pieces that had not
// come back; the kept ones are stitched in as they were, and forgotten once
// the job is recognised.
func TestRecognisedAgainResendsOnlyMissingPieces(t *testing.T) {
	w := newWorld(t)
	eng := &flakyPieces{fail: map[string]bool{"MP3 120 1-part-3": true}}
	w.rec = nil
	w.tr = app.NewTranscribeAudio(w.store, w.blobs, splitter{}, eng, w.clock, t.TempDir(), nil,
		app.WithChunking(channelChunker{"MP3 120 1": {{End: 30}, {Start: 30, From: 30, End: 60}, {Start: 60, From: 60, End: 90}, {Start: 90, From: 90, End: 120}}},
			ports.ChunkLimits{MaxSeconds: 600}, 1),
		app.WithRecognizedPieces(w.store))
	var failed error
	var event domain.Event
	w.handlers[domain.TopicAudioProcessed] = []func(context.Context, domain.Event) error{func(ctx context.Context, ev domain.Event) error {
		event = ev
		if err := w.tr.Handle(ctx, ev); err != nil {
			failed = err // the consumer would retry; the test does below
		}
		return nil
	}}
	p := w.account(domain.PlanBusiness, 3600)
	res := w.newJob(p, `{"type":"single_voice"}`)
	w.put(res.DocID, "MP3 120 1")
	w.drain()
	if !errors.Is(failed, domain.ErrUnavailable) {
		t.Fatalf("first attempt: %v", failed)
	}
	if j := w.job(res.DocID); j.Status != domain.StatusConverting {
		t.Fatalf("after the lost piece the job is %s", j.Status)
	}
	kept, err := w.store.RecognizedPieces(w.ctx, res.DocID)
	// One at a time, in order: parts 1 and 2 came back, 3 was lost and
	// stopped the rest (4 was never sent).
	if err != nil || len(kept) != 2 {
		t.Fatalf("kept %v, %v; want the 2 pieces that came back", kept, err)
	}

	eng.sent = nil
	if err := w.tr.Handle(w.ctx, event); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(eng.sent, []string{"MP3 120 1-part-3", "MP3 120 1-part-4"}) {
		t.Fatalf("sent again %v, want only the piece that had not come back", eng.sent)
	}
	j := w.job(res.DocID)
	if j.Status != domain.StatusConverting && j.Status != domain.StatusTranscribed || j.Transcription != "MP3 120 1-part-1 MP3 120 1-part-2 MP3 120 1-part-3 MP3 120 1-part-4" {
		t.Fatalf("%s %q", j.Status, j.Transcription)
	}
	if kept, _ := w.store.RecognizedPieces(w.ctx, res.DocID); len(kept) != 0 {
		t.Fatalf("pieces kept after the job was recognised: %v", kept)
	}
}
