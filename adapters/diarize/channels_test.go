package diarize

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/mp3"
	"github.com/hyscribe/hyscribe/domain"
)

// split decodes a stereo fixture into its two 16 kHz channel files.
func splitStereo(t *testing.T, name string) (string, string) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "audio", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	paths, err := mp3.Splitter{}.SplitChannels(context.Background(), f, t.TempDir())
	if err != nil || len(paths) != 2 {
		t.Fatalf("split %s: %v %v", name, paths, err)
	}
	return paths[0], paths[1]
}

// readSamples reads a 16 kHz mono WAV as SplitChannels writes it.
func readSamples(t testing.TB, path string) []float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := make([]float64, (len(b)-44)/2)
	for i := range s {
		s[i] = float64(int16(binary.LittleEndian.Uint16(b[44+2*i:]))) / 32768
	}
	return s
}

// Stereo that is really mono is told from a genuine two-speaker call:
// dual mono and one silent channel from the call fixtures LAME encoded
// (testdata/audio), and, kept as stereo, a call whose customer is 18 dB
// quieter than the agent with crosstalk at -25 dB on both sides, and the
// tone call of call-stereo-22k.mp3.
func TestInspectChannels(t *testing.T) {
	d := New()
	ctx := context.Background()
	for _, c := range []struct {
		file    string
		kind    domain.ChannelKind
		channel int
	}{
		{"call-dualmono-16k.mp3", domain.DualMono, 0},
		{"call-onesilent-16k.mp3", domain.OneSilentChannel, 0},
		{"call-stereo-22k.mp3", domain.TwoSpeakerStereo, 0},
	} {
		l, r := splitStereo(t, c.file)
		got, err := d.InspectChannels(ctx, l, r)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %+v", c.file, got)
		if got.Kind != c.kind || (got.Mono() && got.Channel != c.channel) {
			t.Errorf("%s: %+v, want %s on channel %d", c.file, got, c.kind, c.channel)
		}
		// The channels swapped: the call is found on the other side.
		if c.kind == domain.OneSilentChannel {
			if got, _ := d.InspectChannels(ctx, r, l); got.Kind != c.kind || got.Channel != 1 {
				t.Errorf("%s swapped: %+v", c.file, got)
			}
		}
	}

	// A genuine call made from the mono call's two speakers (callTurns):
	// agent on the left, customer 18 dB quieter on the right, each heard
	// at -25 dB on the other's channel.
	mono := readSamples(t, decode(t, "call-mono-16k.mp3"))
	speaker2 := func(i int) bool {
		at := float64(i) / rate
		for _, tr := range callTurns {
			if tr.Speaker == "2" && at >= tr.Start-0.1 && at < tr.End+0.1 {
				return true
			}
		}
		return false
	}
	const quiet, cross = 0.126, 0.056
	agent := func(i int) float64 {
		if speaker2(i) {
			return cross * quiet * mono[i]
		}
		return mono[i]
	}
	customer := func(i int) float64 {
		if speaker2(i) {
			return quiet * mono[i]
		}
		return cross * mono[i]
	}
	secs := float64(len(mono)) / rate
	l := writeWAV(t, secs, func(i int, _ *rand.Rand) float64 { return agent(i) })
	r := writeWAV(t, secs, func(i int, _ *rand.Rand) float64 { return customer(i) })
	got, err := d.InspectChannels(ctx, l, r)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("agent and a quiet customer: %+v", got)
	if got.Kind != domain.TwoSpeakerStereo {
		t.Errorf("a genuine call with a quiet customer and crosstalk: %+v, want stereo", got)
	}
}
