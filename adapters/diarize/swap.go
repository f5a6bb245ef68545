package diarize

import (
	"math"
	"slices"
)

// A swap search: the windows' clustering and the agglomerative one both
// compare voices by per-dimension means and spreads, and on some calls of
// close voices both land in the same wrong split, whose frame models then
// keep it (see docs/quality.md). Two voices of one gender differ less in
// any one coefficient than in how the coefficients move together, so the
// search moves whole units (the speech between two pauses, at most 2 s)
// from one speaker to the other while the likelihood of the split under
// one full-covariance Gaussian per speaker rises, starting from each
// start's labels. Its results seed the frame models again, and replace the
// first starts' answer only when clearly likelier (swapMargin).
const (
	swapMargin   = 0.05 // nats per speech frame a swap-searched start must gain (0–0.1 give the same eval figures, 0.15 loses a call)
	swapPasses   = 20   // passes over the units at most
	maxSwapUnits = 3000 // more (over ~1.5 h of speech): no swap search
	covRidge     = 0.01 // added to the covariance's diagonal
)

// packedLen is the size of a dimsFrame × dimsFrame lower triangle.
const packedLen = dimsFrame * (dimsFrame + 1) / 2

// covStats are a set of frames' count, sum and sum of outer products (the
// lower triangle, row by row).
type covStats struct {
	n   float64
	sum [dimsFrame]float64
	xx  [packedLen]float64
}

func (a *covStats) add(b *covStats, sign float64) {
	a.n += sign * b.n
	for i := range a.sum {
		a.sum[i] += sign * b.sum[i]
	}
	for i := range a.xx {
		a.xx[i] += sign * b.xx[i]
	}
}

// cost is n·log|Σ|, the negative log-likelihood (up to constants) of the
// frames under their own full-covariance Gaussian; +Inf for a set too
// small to estimate Σ, so no speaker is emptied.
func (a *covStats) cost() float64 {
	if a.n < 2*dimsFrame {
		return math.Inf(1)
	}
	var c [dimsFrame][dimsFrame]float64
	k := 0
	for i := 0; i < dimsFrame; i++ {
		mi := a.sum[i] / a.n
		for j := 0; j <= i; j++ {
			c[i][j] = a.xx[k]/a.n - mi*a.sum[j]/a.n
			k++
		}
		c[i][i] += covRidge
	}
	var logDet float64
	for j := 0; j < dimsFrame; j++ { // Cholesky, in place
		s := c[j][j]
		for k := 0; k < j; k++ {
			s -= c[j][k] * c[j][k]
		}
		if s <= 1e-12 {
			return math.Inf(1)
		}
		d := math.Sqrt(s)
		c[j][j] = d
		logDet += 2 * math.Log(d)
		for i := j + 1; i < dimsFrame; i++ {
			s := c[i][j]
			for k := 0; k < j; k++ {
				s -= c[i][k] * c[j][k]
			}
			c[i][j] = s / d
		}
	}
	return a.n * logDet
}

// span is a unit of the swap search: frames [from, to) of region ri; a
// fixed one keeps its start's label.
type span struct {
	ri, from, to int
	fixed        bool
}

// swapSpans cuts every region's speech at its pauses, and pieces longer
// than 2 s evenly; a piece shorter than minRunFrames (a fragment between
// two dips in noise, whose statistics are mostly noise) is a span that
// never moves. nil when there are too many spans.
func swapSpans(regs [][2]int, pause [][]bool) []span {
	var out []span
	for ri, r := range regs {
		n := r[1] - r[0]
		for i := 0; i < n; {
			if pause[ri][i] {
				i++
				continue
			}
			j := i
			for j < n && !pause[ri][j] {
				j++
			}
			k := (j - i + unitFrames - 1) / unitFrames
			for q := 0; q < k; q++ {
				out = append(out, span{ri, i + q*(j-i)/k, i + (q+1)*(j-i)/k, j-i < minRunFrames})
			}
			if len(out) > maxSwapUnits {
				return nil
			}
			i = j
		}
	}
	return out
}

// spanStats are the spans' statistics over their speech frames.
func spanStats(fv *frameVectors, pause [][]bool, spans []span) []covStats {
	st := make([]covStats, len(spans))
	v := make([]float64, dimsFrame)
	for u, sp := range spans {
		s := &st[u]
		for i := sp.from; i < sp.to; i++ {
			if pause[sp.ri][i] {
				continue
			}
			fv.vector(sp.ri, i, v)
			s.n++
			k := 0
			for a := range v {
				s.sum[a] += v[a]
				for b := 0; b <= a; b++ {
					s.xx[k] += v[a] * v[b]
					k++
				}
			}
		}
	}
	return st
}

// swapSearch moves units between the two speakers, one at a time, while
// the split's cost falls; lab is the units' labels, changed in place.
func swapSearch(st []covStats, fixed []bool, lab []int) {
	var c, prev [2]covStats
	for u := range st {
		c[lab[u]].add(&st[u], 1)
	}
	cur := c[0].cost() + c[1].cost()
	if math.IsInf(cur, 1) {
		return
	}
	climb(lab, fixed, -cur, func(u int) float64 {
		a := lab[u]
		prev = c
		c[a].add(&st[u], -1)
		c[1-a].add(&st[u], 1)
		return -(c[0].cost() + c[1].cost())
	}, func(int) { c = prev })
}

// climb moves units to the other speaker, one at a time, while that raises
// a split's score, until a pass over them moves none (at most swapPasses):
// move(u) moves unit u (labelled lab[u]) and returns the new score, undo(u)
// takes back a move that did not raise it. lab is changed in place; fixed
// units stay. It returns the split's score and how many moves it tried.
func climb(lab []int, fixed []bool, score float64, move func(u int) float64, undo func(u int)) (float64, int) {
	tried := 0
	for pass := 0; pass < swapPasses; pass++ {
		moved := false
		for u := range lab {
			if fixed[u] {
				continue
			}
			tried++
			if next := move(u); next > score+1e-6 {
				lab[u], score, moved = 1-lab[u], next, true
			} else {
				undo(u)
			}
		}
		if !moved {
			break
		}
	}
	return score, tried
}

// swapStart is the swap search from a start's frame labels: each unit
// takes the label most of its frames have, and after the search every
// frame its unit's label (a pause the label before it).
func swapStart(regs [][2]int, pause [][]bool, spans []span, st []covStats, start [][]int) [][]int {
	lab, fixed := unitLabels(spans, start)
	swapSearch(st, fixed, lab)
	return framesOf(regs, pause, spans, lab, start)
}

// unitLabels gives each unit the label most of its frames have in start,
// and says which units are fixed.
func unitLabels(spans []span, start [][]int) (lab []int, fixed []bool) {
	lab = make([]int, len(spans))
	fixed = make([]bool, len(spans))
	for u, sp := range spans {
		var ones int
		for i := sp.from; i < sp.to; i++ {
			ones += start[sp.ri][i]
		}
		if 2*ones > sp.to-sp.from {
			lab[u] = 1
		}
		fixed[u] = sp.fixed
	}
	return lab, fixed
}

// framesOf labels every frame of a unit with the unit's label, a pause
// with the label before it, and any other frame as in start.
func framesOf(regs [][2]int, pause [][]bool, spans []span, lab []int, start [][]int) [][]int {
	out := make([][]int, len(regs))
	for ri := range regs {
		out[ri] = slices.Clone(start[ri])
	}
	for u, sp := range spans {
		for i := sp.from; i < sp.to; i++ {
			out[sp.ri][i] = lab[u]
		}
	}
	for ri := range out {
		for i := 1; i < len(out[ri]); i++ {
			if pause[ri][i] {
				out[ri][i] = out[ri][i-1]
			}
		}
	}
	return out
}

// search resegments from every start and keeps the likeliest result; then
// from every start refined by the swap search, whose result wins only when
// likelier by swapMargin nats per speech frame (a near tie between two
// different splits is noise, not evidence); then from every start refined
// by the stretch search under the adapted models (mapswap.go), whose best
// result wins unless the split found so far is likelier by swapMargin nats
// per speech frame: the stretch search compares the voices sound by sound
// over whole stretches, and in a near tie with a split by content (the
// unit swap search's, on close voices) it is the one to trust (measured:
// close-male-tel of the eval, 17.1% → 3.3% DER). The speaker models are
// adapted from the call model (ubm.go) when there is one, and the call's
// own mixtures otherwise.
func search(fv *frameVectors, regs [][2]int, pause [][]bool, starts [][][]int) [][]int {
	call := callModel(fv, pause)
	model := speakerModel(trainGMM)
	if call != nil {
		model = adapted(call)
	}
	var best [][]int
	bestScore := math.Inf(-1)
	for _, start := range starts {
		frames, score := resegment(fv, pause, start, model)
		if best == nil || score > bestScore {
			best, bestScore = frames, score
		}
	}
	spans := swapSpans(regs, pause)
	if spans == nil {
		return best
	}
	var speech float64
	for _, p := range pause {
		for _, q := range p {
			if !q {
				speech++
			}
		}
	}
	st := spanStats(fv, pause, spans)
	for _, start := range starts {
		frames, score := resegment(fv, pause, swapStart(regs, pause, spans, st, start), model)
		if score > bestScore+swapMargin*speech {
			best, bestScore = frames, score
		}
	}
	if call == nil {
		return best
	}
	if ms := regionStats(call, fv, pause); ms != nil {
		var mapBest [][]int
		mapScore := math.Inf(-1)
		for _, start := range starts {
			frames, score := resegment(fv, pause, mapSwapStart(regs, pause, ms, start), model)
			if mapBest == nil || score > mapScore {
				mapBest, mapScore = frames, score
			}
		}
		if mapBest != nil && mapScore > bestScore-swapMargin*speech {
			best = mapBest
		}
	}
	return best
}
