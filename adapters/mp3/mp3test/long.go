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

// Call fixture: testdata/audio/call-stereo-22k.mp3, MPEG-2 layer III,
// 22.05 kHz plain stereo, 64 kbit/s CBR: a LAME Info frame, then 232 audio
// frames of 576 samples. Left: a 440 Hz tone at 0–1.5 s and 3–4.5 s; right:
// 660 Hz at 1.5–3 s and 4.5–6 s; digital silence elsewhere.
const (
	callFrames = 232
	callRate   = 22050
)

// CallPeriodSeconds is the length of one repetition of the call: its 232
// frames, the 6 s of tones with the encoder's delay and padding.
const CallPeriodSeconds = callFrames * 576.0 / callRate

// CallDelaySeconds is where the tones of a LongCall begin in the decoded
// audio of each repetition: the encoder's delay (576 samples) and the
// decoder's (529), which no Info frame tells a decoder to skip.
const CallDelaySeconds = (576 + 529) / float64(callRate)

// LongCall is a stereo MP3 phone call of at least seconds: the call
// fixture's audio frames (without its Info frame, so the file is one plain
// stream) again and again. Each repetition starts with a frame that reaches
// back into no earlier one, so every repetition decodes alike. Like
// LongSpeech, it is generated as it is read.
type LongCall struct {
	LongSpeech
}

// NewLongCall reads the fixture from the module's testdata.
func NewLongCall(t testing.TB, seconds float64) *LongCall {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "audio", "call-stereo-22k.mp3"))
	if err != nil {
		t.Fatal(err)
	}
	// MPEG-2 layer III: 72 × bitrate / sample rate bytes, plus padding.
	info := 72*64000/callRate + int(b[2]>>1&1)
	// The Info frame (after the header and 17 bytes of side information),
	// then a frame without CRC whose main_data_begin is 0.
	if len(b) < info+5 || string(b[4+17:4+21]) != "Info" || b[info] != 0xFF || b[info+1]&1 != 1 || b[info+4] != 0 {
		t.Fatalf("call-stereo-22k.mp3 is not what mp3test expects")
	}
	n := int(seconds/CallPeriodSeconds) + 1
	return &LongCall{LongSpeech{Periods: n, period: b[info:]}}
}

// Seconds is the call's length.
func (l *LongCall) Seconds() float64 { return float64(l.Periods) * CallPeriodSeconds }
