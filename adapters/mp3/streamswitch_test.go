package mp3

import (
	"bytes"
	"context"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Files joined with cat from recordings of different formats are refused
// by the prober, the splitter and the chunker alike, with a reason naming
// both formats and where the change is: none of them may skip the second
// recording as junk, which would measure and charge the first while a
// speech engine given the file hears both.
func TestJoinedStreamsOfDifferentFormatsAreRefused(t *testing.T) {
	for _, c := range []struct {
		name, first, second, want string
	}{
		{"8 kHz then 16 kHz", "tone-mono-8k.mp3", "speech-mono-16k.mp3",
			"the MP3 file changes format after 2.2 s, from 8 kHz mono MPEG-2.5 layer III to 16 kHz mono MPEG-2 layer III"},
		{"16 kHz then 8 kHz", "speech-mono-16k.mp3", "tone-mono-8k.mp3",
			"the MP3 file changes format after 5.6 s, from 16 kHz mono MPEG-2 layer III to 8 kHz mono MPEG-2.5 layer III"},
		{"mono then stereo", "tone-mono-22k.mp3", "call-stereo-22k.mp3",
			"the MP3 file changes format after 1.1 s, from 22.05 kHz mono MPEG-2 layer III to 22.05 kHz stereo MPEG-2 layer III"},
		{"stereo then mono", "id3-stereo-44k.mp3", "silence-mono-44k.mp3",
			"the MP3 file changes format after 2.0 s, from 44.1 kHz stereo MPEG-1 layer III to 44.1 kHz mono MPEG-1 layer III"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := append(fixture(t, c.first), fixture(t, c.second)...)
			check := func(what string, err error) {
				t.Helper()
				if err == nil || !domain.IsPermanent(err) || !strings.HasPrefix(err.Error(), c.want) {
					t.Errorf("%s: %v, want permanent %q…", what, err, c.want)
				}
			}
			_, err := probe(t, bytes.NewReader(data))
			check("probe", err)
			_, _, err = split(t, data)
			check("split", err)
			open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
			_, err = Chunker{}.Chunk(context.Background(), open, t.TempDir(), ports.ChunkLimits{MaxBytes: 1 << 30, MaxSeconds: 1})
			check("chunk", err)
		})
	}
}

// Recordings of one format joined with cat are one stream: every frame of
// both is counted (the second file's Info frame, which carries no audio,
// is decoded as a frame like any other, as every decoder does).
func TestJoinedStreamsOfOneFormatAreMeasuredWhole(t *testing.T) {
	one := fixture(t, "speech-mono-16k.mp3")
	a, err := probe(t, bytes.NewReader(one))
	if err != nil {
		t.Fatal(err)
	}
	b, err := probe(t, bytes.NewReader(append(append([]byte{}, one...), one...)))
	if err != nil {
		t.Fatal(err)
	}
	if b.Frames != 2*a.Frames || math.Abs(b.Duration-2*a.Duration) > 0.04 {
		t.Errorf("joined: %d frames, %.3f s; one file: %d frames, %.3f s", b.Frames, b.Duration, a.Frames, a.Duration)
	}
}
