package diarize

import (
	"math"
	"slices"
)

// Frame-level resegmentation. The 1.5 s windows find the two voices but
// not where one hands over to the other: a window across a change of
// speaker is half one voice, and labelling frames by the nearest window
// puts every change up to 0.75 s off, usually a word or three late. So the
// windows' labels only seed two speaker models (diagonal Gaussian mixtures
// on per-call normalised MFCCs and their deltas), and a Viterbi pass over
// every frame chooses the speaker with a penalty for each switch: costly
// inside speech, almost free in a pause. Back-channels overlapping a turn
// are too short to pay the penalty and stay with the speaker who holds the
// turn; a back-channel between pauses switches for free and keeps its own
// voice.
const (
	switchCost    = 300.0 // nats: a switch inside speech (60–150 let phonetic detail switch; 600 misses real changes)
	gmmComponents = 8
	gmmIterations = 5
	resegRounds   = 3
	pauseCost     = 1.0 // nats: a switch in a pause
	minPause      = 4   // frames below the VAD threshold that make a pause inside a stretch
	maxSnap       = 30  // frames a change of speaker may move to reach a pause
	maxTrain      = 30000
	deltaSpan     = 2    // frames each side for the deltas
	voicedAt      = 0.45 // voicing above which a frame's pitch counts
)

// dimsFrame is the frame model's input: MFCCs, their deltas, log energy,
// log pitch (the call's mean where a frame is unvoiced).
const dimsFrame = 2*numCeps + 2

// pauses marks, per region, the frames below the VAD's threshold in runs of
// at least minPause frames: the short pauses the VAD bridged.
func pauses(energy []float32, regs [][2]int) [][]bool {
	th, ok := threshold(energy)
	out := make([][]bool, len(regs))
	for ri, r := range regs {
		p := make([]bool, r[1]-r[0])
		if ok {
			for f := r[0]; f < r[1]; f++ {
				p[f-r[0]] = float64(energy[f]) <= th
			}
		}
		for i := 0; i < len(p); {
			if !p[i] {
				i++
				continue
			}
			j := i
			for j < len(p) && p[j] {
				j++
			}
			if j-i < minPause {
				for k := i; k < j; k++ {
					p[k] = false
				}
			}
			i = j
		}
		out[ri] = p
	}
	return out
}

// frameVectors gives every region frame's model input, normalised per call
// (mean and spread over the call's speech frames).
type frameVectors struct {
	fs        *frameFeats
	mean, sd  [dimsFrame]float64
	meanPitch float64
}

func newFrameVectors(fs *frameFeats, pause [][]bool) *frameVectors {
	fv := &frameVectors{fs: fs}
	var ps, pn float64
	for _, r := range fs.regs {
		for f := r[0]; f < r[1]; f++ {
			if v := fs.at(f); v[dimVoice] > voicedAt {
				ps += float64(v[dimPitch])
				pn++
			}
		}
	}
	fv.meanPitch = math.Log(typicalPitch)
	if pn > 0 {
		fv.meanPitch = ps / pn
	}
	var sum, sq [dimsFrame]float64
	var n float64
	for ri := range fs.regs {
		n += speechMoments(pause[ri], func(i int, out []float64) { fv.raw(ri, i, out) }, &sum, &sq)
	}
	for j := range fv.mean {
		fv.sd[j] = 1
		if n > 1 {
			fv.mean[j] = sum[j] / n
			fv.sd[j] = math.Sqrt(max(sq[j]/n-fv.mean[j]*fv.mean[j], 1e-6))
		}
	}
	return fv
}

// speechMoments adds each dimension of the vectors frame(i, out) gives for
// a region's speech frames (pause false) to sum, and its square to sq, and
// returns how many frames it added.
func speechMoments(pause []bool, frame func(i int, out []float64), sum, sq *[dimsFrame]float64) float64 {
	v := make([]float64, dimsFrame)
	var n float64
	for i, p := range pause {
		if p {
			continue
		}
		frame(i, v)
		for j, x := range v {
			sum[j] += x
			sq[j] += x * x
		}
		n++
	}
	return n
}

// raw is frame i of region ri before normalisation.
func (fv *frameVectors) raw(ri, i int, out []float64) {
	r := fv.fs.regs[ri]
	n := r[1] - r[0]
	base := fv.fs.off[ri]
	frame := func(k int) []float32 {
		k = min(max(k, 0), n-1)
		return fv.fs.data[(base+k)*dims : (base+k+1)*dims]
	}
	cur := frame(i)
	for j := 0; j < numCeps; j++ {
		out[j] = float64(cur[j])
	}
	// Regression deltas over ±deltaSpan frames.
	const norm = 2 * (1 + 4) // 2·Σ k² for k = 1, 2
	for j := 0; j < numCeps; j++ {
		var d float64
		for k := 1; k <= deltaSpan; k++ {
			d += float64(k) * float64(frame(i + k)[j]-frame(i - k)[j])
		}
		out[numCeps+j] = d / norm
	}
	out[2*numCeps] = float64(cur[dimEnergy])
	out[2*numCeps+1] = fv.meanPitch
	if cur[dimVoice] > voicedAt {
		out[2*numCeps+1] = float64(cur[dimPitch])
	}
}

func (fv *frameVectors) vector(ri, i int, out []float64) {
	fv.raw(ri, i, out)
	for j := range out {
		out[j] = (out[j] - fv.mean[j]) / fv.sd[j]
	}

}

// speakerModel fits speaker s's frame model to the frames labelled s; nil
// when it has too few. trainGMM fits a mixture of its own; adapted (ubm.go)
// moves the call's background model toward the speaker.
type speakerModel func(fv *frameVectors, pause [][]bool, labels [][]int, s int) *gmm

// resegment refines per-frame labels (per region) with speaker models and
// a Viterbi pass, a few rounds. A recording where one speaker has too few
// frames to model keeps its labels.
func resegment(fv *frameVectors, pause [][]bool, labels [][]int, model speakerModel) ([][]int, float64) {
	score := math.Inf(-1)
	for round := 0; round < resegRounds; round++ {
		var models [2]*gmm
		for s := range models {
			models[s] = model(fv, pause, labels, s)
			if models[s] == nil {
				return labels, math.Inf(-1)
			}
		}
		next, sc := viterbi(fv, pause, models)
		score = sc
		same := true
		for ri := range labels {
			if !slices.Equal(labels[ri], next[ri]) {
				same = false
				break
			}
		}
		labels = next
		if same {
			break
		}
	}
	return labels, score
}

// gmm is a diagonal Gaussian mixture.
type gmm struct {
	logW  []float64
	mean  [][]float64
	ivar  [][]float64 // 1/variance
	logC  []float64   // log weight − ½ Σ log(2π var)
	score []float64   // scratch
}

// trainGMM fits speaker s's model to its speech frames (at most maxTrain,
// evenly spaced); nil when it has too few.
func trainGMM(fv *frameVectors, pause [][]bool, labels [][]int, s int) *gmm {
	var idx [][2]int
	for ri := range labels {
		for i, l := range labels[ri] {
			if l == s && !pause[ri][i] {
				idx = append(idx, [2]int{ri, i})
			}
		}
	}
	if len(idx) < 20*gmmComponents {
		return nil
	}
	step := max(1, len(idx)/maxTrain)
	x := make([][]float64, 0, len(idx)/step+1)
	for k := 0; k < len(idx); k += step {
		v := make([]float64, dimsFrame)
		fv.vector(idx[k][0], idx[k][1], v)
		x = append(x, v)
	}
	return fitGMM(x, gmmComponents, gmmIterations)
}

// fitGMM fits a K-component diagonal mixture to x by EM, started from
// frames evenly spaced in x and x's variance.
func fitGMM(x [][]float64, K, iterations int) *gmm {
	g := &gmm{}
	var gm, gv [dimsFrame]float64
	for _, v := range x {
		for j, e := range v {
			gm[j] += e
		}
	}
	for j := range gm {
		gm[j] /= float64(len(x))
	}
	for _, v := range x {
		for j, e := range v {
			gv[j] += (e - gm[j]) * (e - gm[j])
		}
	}
	g.logW = make([]float64, K)
	g.mean = make([][]float64, K)
	g.ivar = make([][]float64, K)
	for k := 0; k < K; k++ {
		g.logW[k] = -math.Log(float64(K))
		g.mean[k] = slices.Clone(x[(2*k+1)*len(x)/(2*K)])
		g.ivar[k] = make([]float64, dimsFrame)
		for j := range gv {
			g.ivar[k][j] = 1 / max(gv[j]/float64(len(x)), 1e-3)
		}
	}
	g.prepare()
	post := make([]float64, K)
	for it := 0; it < iterations; it++ {
		n := make([]float64, K)
		sum := make([][]float64, K)
		sq := make([][]float64, K)
		for k := range sum {
			sum[k] = make([]float64, dimsFrame)
			sq[k] = make([]float64, dimsFrame)
		}
		for _, v := range x {
			g.accumulate(v, post, n, sum, sq)
		}
		for k := 0; k < K; k++ {
			if n[k] < 1 { // an empty component: leave it
				continue
			}
			g.logW[k] = math.Log(n[k] / float64(len(x)))
			for j := range sum[k] {
				m := sum[k][j] / n[k]
				g.mean[k][j] = m
				g.ivar[k][j] = 1 / max(sq[k][j]/n[k]-m*m, 0.01)
			}
		}
		g.prepare()
	}
	return g
}

func (g *gmm) prepare() {
	g.logC = make([]float64, len(g.logW))
	g.score = make([]float64, len(g.logW))
	for k := range g.logW {
		c := g.logW[k]
		for _, iv := range g.ivar[k] {
			c += 0.5 * math.Log(iv/(2*math.Pi))
		}
		g.logC[k] = c
	}
}

// logLik is log p(v) under the mixture.
func (g *gmm) logLik(v []float64) float64 {
	best := math.Inf(-1)
	for k := range g.mean {
		s := g.logC[k]
		m, iv := g.mean[k], g.ivar[k]
		for j, e := range v {
			d := e - m[j]
			s -= 0.5 * d * d * iv[j]
		}
		g.score[k] = s
		best = max(best, s)
	}
	var sum float64
	for _, s := range g.score {
		sum += math.Exp(s - best)
	}
	return best + math.Log(sum)
}

// posteriors of the components for v, into post.
func (g *gmm) posteriors(v []float64, post []float64) {
	ll := g.logLik(v)
	for k, s := range g.score {
		post[k] = math.Exp(s - ll)
	}
}

// accumulate adds frame v's statistics under g: each component's
// posterior to n, the posterior-weighted frame to sum and, when sq is not
// nil, its square to sq (posteriors under 1e-4 skipped); post is scratch.
func (g *gmm) accumulate(v, post, n []float64, sum, sq [][]float64) {
	g.posteriors(v, post)
	for k, p := range post {
		if p < 1e-4 {
			continue
		}
		n[k] += p
		for j, e := range v {
			sum[k][j] += p * e
			if sq != nil {
				sq[k][j] += p * e * e
			}
		}
	}
}

// viterbi labels every region frame with the likelier speaker sequence:
// each frame scores its log-likelihood under each model (pause frames
// score nothing), and switching costs switchCost inside speech, pauseCost
// in a pause or between regions.
func viterbi(fv *frameVectors, pause [][]bool, models [2]*gmm) ([][]int, float64) {
	total := 0
	for ri := range pause {
		total += len(pause[ri])
	}
	back := make([]uint8, total) // bit s: the best path into state s came from the other state
	var score [2]float64
	var offset float64 // what was taken off the scores to keep them small
	v := make([]float64, dimsFrame)
	t := 0
	for ri, p := range pause {
		for i := range p {
			var e [2]float64
			if !p[i] {
				fv.vector(ri, i, v)
				e[0], e[1] = models[0].logLik(v), models[1].logLik(v)
			}
			if t == 0 {
				score = e
				t++
				continue
			}
			cost := switchCost
			if i == 0 || p[i] || p[i-1] {
				cost = pauseCost
			}
			var next [2]float64
			var b uint8
			for s := 0; s < 2; s++ {
				stay, sw := score[s], score[1-s]-cost
				if sw > stay {
					next[s] = sw + e[s]
					b |= 1 << s
				} else {
					next[s] = stay + e[s]
				}
			}
			// Keep the scores small: only their difference matters.
			m := max(next[0], next[1])
			score = [2]float64{next[0] - m, next[1] - m}
			offset += m
			back[t] = b
			t++
		}
	}
	out := make([][]int, len(pause))
	for ri := range pause {
		out[ri] = make([]int, len(pause[ri]))
	}
	s := 0
	if score[1] > score[0] {
		s = 1
	}
	best := offset + score[s]
	t = total - 1
	for ri := len(pause) - 1; ri >= 0; ri-- {
		for i := len(pause[ri]) - 1; i >= 0; i-- {
			out[ri][i] = s
			if back[t]&(1<<s) != 0 {
				s = 1 - s
			}
			t--
		}
	}
	return out, best
}

// snap moves each change of speaker in one region's labels that is not in
// a pause to the middle of the nearest pause within maxDist frames, never
// past the changes before and after it.
func snap(labels []int, pause []bool, maxDist int) []int {
	var changes []int
	for i := 1; i < len(labels); i++ {
		if labels[i] != labels[i-1] {
			changes = append(changes, i)
		}
	}
	if len(changes) == 0 {
		return labels
	}
	for k, c := range changes {
		if pause[c] || pause[c-1] {
			continue
		}
		lo, hi := 1, len(labels)-1
		if k > 0 {
			lo = changes[k-1] + 1
		}
		if k+1 < len(changes) {
			hi = changes[k+1] - 1
		}
		best := -1
		for d := 1; d <= maxDist && best < 0; d++ {
			for _, j := range []int{c - d, c + d} {
				if j >= lo && j <= hi && pause[j] {
					best = j
					break
				}
			}
		}
		if best < 0 {
			continue
		}
		a, b := best, best
		for a-1 >= lo && pause[a-1] {
			a--
		}
		for b+1 <= hi && pause[b+1] {
			b++
		}
		changes[k] = (a + b + 1) / 2
	}
	out := make([]int, len(labels))
	l, k := labels[0], 0
	for i := range out {
		if k < len(changes) && changes[k] == i {
			l = 1 - l
			k++
		}
		out[i] = l
	}
	return out
}
