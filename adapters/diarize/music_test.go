package diarize

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hyscribe/hyscribe/domain"
)

// holdMusic is seconds of synthetic music on hold at 16 kHz: a sustained
// A-major pad with a slow swell under a plucked melody of half-second
// notes, peaking near the speech's level, as on a phone line.
func holdMusic(seconds float64) []float64 {
	n := int(seconds * rate)
	out := make([]float64, n)
	melody := []float64{659.3, 554.4, 440, 493.9, 554.4, 659.3, 740, 659.3, 554.4, 493.9, 440, 493.9, 554.4, 440, 493.9, 329.6}
	for i := range out {
		t := float64(i) / rate
		pad := (math.Sin(2*math.Pi*220*t) + math.Sin(2*math.Pi*277.2*t) + math.Sin(2*math.Pi*329.6*t)) / 3
		pad *= 0.12 * (1 + 0.3*math.Sin(2*math.Pi*0.25*t))
		k := int(t / 0.5)
		f, at := melody[k%len(melody)], t-float64(k)*0.5
		note := 0.0
		for h := 1.0; h <= 4; h++ {
			note += math.Sin(2*math.Pi*f*h*t) / (h * h)
		}
		note *= 0.25 * math.Exp(-3*at) * min(1, at/0.01)
		out[i] = pad + note
	}
	return out
}

// TestHoldMusicIsNoSpeaker diarizes the two-speaker mono call with hold
// music before it (20 s) and in the middle (15 s, in the pause after the
// first turn): the music gets no turn and the voices keep their turns (DER
// against the call's known turns, moved by the music, ≤ 5 %). Without the
// music detector the music takes a speaker of its own and both voices
// share the other.
func TestHoldMusicIsNoSpeaker(t *testing.T) {
	call := readSamples(t, decode(t, "call-mono-16k.mp3"))
	shift := func(turns []domain.Turn, from, by float64) []domain.Turn {
		out := make([]domain.Turn, len(turns))
		for i, tr := range turns {
			out[i] = tr
			if tr.Start >= from {
				out[i].Start += by
				out[i].End += by
			}
		}
		return out
	}
	cut := int(5.1 * rate) // in the pause between the first and second turns
	for _, c := range []struct {
		name  string
		audio []float64
		ref   []domain.Turn
		music [2]float64
	}{
		{"music first", append(holdMusic(20), call...), shift(callTurns, 0, 20), [2]float64{0, 20}},
		{"music in the middle", append(append(append([]float64{}, call[:cut]...), holdMusic(15)...), call[cut:]...),
			shift(callTurns, 5.1, 15), [2]float64{5.1, 20.1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeWAV(t, float64(len(c.audio))/rate, func(i int, _ *rand.Rand) float64 { return c.audio[i] })
			turns, err := New().Diarize(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("turns: %v", turns)
			for _, tr := range turns {
				if tr.Start < c.music[1]-0.5 && tr.End > c.music[0]+0.5 {
					t.Errorf("a turn in the music (%.1f–%.1f s): %v", c.music[0], c.music[1], tr)
				}
			}
			r := DER(c.ref, turns, 0.25)
			if r.Rate() > 0.05 {
				t.Errorf("DER %.1f%% (%+v), want ≤ 5%%", 100*r.Rate(), r)
			}
		})
	}
}
