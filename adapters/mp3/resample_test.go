package mp3

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

var mp3Rates = []int{8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000}

func sine(rate int, freq, amp float64, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = amp * math.Sin(2*math.Pi*freq*float64(i)/float64(rate))
	}
	return s
}

func resample(from int, in []float64, chunk func() int) []int16 {
	r := newResampler(from, SpeechRate)
	var out []int16
	for len(in) > 0 {
		n := min(chunk(), len(in))
		out = r.push(in[:n], out)
		in = in[n:]
	}
	return r.flush(out)
}

// Output has ceil(n·16000/rate) samples, and feeding the input in pieces of
// any size gives the same samples as feeding it at once.
func TestResampleStreams(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, rate := range mp3Rates {
		in := sine(rate, 300, 8000, rate+1234)
		whole := resample(rate, in, func() int { return len(in) })
		pieces := resample(rate, in, func() int { return 1 + rnd.IntN(3000) })
		want := int(math.Ceil(float64(len(in)) * SpeechRate / float64(rate)))
		if len(whole) != want || !slices.Equal(whole, pieces) {
			t.Errorf("%d Hz: %d and %d samples, want %d, equal: %v", rate, len(whole), len(pieces), want, slices.Equal(whole, pieces))
		}
	}
}

// Speech frequencies keep their level; what would alias is removed.
func TestResampleResponse(t *testing.T) {
	level := func(from int, freq float64) float64 {
		out := resample(from, sine(from, freq, 10000, from), func() int { return 4096 })
		s := make([]float64, len(out)-1000)
		for i := range s {
			s[i] = float64(out[500+i])
		}
		return 20 * math.Log10(rms(s)/(10000/math.Sqrt2))
	}
	for _, rate := range mp3Rates {
		for _, f := range []float64{100, 1000, min(3500, 0.35*float64(rate))} {
			if db := level(rate, f); math.Abs(db) > 0.1 {
				t.Errorf("%d Hz: %.0f Hz comes out at %+.2f dB", rate, f, db)
			}
		}
		if rate > SpeechRate {
			if db := level(rate, 6000); math.Abs(db) > 0.5 {
				t.Errorf("%d Hz: 6 kHz comes out at %+.2f dB", rate, db)
			}
			for _, f := range []float64{9000, 10000, float64(rate)/2 - 500} {
				if db := level(rate, f); db > -50 {
					t.Errorf("%d Hz: %.0f Hz, beyond 16 kHz's band, comes out at %+.1f dB", rate, f, db)
				}
			}
		}
	}
}

func TestResampleSameRateCopies(t *testing.T) {
	in := []float64{0, 1.4, -2.6, 32767.7, -40000}
	if got := resample(SpeechRate, in, func() int { return 2 }); !slices.Equal(got, []int16{0, 1, -3, 32767, -32768}) {
		t.Errorf("got %v", got)
	}
}
