package mp3

import (
	"math"
)

// Resampling to the 16 kHz speech engines expect is band-limited
// interpolation with a Kaiser-windowed sinc, evaluated polyphase: the ratio
// out/in reduces to l/m (160/441 from 44.1 kHz), so every output sample
// falls on one of l fractional positions between input samples, and the l
// filters are computed once.
//
// Linear interpolation would be cheaper but folds everything above 8 kHz
// back into the speech band when downsampling. The filter here is flat to
// 6.3 kHz, 6 dB down at 7.4 kHz, 50 dB down at 8.5 kHz and 65 dB beyond
// 9 kHz: what aliases lands above 7.5 kHz, where it harms no recogniser.
// Upsampling (11.025 and 12 kHz sources) uses the same shape scaled to the
// source's band. It costs about 70 multiply-adds per output sample from
// 44.1 kHz, a few seconds for an hour of stereo, little next to decoding.
const (
	cutoff    = 0.925 // of the lower Nyquist frequency
	zeroCross = 12    // zero crossings of the sinc on each side
	kaiserB   = 6.0   // about 60 dB of stop-band attenuation
)

// resampler converts one channel from one rate to another, streaming: it
// keeps only the input samples the filter still needs.
type resampler struct {
	l, m  int64
	half  int       // filter half-width in input samples
	table []float64 // l filters of 2·half taps
	hist  []float64 // input samples from index base on
	base  int64
	n     int64 // next output sample
	total int64 // input samples received
	same  bool  // equal rates: samples are copied
}

func newResampler(from, to int) *resampler {
	if from == to {
		return &resampler{same: true}
	}
	g := gcd(from, to)
	r := &resampler{l: int64(to / g), m: int64(from / g)}
	c := cutoff * min(1, float64(to)/float64(from)) // of the input Nyquist frequency
	r.half = int(math.Ceil(zeroCross / c))
	taps := 2 * r.half
	r.table = make([]float64, int(r.l)*taps)
	for p := range int(r.l) {
		row := r.table[p*taps : (p+1)*taps]
		sum := 0.0
		for k := range row {
			// Distance from output time idx+p/l to input idx-half+1+k.
			x := float64(p)/float64(r.l) + float64(r.half-1-k)
			row[k] = c * sinc(c*x) * kaiser(x/float64(r.half))
			sum += row[k]
		}
		for k := range row { // unit gain at DC whatever the phase
			row[k] /= sum
		}
	}
	// Input before the first sample is silence.
	r.hist = make([]float64, r.half-1, 4096)
	r.base = -int64(r.half - 1)
	return r
}

// push feeds input samples and appends the output they complete to out.
func (r *resampler) push(in []float64, out []int16) []int16 {
	if r.same {
		for _, v := range in {
			out = append(out, toInt16(v))
		}
		return out
	}
	r.hist = append(r.hist, in...)
	r.total += int64(len(in))
	return r.run(out, r.base+int64(len(r.hist)))
}

// flush appends the output still owed once the input has ended.
func (r *resampler) flush(out []int16) []int16 {
	if r.same {
		return out
	}
	for range r.half { // the filter's right half runs over silence
		r.hist = append(r.hist, 0)
	}
	return r.run(out, r.base+int64(len(r.hist)))
}

// run computes every output sample whose filter lies before input index
// avail and that belongs to the signal (its time is before the last input).
func (r *resampler) run(out []int16, avail int64) []int16 {
	taps := 2 * r.half
	for {
		pos := r.n * r.m
		idx, phase := pos/r.l, pos%r.l
		if idx+int64(r.half) >= avail || pos >= r.total*r.l {
			break
		}
		x := r.hist[idx-int64(r.half)+1-r.base:][:taps]
		f := r.table[int(phase)*taps:][:taps]
		sum := 0.0
		for k, v := range x {
			sum += v * f[k]
		}
		out = append(out, toInt16(sum))
		r.n++
	}
	// Drop the input no later output needs.
	first := r.n*r.m/r.l - int64(r.half) + 1
	if drop := int(first - r.base); drop > 0 && drop <= len(r.hist) {
		r.hist = append(r.hist[:0], r.hist[drop:]...)
		r.base = first
	}
	return out
}

func toInt16(v float64) int16 {
	return int16(max(-32768, min(32767, math.Round(v))))
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// kaiser is the Kaiser window at x in [-1, 1].
func kaiser(x float64) float64 {
	if x <= -1 || x >= 1 {
		return 0
	}
	return bessel0(kaiserB*math.Sqrt(1-x*x)) / bessel0(kaiserB)
}

// bessel0 is the modified Bessel function of the first kind, order 0.
func bessel0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; term > 1e-12*sum; k++ {
		term *= (x / (2 * float64(k))) * (x / (2 * float64(k)))
		sum += term
	}
	return sum
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
