package diarize

import (
	"math"
	"math/cmplx"
)

const (
	rate      = 16000
	frameLen  = 400 // 25 ms
	hop       = 160 // 10 ms: 100 frames a second
	fftSize   = 512
	melBands  = 26
	numCeps   = 16 // c1..c16; c0 is replaced by the log energy
	preEmph   = 0.97
	minPitch  = 70.0 // Hz
	maxPitch  = 400.0
	frameRate = rate / hop
)

// typicalPitch (Hz) stands in for the mean pitch of a call with no voiced
// frame, so that the pitch feature is defined.
const typicalPitch = 150.0

// dims of a frame's features: numCeps (16) MFCCs, log energy, log pitch, voicing.
const (
	dimEnergy = numCeps
	dimPitch  = numCeps + 1
	dimVoice  = numCeps + 2
	dims      = numCeps + 3
)

// analyser turns 25 ms frames into features. It keeps its buffers, so one
// analyser must not be shared between goroutines.
type analyser struct {
	window []float64
	mel    [][]melTap // per band, the FFT bins and weights
	dct    [][]float64
	buf    []complex128
	frame  []float64
	power  []float64
	logMel []float64
}

type melTap struct {
	bin    int
	weight float64
}

func newAnalyser() *analyser {
	a := &analyser{
		window: make([]float64, frameLen),
		buf:    make([]complex128, fftSize),
		frame:  make([]float64, frameLen),
		power:  make([]float64, fftSize/2+1),
		logMel: make([]float64, melBands),
	}
	for i := range a.window {
		a.window[i] = 0.54 - 0.46*math.Cos(2*math.Pi*float64(i)/float64(frameLen-1))
	}
	toMel := func(f float64) float64 { return 2595 * math.Log10(1+f/700) }
	fromMel := func(m float64) float64 { return 700 * (math.Pow(10, m/2595) - 1) }
	lo, hi := toMel(100), toMel(7600)
	edges := make([]float64, melBands+2)
	for i := range edges {
		edges[i] = fromMel(lo+(hi-lo)*float64(i)/float64(melBands+1)) * fftSize / rate
	}
	a.mel = make([][]melTap, melBands)
	for b := 0; b < melBands; b++ {
		l, c, r := edges[b], edges[b+1], edges[b+2]
		for k := int(math.Ceil(l)); float64(k) < r && k <= fftSize/2; k++ {
			var w float64
			if float64(k) <= c {
				w = (float64(k) - l) / (c - l)
			} else {
				w = (r - float64(k)) / (r - c)
			}
			if w > 0 {
				a.mel[b] = append(a.mel[b], melTap{k, w})
			}
		}
	}
	a.dct = make([][]float64, numCeps)
	for i := range a.dct {
		a.dct[i] = make([]float64, melBands)
		for j := range a.dct[i] {
			a.dct[i][j] = math.Cos(math.Pi * float64(i+1) * (float64(j) + 0.5) / melBands)
		}
	}
	return a
}

// features computes one frame's features from frameLen samples (full scale
// ±1) into out, which has dims elements.
func (a *analyser) features(samples []float64, out []float32) {
	var energy float64
	prev := samples[0]
	for i, s := range samples {
		energy += s * s
		v := s
		if i > 0 {
			v = s - preEmph*prev
		}
		prev = s
		a.frame[i] = v * a.window[i]
	}
	for i := range a.buf {
		a.buf[i] = 0
		if i < frameLen {
			a.buf[i] = complex(a.frame[i], 0)
		}
	}
	fft(a.buf)
	for k := range a.power {
		a.power[k] = real(a.buf[k])*real(a.buf[k]) + imag(a.buf[k])*imag(a.buf[k])
	}
	for b, taps := range a.mel {
		var e float64
		for _, t := range taps {
			e += t.weight * a.power[t.bin]
		}
		a.logMel[b] = math.Log(e + 1e-10)
	}
	for i, row := range a.dct {
		var c float64
		for j, v := range row {
			c += v * a.logMel[j]
		}
		out[i] = float32(c)
	}
	out[dimEnergy] = float32(10 * math.Log10(energy/frameLen+1e-10))
	pitch, voicing := a.pitch(samples)
	out[dimPitch] = float32(math.Log(pitch))
	out[dimVoice] = float32(voicing)
}

// pitch estimates the fundamental frequency from the autocorrelation of the
// (un-emphasised) frame, computed as the inverse FFT of its power spectrum.
// voicing is the normalised autocorrelation at that lag, 0..1.
func (a *analyser) pitch(samples []float64) (float64, float64) {
	for i := range a.buf {
		a.buf[i] = 0
		if i < frameLen {
			a.buf[i] = complex(samples[i]*a.window[i], 0)
		}
	}
	fft(a.buf)
	for i, v := range a.buf {
		a.buf[i] = complex(real(v)*real(v)+imag(v)*imag(v), 0)
	}
	// The inverse FFT of a real, even sequence is the forward FFT over N.
	fft(a.buf)
	r0 := real(a.buf[0])
	if r0 <= 1e-12 {
		return 150, 0
	}
	best, bestLag := 0.0, int(rate/150)
	for lag := int(rate / maxPitch); lag <= int(math.Floor(rate/minPitch)); lag++ {
		// Unbiased: divide by the overlap the lag leaves.
		v := real(a.buf[lag]) / r0 * float64(frameLen) / float64(frameLen-lag)
		if v > best {
			best, bestLag = v, lag
		}
	}
	return float64(rate) / float64(bestLag), min(max(best, 0), 1)
}

// fft is an in-place radix-2 Cooley–Tukey transform; len(x) is a power of 2.
func fft(x []complex128) {
	n := len(x)
	for i, j := 1, 0; i < n; i++ {
		bit := n >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j ^= bit
		if i < j {
			x[i], x[j] = x[j], x[i]
		}
	}
	for size := 2; size <= n; size <<= 1 {
		step := cmplx.Exp(complex(0, -2*math.Pi/float64(size)))
		for start := 0; start < n; start += size {
			w := complex(1, 0)
			for k := 0; k < size/2; k++ {
				u, v := x[start+k], w*x[start+k+size/2]
				x[start+k], x[start+k+size/2] = u+v, u-v
				w *= step
			}
		}
	}
}
