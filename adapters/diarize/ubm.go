package diarize

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"sync"
)

// Speaker models adapted from a background model. Per-call mixtures fitted
// to each speaker's frames model what each speaker happened to say as much
// as how they sound: two close voices in the telephone band are then split
// by what is said, and that wrong split is the likelier one (see
// docs/quality.md). The classic remedy (Reynolds, Quatieri and Dunn, 2000)
// is a universal background model (UBM): one mixture of many speakers'
// speech, whose components are classes of sounds. Each speaker's model is
// the UBM with its means moved toward that speaker's frames (maximum a
// posteriori adaptation, relevance factor 16), so the two speakers are
// compared sound by sound, and a split by content gains little.
//
// ubm.json is such a model: 64 components over the frame vectors
// (dimsFrame), trained by cmd/trainubm on two-voice calls of 41 eSpeak NG
// voices that no evaluation uses, speaking text that no evaluation speaks,
// full band and through the telephone band. No model weights are
// downloaded: the file is made here, from Debian's packages, and
// `make ubm` makes it again. Each call first adapts the UBM's means to all
// of its speech (the line, the codec, the language); each speaker's model
// is adapted from that call model.
const (
	ubmComponents = 64
	ubmIterations = 25
	relevance     = 16.0 // the relevance factor of MAP adaptation
)

//go:embed ubm.json
var ubmJSON []byte

// ubmFile is ubm.json: a diagonal mixture and what it was trained on.
type ubmFile struct {
	About     string      `json:"about"`
	Dims      int         `json:"dims"`
	Weights   []float64   `json:"weights"`
	Means     [][]float64 `json:"means"`
	Variances [][]float64 `json:"variances"`
}

// background is the embedded UBM, parsed once.
var background = sync.OnceValues(func() (*gmm, error) { return parseUBM(ubmJSON) })

func parseUBM(b []byte) (*gmm, error) {
	var f ubmFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("background model: %w", err)
	}
	K := len(f.Weights)
	if f.Dims != dimsFrame || K == 0 || len(f.Means) != K || len(f.Variances) != K {
		return nil, fmt.Errorf("background model: %d components of %d dimensions, want %d dimensions", K, f.Dims, dimsFrame)
	}
	g := &gmm{logW: make([]float64, K), mean: make([][]float64, K), ivar: make([][]float64, K)}
	var sum float64
	for k, w := range f.Weights {
		if w <= 0 || len(f.Means[k]) != dimsFrame || len(f.Variances[k]) != dimsFrame {
			return nil, fmt.Errorf("background model: component %d is malformed", k)
		}
		sum += w
		g.logW[k] = math.Log(w)
		g.mean[k] = f.Means[k]
		g.ivar[k] = make([]float64, dimsFrame)
		for j, v := range f.Variances[k] {
			if v <= 0 {
				return nil, fmt.Errorf("background model: component %d has variance %g", k, v)
			}
			g.ivar[k][j] = 1 / v
		}
	}
	if math.Abs(sum-1) > 1e-3 {
		return nil, fmt.Errorf("background model: weights sum to %g", sum)
	}
	g.prepare()
	return g, nil
}

// callModel is the background model with its means adapted to all of the
// call's speech; nil when the call has too little speech to model, when
// its stretches are steady sounds rather than speech (steadyShare), or
// when the embedded model does not load: the per-call mixtures then do
// all.
func callModel(fv *frameVectors, pause [][]bool) *gmm {
	if withinShare(fv, pause) < steadyShare {
		return nil
	}
	ubm, err := background()
	if err != nil {
		return nil
	}
	return adaptMeans(ubm, fv, pause, nil, 0)
}

// steadyShare: speech changes sound all the time, so most of a call's
// variance lies within its stretches (0.90–1.00 of it on every call of
// the eval, synthetic and real speakers' voices, music and noise
// included); a call of steady tones, each stretch one sound, has most of
// it between them (0.55 for the tone-per-utterance calls of
// adapters/asr/asrtest). Adapted models cannot compare steady sounds sound
// by sound: each stretch takes components of its own, and a split by
// stretch wins by its exact fit.
const steadyShare = 0.75

// withinShare is the share of the call's variance (of the normalised frame
// vectors, averaged over their dimensions) that lies within its regions.
func withinShare(fv *frameVectors, pause [][]bool) float64 {
	var within, n float64
	for ri, p := range pause {
		var sum, sq [dimsFrame]float64
		m := speechMoments(p, func(i int, out []float64) { fv.vector(ri, i, out) }, &sum, &sq)
		for j := range sum {
			if m > 0 {
				within += sq[j] - sum[j]*sum[j]/m
			}
		}
		n += m
	}
	if n == 0 {
		return 0
	}
	return within / n / dimsFrame
}

// adapted is the speakerModel that moves call's means toward each
// speaker's frames.
func adapted(call *gmm) speakerModel {
	return func(fv *frameVectors, pause [][]bool, labels [][]int, s int) *gmm {
		return adaptMeans(call, fv, pause, labels, s)
	}
}

// adaptMeans is base with each component's mean moved toward the frames
// labelled s (all speech frames when labels is nil) in proportion to how
// many frames it takes, n/(n+relevance); weights and variances stay. nil
// when there are fewer frames than a speaker's own mixture needs.
func adaptMeans(base *gmm, fv *frameVectors, pause [][]bool, labels [][]int, s int) *gmm {
	K := len(base.logW)
	n := make([]float64, K)
	sum := make([][]float64, K)
	for k := range sum {
		sum[k] = make([]float64, dimsFrame)
	}
	scratch := &gmm{logW: base.logW, mean: base.mean, ivar: base.ivar, logC: base.logC, score: make([]float64, K)}
	post := make([]float64, K)
	v := make([]float64, dimsFrame)
	frames := 0
	for ri := range pause {
		for i, p := range pause[ri] {
			if p || (labels != nil && labels[ri][i] != s) {
				continue
			}
			frames++
			fv.vector(ri, i, v)
			scratch.accumulate(v, post, n, sum, nil)
		}
	}
	if frames < 20*gmmComponents {
		return nil
	}
	g := &gmm{logW: base.logW, mean: make([][]float64, K), ivar: base.ivar}
	for k := range K {
		g.mean[k] = make([]float64, dimsFrame)
		a := n[k] / (n[k] + relevance)
		for j, m := range base.mean[k] {
			if n[k] > 0 {
				m = a*sum[k][j]/n[k] + (1-a)*m
			}
			g.mean[k][j] = m
		}
	}
	g.prepare()
	return g
}

// TrainBackground fits the background model to the speech of the
// two-voice calls at wavPaths (16 kHz mono WAVs), every second speech
// frame, normalised per call as the diarizer normalises a call, and
// returns it as ubm.json holds it, with about describing the calls.
func TrainBackground(ctx context.Context, wavPaths []string, about string) ([]byte, error) {
	return trainBackground(ctx, wavPaths, about, ubmIterations)
}

func trainBackground(ctx context.Context, wavPaths []string, about string, iterations int) ([]byte, error) {
	var x [][]float64
	for _, path := range wavPaths {
		sp, err := readSpeech(ctx, path)
		if err != nil {
			return nil, err
		}
		if len(sp.regs) == 0 {
			continue
		}
		fv := sp.fv
		for ri := range sp.regs {
			for i, p := range sp.pause[ri] {
				if p || i%2 == 1 {
					continue
				}
				v := make([]float64, dimsFrame)
				fv.vector(ri, i, v)
				x = append(x, v)
			}
		}
	}
	if len(x) < 100*ubmComponents {
		return nil, fmt.Errorf("%d speech frames are too few for a %d-component background model", len(x), ubmComponents)
	}
	g := fitGMM(x, ubmComponents, iterations)
	f := ubmFile{About: fmt.Sprintf("%s; %d speech frames", about, len(x)), Dims: dimsFrame}
	var total float64
	for _, lw := range g.logW {
		total += math.Exp(lw)
	}
	round := func(v float64) float64 { // 7 significant digits keep the file small
		if v == 0 {
			return 0
		}
		p := math.Pow(10, 6-math.Floor(math.Log10(math.Abs(v))))
		return math.Round(v*p) / p
	}
	for k := range g.logW {
		f.Weights = append(f.Weights, round(math.Exp(g.logW[k])/total))
		m := make([]float64, dimsFrame)
		va := make([]float64, dimsFrame)
		for j := range m {
			m[j] = round(g.mean[k][j])
			va[j] = round(1 / g.ivar[k][j])
		}
		f.Means = append(f.Means, m)
		f.Variances = append(f.Variances, va)
	}
	return json.MarshalIndent(f, "", " ")
}
