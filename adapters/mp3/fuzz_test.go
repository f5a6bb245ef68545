package mp3

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// FuzzProbe feeds Probe arbitrary bytes: it must not panic, must finish
// quickly, must refuse with a permanent error (the input is all there is,
// so nothing is transient), and must accept only input holding at least
// two chained frames of one stream.
func FuzzProbe(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "*"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 8<<10)]) // the start is where the decisions are
	}
	frame := syntheticFrame(0xFFFB9064)
	for _, seed := range [][]byte{
		nil,
		[]byte("ID3"),
		[]byte("ID3\x04\x00\x10\x00\x00\x00\x7f"),
		frame[:4],
		cat(frame, frame),
		cat(frame, frame[:100]),
		cat([]byte("junk"), frame, frame, frame, frame),
		bytes.Repeat([]byte{0xFF}, 100),
		bytes.Repeat([]byte{0xFF, 0xFB, 0x90}, 500),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		info, err := Prober{}.Probe(context.Background(), bytes.NewReader(data))
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("took %v for %d bytes", d, len(data))
		}
		if err != nil {
			if !domain.IsPermanent(err) || err.Error() == "" {
				t.Fatalf("error %q is not a permanent refusal", err)
			}
			return
		}
		if !hasTwoChainedFrames(data) {
			t.Fatalf("accepted input without two chained frames: %+v", info)
		}
		okRate := map[int]bool{8000: true, 11025: true, 12000: true, 16000: true, 22050: true, 24000: true, 32000: true, 44100: true, 48000: true}
		maxDur := float64(info.Frames*1152) / float64(info.SampleRate)
		if info.Format != "mp3" || info.Frames < 1 || (info.Channels != 1 && info.Channels != 2) ||
			!okRate[info.SampleRate] || info.Bitrate <= 0 || info.Duration < 0 || info.Duration > maxDur {
			t.Fatalf("implausible %+v", info)
		}
	})
}

// hasTwoChainedFrames is the fuzz oracle, written apart from the scanner: a
// header somewhere whose frame is followed by a header of the same stream
// or ends within three bytes of the end.
func hasTwoChainedFrames(b []byte) bool {
	for i := range b {
		h, ok := parseHeader(b[i:])
		if !ok {
			continue
		}
		end := i + h.size
		if end <= len(b) && len(b)-end < 4 {
			return true
		}
		if n, ok := parseHeader(b[min(end, len(b)):]); ok && h.sameStream(n) {
			return true
		}
	}
	return false
}

// FuzzSplitChannels runs the decoder over mutated MP3: corrupt frames must
// come out as a permanent error or as audio, never as a panic.
func FuzzSplitChannels(f *testing.F) {
	for _, name := range []string{"speech-mono-16k.mp3", "call-stereo-22k.mp3", "vbr-stereo-44k.mp3", "tone-mono-11k.mp3"} {
		b, err := os.ReadFile(filepath.Join(fixtures, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 4<<10)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		paths, err := Splitter{}.SplitChannels(context.Background(), bytes.NewReader(data), dir)
		if err != nil && !domain.IsPermanent(err) {
			t.Fatalf("error %q is not a permanent refusal", err)
		}
		if err == nil && (len(paths) < 1 || len(paths) > 2) {
			t.Fatalf("paths %v", paths)
		}
	})
}
