// Package mp3test generates long MP3 recordings for tests without keeping
// them anywhere: the bytes are produced as they are read.
package mp3test

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Speech fixture: testdata/audio/speech-mono-16k.mp3, MPEG-2 layer III,
// 16 kHz mono, 32 kbit/s CBR: 155 frames of 144 bytes, 36 ms each.
const (
	FrameBytes   = 144
	FrameSeconds = 0.036
	speechFrames = 155
	// SilentFrames follow every utterance: 0.72 s of digital silence.
	SilentFrames = 20
	// PeriodFrames is one utterance and its silence.
	PeriodFrames = speechFrames + SilentFrames
)

// PeriodSeconds is the length of one utterance and its silence.
const PeriodSeconds = PeriodFrames * FrameSeconds

// LongSpeech is an MP3 recording of at least seconds: the fixture's Armenian
// sentence (5.58 s) again and again, each followed by 0.72 s of silence
// (frames whose side information codes nothing). Open returns a fresh
// reader each time; nothing is held in memory beyond one period of frames.
type LongSpeech struct {
	Periods int
	period  []byte
}

// NewLongSpeech reads the fixture from the module's testdata.
func NewLongSpeech(t testing.TB, seconds float64) *LongSpeech {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "audio", "speech-mono-16k.mp3"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != speechFrames*FrameBytes {
		t.Fatalf("speech-mono-16k.mp3 is %d bytes, want %d", len(b), speechFrames*FrameBytes)
	}
	silent := make([]byte, FrameBytes)
	copy(silent, b[:4]) // the header; side information and data all zero
	p := append([]byte(nil), b...)
	for range SilentFrames {
		p = append(p, silent...)
	}
	n := int(seconds/PeriodSeconds) + 1
	return &LongSpeech{Periods: n, period: p}
}

// Size is the recording's length in bytes.
func (l *LongSpeech) Size() int64 { return int64(l.Periods) * int64(len(l.period)) }

// Seconds is the recording's length.
func (l *LongSpeech) Seconds() float64 { return float64(l.Periods) * PeriodSeconds }

// Open returns the recording from its start.
func (l *LongSpeech) Open() (io.ReadCloser, error) {
	return io.NopCloser(&periodReader{period: l.period, left: l.Size()}), nil
}

type periodReader struct {
	period []byte
	off    int
	left   int64
}

func (r *periodReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && r.left > 0 {
		k := copy(p[n:], r.period[r.off:])
		k = int(min(int64(k), r.left))
		n += k
		r.left -= int64(k)
		r.off = (r.off + k) % len(r.period)
	}
	return n, nil
}
