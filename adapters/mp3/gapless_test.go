package mp3

import (
	"bytes"
	"testing"
)

// forgeGapless sets the LAME tag's encoder delay and padding of an MP3 to
// delay and padding (12 bits each).
func forgeGapless(t testing.TB, b []byte, delay, padding int) []byte {
	t.Helper()
	info := max(bytes.Index(b, []byte("Info")), bytes.Index(b, []byte("Xing")))
	at := bytes.Index(b[max(info, 0):], []byte("LAME")) + info
	if info < 0 || at < info || at > info+200 {
		t.Fatal("premise: the file's first frame has a LAME tag")
	}
	out := bytes.Clone(b)
	out[at+21] = byte(delay >> 4)
	out[at+22] = byte(delay&15)<<4 | byte(padding>>8)
	out[at+23] = byte(padding)
	return out
}

func TestGaplessFieldsPastTheBoundTakeNothingOff(t *testing.T) {
	orig := fixture(t, "call-stereo-22k.mp3") // LAME: delay 576, padding 756
	honest, err := probe(t, bytes.NewReader(orig))
	if err != nil {
		t.Fatal(err)
	}
	full := float64(honest.Frames*576) / float64(honest.SampleRate) // MPEG-2: 576 samples a frame
	if honest.Duration >= full {
		t.Fatalf("premise: the honest tag trims something (%v s of %v s decoded)", honest.Duration, full)
	}
	within, err := probe(t, bytes.NewReader(forgeGapless(t, orig, MaxGaplessSamples, MaxGaplessSamples)))
	if err != nil || within.Duration >= honest.Duration {
		t.Errorf("fields at the bound: %v s, %v; want them taken off (%v s honest)", within.Duration, err, honest.Duration)
	}
	forged, err := probe(t, bytes.NewReader(forgeGapless(t, orig, 4095, 4095)))
	if err != nil || forged.Duration != full {
		t.Errorf("fields of 4095 samples each: charged %v s, %v; want the whole decode, %v s", forged.Duration, err, full)
	}
}
