package diarize

import (
	"math"
	"slices"
)

// A swap search under the adapted models: whole stretches of speech (the
// VAD's regions, which end at gaps of 0.2 s or more) move between the two
// speakers while the likelihood gain of adapting the call model's means to
// each speaker rises. Stretches, not the 2 s units of the other swap
// search: a unit of a word or two differs from the next by what is said,
// and with units that short the search finds a split by content (measured:
// docs/quality.md). With the call model's component posteriors held fixed,
// the gain of adapting component k to frames with zeroth- and centred
// first-order statistics N and F is FᵀΣ⁻¹F·(N+2r)/(2(N+r)²) (r the
// relevance), so a move costs a sum over the components, not a pass over
// frames.
const (
	maxMapUnits = 1000 // more stretches (over ~1 h of speech): no such search (9 MB of statistics)
	// mapRestartMoves bounds the moves the search from neighbouring splits
	// tries: a move sums over 64 components of 34 dimensions, about 20 µs
	// on the 2-core CI machine, so at most about a second per search.
	// Measured on random stretches: 12 stretches 9 ms, 100 take 0.5 s
	// (within the bound); 1000 stop at it.
	mapRestartMoves = 50000
)

// mapStats are a stretch's statistics under the call model: per component
// the posterior count and the posterior-weighted sum of the frames'
// whitened distances from its mean.
type mapStats struct {
	n []float32
	f []float32 // component k's dimsFrame values at k*dimsFrame
}

// regionStats are the statistics of each region's speech frames; nil when
// there are more than maxMapUnits regions.
func regionStats(call *gmm, fv *frameVectors, pause [][]bool) []mapStats {
	if len(pause) > maxMapUnits {
		return nil
	}
	K := len(call.logW)
	scratch := &gmm{logW: call.logW, mean: call.mean, ivar: call.ivar, logC: call.logC, score: make([]float64, K)}
	out := make([]mapStats, len(pause))
	v := make([]float64, dimsFrame)
	post := make([]float64, K)
	n := make([]float64, K)
	sum := make([][]float64, K)
	for k := range sum {
		sum[k] = make([]float64, dimsFrame)
	}
	for ri, p := range pause {
		clear(n)
		for k := range sum {
			clear(sum[k])
		}
		for i, q := range p {
			if !q {
				fv.vector(ri, i, v)
				scratch.accumulate(v, post, n, sum, nil)
			}
		}
		st := mapStats{n: make([]float32, K), f: make([]float32, K*dimsFrame)}
		for k := range n {
			st.n[k] = float32(n[k])
			for j, iv := range call.ivar[k] {
				st.f[k*dimsFrame+j] = float32((sum[k][j] - n[k]*call.mean[k][j]) * math.Sqrt(iv))
			}
		}
		out[ri] = st
	}
	return out
}

// speakerStats sum the stretches of one speaker.
type speakerStats struct {
	n, f []float64
}

func newSpeakerStats(K int) speakerStats {
	return speakerStats{n: make([]float64, K), f: make([]float64, K*dimsFrame)}
}

func (a *speakerStats) clone() speakerStats {
	return speakerStats{n: slices.Clone(a.n), f: slices.Clone(a.f)}
}

func (a *speakerStats) copyFrom(b *speakerStats) {
	copy(a.n, b.n)
	copy(a.f, b.f)
}

func (a *speakerStats) add(u *mapStats, sign float64) {
	for k, x := range u.n {
		a.n[k] += sign * float64(x)
	}
	for i, x := range u.f {
		a.f[i] += sign * float64(x)
	}
}

// gain is the log-likelihood gain of adapting the call model's means to
// these frames.
func (a *speakerStats) gain() float64 {
	var g float64
	for k, n := range a.n {
		var ff float64
		for _, x := range a.f[k*dimsFrame : (k+1)*dimsFrame] {
			ff += x * x
		}
		g += ff * (n + 2*relevance) / (2 * (n + relevance) * (n + relevance))
	}
	return g
}

// mapSwapSearch moves stretches between the two speakers, one at a time,
// while the two speakers' gain rises; lab is the stretches' labels, changed
// in place; fixed ones stay.
//
// A climb stops at a split no single move improves, and two close voices
// leave several such splits of nearly the same gain: which one a start
// reaches turns on differences far below what tells the voices apart (a
// decoder's rounding moved this file's telephone call from its best split
// to one a few stretches off, DER 8% → 24%). So from the split reached,
// each movable stretch in turn is moved and the climb run again, and a
// higher gain is kept and searched from anew (iterated local search), while
// mapRestartMoves lasts: deterministic, and never worse than the climb.
func mapSwapSearch(st []mapStats, fixed []bool, lab []int) {
	if len(st) == 0 {
		return
	}
	K := len(st[0].n)
	c := [2]speakerStats{newSpeakerStats(K), newSpeakerStats(K)}
	for u := range st {
		c[lab[u]].add(&st[u], 1)
	}
	move := func(u int) float64 {
		a := lab[u]
		c[a].add(&st[u], -1)
		c[1-a].add(&st[u], 1)
		return c[0].gain() + c[1].gain()
	}
	undo := func(u int) {
		a := lab[u]
		c[1-a].add(&st[u], -1)
		c[a].add(&st[u], 1)
	}
	score, budget := climb(lab, fixed, c[0].gain()+c[1].gain(), move, undo)
	budget = mapRestartMoves - budget
	saved := slices.Clone(lab)
	savedC := [2]speakerStats{c[0].clone(), c[1].clone()}
	for improved := true; improved && budget > 0; {
		improved = false
		for u := range lab {
			if fixed[u] || budget <= 0 {
				continue
			}
			moved := move(u)
			lab[u] = 1 - lab[u]
			next, tried := climb(lab, fixed, moved, move, undo)
			budget -= tried + 1
			if next > score+1e-6 {
				score, improved = next, true
				copy(saved, lab)
				savedC[0].copyFrom(&c[0])
				savedC[1].copyFrom(&c[1])
				continue
			}
			copy(lab, saved)
			c[0].copyFrom(&savedC[0])
			c[1].copyFrom(&savedC[1])
		}
	}
}

// regionSpans are the regions as units of a swap search; one shorter than
// minRunFrames never moves.
func regionSpans(regs [][2]int) []span {
	out := make([]span, len(regs))
	for ri, r := range regs {
		out[ri] = span{ri, 0, r[1] - r[0], r[1]-r[0] < minRunFrames}
	}
	return out
}

// mapSwapStart is the stretch search from a start's frame labels.
func mapSwapStart(regs [][2]int, pause [][]bool, st []mapStats, start [][]int) [][]int {
	spans := regionSpans(regs)
	lab, fixed := unitLabels(spans, start)
	mapSwapSearch(st, fixed, lab)
	return framesOf(regs, pause, spans, lab, start)
}
