package app_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// channelChunker cuts each file into the pieces given for its content
// ("left", "right"), files holding "left-part-N" so the fake recognizer can
// answer each; content it has no pieces for is silent.
type channelChunker map[string][]ports.Chunk

func (c channelChunker) Chunk(_ context.Context, open func() (io.ReadCloser, error), dir string, _ ports.ChunkLimits) ([]ports.Chunk, error) {
	r, err := open()
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return nil, err
	}
	pieces, ok := c[string(b)]
	if !ok {
		return nil, domain.Permanent(domain.ErrNoSpeech)
	}
	var out []ports.Chunk
	if len(pieces) > 1 { // dir is made by the chunker (ports.AudioChunker)
		if err := os.Mkdir(dir, 0o700); err != nil {
			return nil, err
		}
	}
	for i, p := range pieces {
		if len(pieces) > 1 {
			name := fmt.Sprintf("%s-part-%d", b, i+1)
			p.Path = filepath.Join(dir, name)
			if err := os.WriteFile(p.Path, []byte(name), 0o600); err != nil {
				return nil, err
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// A long stereo call: each channel is cut into pieces, the pieces of both
// recognised, each channel stitched with absolute times and the two merged
// by time, one speaker per channel.
func TestLongStereoCallIsRecognizedInPiecesPerChannel(t *testing.T) {
	w := newWorld(t)
	tmp := t.TempDir()
	w.tr = app.NewTranscribeAudio(w.store, w.blobs, splitter{}, w.rec, w.clock, tmp, nil,
		app.WithChunking(channelChunker{
			"left":  {{End: 700}, {Start: 700, From: 700, End: 1400}, {Start: 1400, From: 1400, End: 1500}},
			"right": {{End: 750}, {Start: 750, From: 750, End: 1500}},
		}, ports.ChunkLimits{MaxSeconds: 750}, 3))
	w.handlers[domain.TopicAudioProcessed] = []func(context.Context, domain.Event) error{w.tr.Handle}
	w.rec.by = map[string]domain.Recognition{
		"left-part-1":  {Segments: []domain.Segment{{Start: 1, End: 2, Text: "Բարև ձեզ։"}}},
		"left-part-2":  {Segments: []domain.Segment{{Start: 10, End: 12, Text: "Պատվերը պատրաստ է։"}}},
		"left-part-3":  {Segments: []domain.Segment{{Start: 50, End: 51, Text: "Ցտեսություն։"}}},
		"right-part-1": {Segments: []domain.Segment{{Start: 3, End: 4, Text: "Բարև, լսում եմ։"}}},
		"right-part-2": {Segments: []domain.Segment{{Start: 0, End: 2, Text: "Շնորհակալություն։"}}},
	}
	p := w.account(domain.PlanBusiness, 3600)
	res := w.newJob(p, `{"type":"phone_call"}`)
	w.put(res.DocID, "MP3 1500 2")
	w.drain()
	j := w.job(res.DocID)
	if j.Status != domain.StatusTranscribed {
		t.Fatalf("%s %q", j.Status, j.Error)
	}
	want := []domain.Segment{
		{Start: 1, End: 2, Speaker: "1", Text: "Բարև ձեզ։", Channel: domain.ChannelLeft},
		{Start: 3, End: 4, Speaker: "2", Text: "Բարև, լսում եմ։", Channel: domain.ChannelRight},
		{Start: 710, End: 712, Speaker: "1", Text: "Պատվերը պատրաստ է։", Channel: domain.ChannelLeft},
		{Start: 750, End: 752, Speaker: "2", Text: "Շնորհակալություն։", Channel: domain.ChannelRight},
		{Start: 1450, End: 1451, Speaker: "1", Text: "Ցտեսություն։", Channel: domain.ChannelLeft},
	}
	if fmt.Sprint(j.Segments) != fmt.Sprint(want) {
		t.Fatalf("segments %+v\nwant %+v", j.Segments, want)
	}
	if w.rec.Calls() != 5 {
		t.Errorf("%d requests, want 5 pieces", w.rec.Calls())
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A party that never speaks leaves its channel silent: the call is the
// other party's alone, and the silent channel costs no request. A call
// silent on both channels has no speech.
func TestStereoCallWithASilentChannel(t *testing.T) {
	w := newWorld(t)
	w.useTranscriber(splitter{}, app.WithChunking(channelChunker{"left": {{End: 6}}}, ports.ChunkLimits{MaxSeconds: 600}, 1))
	w.rec.by = map[string]domain.Recognition{"left": {Segments: []domain.Segment{{Start: 1, End: 2, Text: "Բարև ձեզ։"}}}}
	p := w.account(domain.PlanBusiness, 60)
	res := w.newJob(p, `{"type":"phone_call"}`)
	w.put(res.DocID, "MP3 6 2")
	w.drain()
	if j := w.job(res.DocID); j.Status != domain.StatusTranscribed || j.Transcription != "Խոսնակ 1: Բարև ձեզ։" || w.rec.Calls() != 1 {
		t.Fatalf("%s %q %q, %d requests", j.Status, j.Transcription, j.Error, w.rec.Calls())
	}

	w = newWorld(t)
	w.useTranscriber(splitter{}, app.WithChunking(channelChunker{}, ports.ChunkLimits{MaxSeconds: 600}, 1))
	p = w.account(domain.PlanBusiness, 60)
	res = w.newJob(p, `{"type":"phone_call"}`)
	w.put(res.DocID, "MP3 6 2")
	w.drain()
	if j := w.job(res.DocID); j.Status != domain.StatusFailed || j.Error != "no speech detected in the recording" || w.rec.Calls() != 0 {
		t.Fatalf("%s %q, %d requests", j.Status, j.Error, w.rec.Calls())
	}
}
