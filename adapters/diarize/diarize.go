// Package diarize tells two speakers apart in a mono recording with pure Go
// signal processing and one small background model made here (ubm.json,
// from synthetic voices; no downloaded weights): a ports.Diarizer.
//
// The decoded recording (a 16 kHz mono WAV, as mp3.Splitter writes it) is
// read twice, frame by frame (25 ms frames every 10 ms), never whole; what
// is kept is 4 bytes of energy per frame and 76 bytes of features per
// speech frame (about 27 MB per hour of speech):
//
//  1. Voice activity: the log energy of every frame; a frame is speech when
//     it is well above the recording's noise floor (10th percentile)
//     relative to its loud speech (95th percentile), and speech goes on
//     while the energy stays a third of the way above the floor
//     (hysteresis: quiet word edges in noise). Gaps under 200 ms are
//     bridged and bursts under 80 ms dropped. No speech at all is an empty
//     answer, which the caller turns into "no speech detected". Gaps of
//     40 ms or more under the threshold inside a stretch are its pauses.
//  2. Features of speech frames: pre-emphasis, Hamming window, 512-point
//     FFT, 26 mel bands, log, DCT to 16 MFCCs; the pitch from the
//     autocorrelation (inverse FFT of the power spectrum) and its voicing.
//  3. Windows of 1.5 s every 0.5 s inside each stretch of speech (a shorter
//     stretch is one window) are summed into embeddings: mean and spread of
//     the MFCCs, mean |delta| of the MFCCs, mean log pitch of voiced frames,
//     mean energy; standardised, split along their principal axis, refined
//     by k-means with k = 2 and by hard EM on two diagonal Gaussians.
//  4. Frame-level resegmentation (reseg.go): the windows' labels seed two
//     speaker models (8-component diagonal GMMs on per-call normalised
//     MFCCs, deltas, energy and pitch), and a Viterbi pass over every frame
//     picks the speakers with a switch cost that is high inside speech and
//     nearly nothing in a pause; three rounds. An agglomerative clustering
//     of units of at most 2 s (ahc.go) seeds a second run; the likelier of
//     the two wins. Each start refined by a swap search (swap.go: whole
//     units between pauses move between the speakers while the split's
//     likelihood under a full-covariance Gaussian per speaker rises) seeds
//     one more run, which wins only when clearly likelier. When the call
//     has enough speech, the speaker models of these runs are not mixtures
//     of their own but the background model (ubm.go) adapted to the call
//     and then to each speaker, which compares the voices sound by sound;
//     a third search moves whole stretches of speech under those models
//     (mapswap.go); and a last pass with each speaker's own mixture places
//     the changes of the chosen split.
//  5. Turns: a change of speaker inside a stretch moves to a pause within
//     0.3 s, and runs shorter than 0.3 s inside a stretch join their
//     neighbour (a short stretch of its own, a back-channel "այո" between
//     pauses, keeps its label; one overlapping a turn never pays the
//     switch cost and stays with the speaker who holds the turn).
//
// With the engine's word times, domain.AssignSpeakers then keeps every word
// whole and moves a change that falls mid-phrase to a pause between words.
package diarize

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

var _ ports.Diarizer = (*Diarizer)(nil)

const (
	winFrames    = 150 // 1.5 s
	winHop       = 50
	bridgeFrames = 20 // gaps bridged by VAD
	burstFrames  = 8  // bursts dropped by VAD
	minRunFrames = 30 // shortest turn inside a stretch

	// Voice activity (threshold): the noise floor is the 10th percentile of
	// the frames' energy, the loud speech the 95th; speech is at least
	// vadMinGapDB above the floor, or vadThresholdShare of the way to the
	// loud speech if that is more. Nothing louder than vadMinLoudDB, or
	// standing less than vadMinGapDB out of the floor, is no speech.
	vadMinLoudDB      = -60.0
	vadMinGapDB       = 6.0
	vadThresholdShare = 0.3

	// Iterations of the window clustering: hard EM of gmm2, the power
	// iteration of principalSplit and k-means of kmeans2.
	gmm2Iterations   = 20
	powerIterations  = 50
	kmeansIterations = 50
)

// Diarizer finds two speakers' turns. The zero value is ready and is safe
// for concurrent use.
type Diarizer struct{}

// New returns a Diarizer.
func New() *Diarizer { return &Diarizer{} }

// Speech returns the stretches of speech in the 16 kHz mono WAV at path, in
// time order; none for silence or steady noise.
func (d *Diarizer) Speech(ctx context.Context, wavPath string) ([]domain.Span, error) {
	energy, err := energies(ctx, wavPath)
	if err != nil {
		return nil, err
	}
	var out []domain.Span
	for _, r := range regions(vad(energy)) {
		out = append(out, domain.Span{Start: frameTime(r[0]), End: frameTime(r[1])})
	}
	return out, nil
}

// Diarize returns the turns of the two speakers of the 16 kHz mono WAV at
// path, in time order, labelled "A" and "B" (a recording with one voice may
// still get both). No speech gives no turns.
func (d *Diarizer) Diarize(ctx context.Context, wavPath string) ([]domain.Turn, error) {
	sp, err := readSpeech(ctx, wavPath)
	if err != nil || len(sp.regs) == 0 {
		return nil, err
	}
	regs, fs, pause, fv := sp.regs, sp.fs, sp.pause, sp.fv
	wins := windows(regs)
	for _, w := range wins {
		for f := w.start; f < w.end; f++ {
			w.add(fs.at(f))
		}
	}
	// Two starts for the frame models: the windows' clustering, and an
	// agglomerative clustering of units of at most 2 s; the likelier
	// resegmentation wins. Each alone lands in a wrong split on some calls
	// of close voices (see docs/quality.md), so each is also refined by a
	// swap search of whole units (swap.go).
	starts := [][][]int{windowLabels(regs, wins, cluster(wins))}
	if a := ahcLabels(fv, regs, pause); a != nil {
		starts = append(starts, a)
	}
	best := search(fv, regs, pause, starts)
	// The adapted models choose the split; the speakers' own mixtures,
	// sharper on a few frames, place its changes (one more pass).
	best, _ = resegment(fv, pause, best, trainGMM)
	return turns(regs, pause, best), nil
}

func frameTime(f int) float64 { return float64(f*hop) / rate }

// speech is what both passes over a recording find: its stretches of
// speech (music on hold dropped), their frames' features and, inside
// them, the pauses; and the frame models' input made of them.
type speech struct {
	regs  [][2]int
	fs    *frameFeats
	pause [][]bool
	fv    *frameVectors
}

// readSpeech reads the 16 kHz mono WAV at path twice; no regions (and no
// features) when it has no speech.
func readSpeech(ctx context.Context, path string) (*speech, error) {
	energy, err := energies(ctx, path)
	if err != nil {
		return nil, err
	}
	active := vad(energy)
	dropMusic(energy, active)
	regs := regions(active)
	if len(regs) == 0 {
		return &speech{}, nil
	}
	fs, err := extract(ctx, path, regs)
	if err != nil {
		return nil, err
	}
	pause := pauses(energy, regs)
	return &speech{regs: regs, fs: fs, pause: pause, fv: newFrameVectors(fs, pause)}, nil
}

// energies is pass one: the log energy of every frame, in dB full scale.
func energies(ctx context.Context, path string) ([]float32, error) {
	fr, err := openFrames(path)
	if err != nil {
		return nil, fmt.Errorf("diarize: %w", err)
	}
	defer fr.Close()
	var out []float32
	for {
		if len(out)%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("diarize: %w", err)
			}
		}
		s, err := fr.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("diarize: read %s: %w", path, err)
		}
		var e float64
		for _, v := range s {
			e += v * v
		}
		out = append(out, float32(10*math.Log10(e/frameLen+1e-10)))
	}
}

// vad marks speech frames.
func vad(energy []float32) []bool {
	speech := make([]bool, len(energy))
	if len(energy) == 0 {
		return speech
	}
	th, ok := threshold(energy)
	if !ok {
		return speech
	}
	for i, e := range energy {
		speech[i] = float64(e) > th
	}
	// Hysteresis: speech goes on while the energy stays a third of the
	// way from the floor to the threshold, so quiet word edges (an
	// unvoiced consonant in noise) stay speech.
	floor := floorOf(energy)
	low := floor + (th-floor)/3
	for i := 1; i < len(speech); i++ {
		if speech[i-1] && !speech[i] && float64(energy[i]) > low {
			speech[i] = true
		}
	}
	for i := len(speech) - 2; i >= 0; i-- {
		if speech[i+1] && !speech[i] && float64(energy[i]) > low {
			speech[i] = true
		}
	}
	fill(speech, false, bridgeFrames)
	fill(speech, true, burstFrames)
	return speech
}

// floorOf is the noise floor: the 10th percentile of the frames' energy.
func floorOf(energy []float32) float64 {
	sorted := slices.Clone(energy)
	slices.Sort(sorted)
	return float64(sorted[len(sorted)/10])
}

// threshold is the energy above which a frame is speech; false when
// nothing is loud enough to be speech or nothing stands out of the noise
// (steady hiss, hum or silence).
func threshold(energy []float32) (float64, bool) {
	sorted := slices.Clone(energy)
	slices.Sort(sorted)
	floor := float64(sorted[len(sorted)/10])
	peak := float64(sorted[min(len(sorted)*95/100, len(sorted)-1)])
	if peak < vadMinLoudDB || peak-floor < vadMinGapDB {
		return 0, false
	}
	return floor + max(vadMinGapDB, vadThresholdShare*(peak-floor)), true
}

// fill flips runs of value shorter than n frames that have the other value
// on both sides (for false: bridge gaps; for true: drop bursts).
func fill(mask []bool, value bool, n int) {
	for i := 0; i < len(mask); {
		if mask[i] != value {
			i++
			continue
		}
		j := i
		for j < len(mask) && mask[j] == value {
			j++
		}
		inner := i > 0 && j < len(mask)
		if j-i < n && (inner || value) {
			for k := i; k < j; k++ {
				mask[k] = !value
			}
		}
		i = j
	}
}

// regions are the runs of speech frames, [first, end).
func regions(speech []bool) [][2]int {
	var out [][2]int
	for i := 0; i < len(speech); {
		if !speech[i] {
			i++
			continue
		}
		j := i
		for j < len(speech) && speech[j] {
			j++
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// window is one embedding's frames and running sums.
type window struct {
	region     int
	start, end int // frames
	n          int
	mfcc       [numCeps]float64
	delta      [numCeps]float64 // sum of |Δ MFCC|
	sq         [numCeps]float64 // sum of squares, for the spread
	prev       [numCeps]float64
	energy     float64
	pitch      float64
	voiced     int
}

func windows(regs [][2]int) []*window {
	var out []*window
	for ri, r := range regs {
		if r[1]-r[0] <= winFrames {
			out = append(out, &window{region: ri, start: r[0], end: r[1]})
			continue
		}
		for s := r[0]; s < r[1]; s += winHop {
			e := min(s+winFrames, r[1])
			if e-s < winFrames/2 && s > r[0] { // a short tail: the last full window covers it
				break
			}
			out = append(out, &window{region: ri, start: s, end: e})
		}
	}
	return out
}

// frameFeats holds the features of every frame inside a region of speech
// (pass two), dims float32s a frame.
type frameFeats struct {
	regs [][2]int
	off  []int // index of each region's first frame in data
	data []float32
}

// at is frame f's features; f must lie in a region.
func (fs *frameFeats) at(f int) []float32 {
	r, _ := slices.BinarySearchFunc(fs.regs, f, func(r [2]int, f int) int {
		if r[1] <= f {
			return -1
		}
		if r[0] > f {
			return 1
		}
		return 0
	})
	i := fs.off[r] + f - fs.regs[r][0]
	return fs.data[i*dims : (i+1)*dims]
}

// extract is pass two: the features of the frames inside regions.
func extract(ctx context.Context, path string, regs [][2]int) (*frameFeats, error) {
	fr, err := openFrames(path)
	if err != nil {
		return nil, fmt.Errorf("diarize: %w", err)
	}
	defer fr.Close()
	fs := &frameFeats{regs: regs, off: make([]int, len(regs))}
	n := 0
	for i, r := range regs {
		fs.off[i] = n
		n += r[1] - r[0]
	}
	fs.data = make([]float32, 0, n*dims)
	a := newAnalyser()
	feat := make([]float32, dims)
	ri := 0
	for f := 0; ri < len(regs); f++ {
		if f%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("diarize: %w", err)
			}
		}
		s, err := fr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("diarize: read %s: %w", path, err)
		}
		if f < regs[ri][0] {
			continue
		}
		a.features(s, feat)
		fs.data = append(fs.data, feat...)
		if f+1 == regs[ri][1] {
			ri++
		}
	}
	// A region the file ends in the middle of (it cannot: regions come from
	// the same frames) would leave data short; pad to keep at() in range.
	for len(fs.data) < n*dims {
		fs.data = append(fs.data, 0)
	}
	return fs, nil
}

func (w *window) add(feat []float32) {
	for i := 0; i < numCeps; i++ {
		v := float64(feat[i])
		w.mfcc[i] += v
		w.sq[i] += v * v
		if w.n > 0 {
			w.delta[i] += math.Abs(v - w.prev[i])
		}
		w.prev[i] = v
	}
	w.energy += float64(feat[dimEnergy])
	if feat[dimVoice] > voicedAt {
		w.pitch += float64(feat[dimPitch])
		w.voiced++
	}
	w.n++
}

// vector is the window's embedding.
func (w *window) vector(meanPitch float64) []float64 {
	v := make([]float64, 0, 3*numCeps+2)
	n := float64(max(w.n, 1))
	for i := 0; i < numCeps; i++ {
		v = append(v, w.mfcc[i]/n)
	}
	for i := 0; i < numCeps; i++ {
		v = append(v, w.delta[i]/n)
	}
	for i := 0; i < numCeps; i++ {
		m := w.mfcc[i] / n
		v = append(v, math.Sqrt(max(w.sq[i]/n-m*m, 0)))
	}
	p := meanPitch
	if w.voiced > 0 {
		p = w.pitch / float64(w.voiced)
	}
	return append(v, p, w.energy/n)
}

// weights of the embedding's parts after standardisation: MFCCs carry the
// voice's timbre, pitch is the strongest single cue, energy a weak one.
func weight(i int) float64 {
	switch {
	case i < numCeps:
		return 1
	case i < 3*numCeps:
		return 0.5
	case i == 3*numCeps:
		return 3
	}
	return 0.5
}

// cluster labels each window 0 or 1.
func cluster(wins []*window) []int {
	x, wt := embeddings(wins)
	return gmm2(x, wt, kmeans2(x, wt, principalSplit(x, wt)))
}

// embeddings are the windows' standardised, weighted vectors and their
// weights (lengths).
func embeddings(wins []*window) ([][]float64, []float64) {
	var pitchSum float64
	var voiced int
	for _, w := range wins {
		pitchSum += w.pitch
		voiced += w.voiced
	}
	meanPitch := math.Log(typicalPitch)
	if voiced > 0 {
		meanPitch = pitchSum / float64(voiced)
	}
	x := make([][]float64, len(wins))
	wt := make([]float64, len(wins))
	for i, w := range wins {
		x[i] = w.vector(meanPitch)
		wt[i] = float64(w.n)
	}
	standardise(x, wt)
	return x, wt
}

// gmm2 refines a two-way split with a few rounds of hard EM on two
// diagonal Gaussians: unlike k-means, a speaker whose windows vary more
// (an expressive voice) is not cut in half.
func gmm2(x [][]float64, wt []float64, labels []int) []int {
	d := len(x[0])
	for range gmm2Iterations {
		var mean, vr [2][]float64
		var n [2]float64
		for k := range mean {
			mean[k], vr[k] = make([]float64, d), make([]float64, d)
		}
		for i, v := range x {
			n[labels[i]] += wt[i]
			for j := range v {
				mean[labels[i]][j] += wt[i] * v[j]
			}
		}
		if n[0] == 0 || n[1] == 0 {
			return labels
		}
		for k := range mean {
			for j := range mean[k] {
				mean[k][j] /= n[k]
			}
		}
		for i, v := range x {
			for j := range v {
				e := v[j] - mean[labels[i]][j]
				vr[labels[i]][j] += wt[i] * e * e
			}
		}
		var logPrior [2]float64
		for k := range vr {
			logPrior[k] = math.Log(n[k] / (n[0] + n[1]))
			for j := range vr[k] {
				vr[k][j] = vr[k][j]/n[k] + 0.05 // floor: no dimension dominates
			}
		}
		changed := false
		for i, v := range x {
			var ll [2]float64
			for k := range ll {
				ll[k] = logPrior[k]
				for j := range v {
					e := v[j] - mean[k][j]
					ll[k] -= 0.5 * (e*e/vr[k][j] + math.Log(vr[k][j]))
				}
			}
			l := 0
			if ll[1] > ll[0] {
				l = 1
			}
			if l != labels[i] {
				labels[i], changed = l, true
			}
		}
		if !changed {
			break
		}
	}
	return labels
}

func standardise(x [][]float64, wt []float64) {
	d := len(x[0])
	var total float64
	for _, w := range wt {
		total += w
	}
	for j := 0; j < d; j++ {
		var mean, sq float64
		for i := range x {
			mean += wt[i] * x[i][j]
		}
		mean /= total
		for i := range x {
			sq += wt[i] * (x[i][j] - mean) * (x[i][j] - mean)
		}
		sd := math.Sqrt(sq/total) + 1e-9
		for i := range x {
			x[i][j] = (x[i][j] - mean) / sd * weight(j)
		}
	}
}

// principalSplit splits x on either side of the mean along the principal
// axis (found by power iteration), which no single outlier can capture.
// Weights are window lengths.
func principalSplit(x [][]float64, wt []float64) []int {
	labels := make([]int, len(x))
	if len(x) < 2 {
		return labels
	}
	d := len(x[0])
	axis := make([]float64, d)
	for j := range axis {
		axis[j] = 1 / math.Sqrt(float64(d)) * float64(1+j%3)
	}
	for range powerIterations {
		next := make([]float64, d)
		for i, v := range x {
			p := wt[i] * dot(v, axis)
			for j := range next {
				next[j] += p * v[j]
			}
		}
		norm := math.Sqrt(dot(next, next))
		if norm == 0 {
			break
		}
		for j := range next {
			next[j] /= norm
		}
		axis = next
	}
	for i, v := range x {
		if dot(v, axis) > 0 {
			labels[i] = 1
		}
	}
	return labels
}

// kmeans2 refines a split of x in two by k-means (weights are window
// lengths).
func kmeans2(x [][]float64, wt []float64, labels []int) []int {
	if len(x) < 2 {
		return labels
	}
	d := len(x[0])
	for range kmeansIterations {
		var c [2][]float64
		var n [2]float64
		c[0], c[1] = make([]float64, d), make([]float64, d)
		for i, v := range x {
			n[labels[i]] += wt[i]
			for j := range v {
				c[labels[i]][j] += wt[i] * v[j]
			}
		}
		if n[0] == 0 || n[1] == 0 {
			return labels
		}
		for k := range c {
			for j := range c[k] {
				c[k][j] /= n[k]
			}
		}
		changed := false
		for i, v := range x {
			l := 0
			if dist2(v, c[1]) < dist2(v, c[0]) {
				l = 1
			}
			if l != labels[i] {
				labels[i], changed = l, true
			}
		}
		if !changed {
			break
		}
	}
	return labels
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func dist2(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return s
}

// windowLabels labels every frame of every region by its nearest window.
func windowLabels(regs [][2]int, wins []*window, labels []int) [][]int {
	out := make([][]int, len(regs))
	wi := 0
	for ri, r := range regs {
		for wi < len(wins) && wins[wi].region < ri {
			wi++
		}
		wj := wi
		for wj < len(wins) && wins[wj].region == ri {
			wj++
		}
		frames := make([]int, r[1]-r[0])
		k := wi
		for f := r[0]; f < r[1]; f++ {
			for k+1 < wj && math.Abs(center(wins[k+1])-float64(f)) <= math.Abs(center(wins[k])-float64(f)) {
				k++
			}
			frames[f-r[0]] = labels[k]
		}
		out[ri] = frames
	}
	return out
}

// turns makes the frames' labels turns: inside each region a change of
// speaker moves to a pause within maxSnap frames, and runs shorter than
// minRunFrames join their neighbour (a region of its own, a back-channel
// "այո" between pauses, keeps its label).
func turns(regs [][2]int, pause [][]bool, frames [][]int) []domain.Turn {
	var out []domain.Turn
	for ri, r := range regs {
		labels := snap(frames[ri], pause[ri], maxSnap)
		runs := joinShort(labels, minRunFrames)
		for _, run := range runs {
			sp := "A"
			if run.label == 1 {
				sp = "B"
			}
			t := domain.Turn{Start: frameTime(r[0] + run.start), End: frameTime(r[0] + run.end), Speaker: sp}
			if run.end == len(labels) { // the stretch's last frame lasts 25 ms
				t.End += float64(frameLen-hop) / rate
			}
			if n := len(out); n > 0 && out[n-1].Speaker == sp && t.Start-out[n-1].End < 0.01 {
				out[n-1].End = t.End
				continue
			}
			out = append(out, t)
		}
	}
	return out
}

func center(w *window) float64 { return float64(w.start+w.end) / 2 }

type run struct{ start, end, label int }

// joinShort merges runs shorter than n frames into the longer neighbour.
func joinShort(labels []int, n int) []run {
	var runs []run
	for i := 0; i < len(labels); {
		j := i
		for j < len(labels) && labels[j] == labels[i] {
			j++
		}
		runs = append(runs, run{i, j, labels[i]})
		i = j
	}
	for len(runs) > 1 {
		shortest := -1
		for i, r := range runs {
			if r.end-r.start < n && (shortest < 0 || r.end-r.start < runs[shortest].end-runs[shortest].start) {
				shortest = i
			}
		}
		if shortest < 0 {
			break
		}
		// Flip it to its neighbours' label and merge.
		other := 1 - runs[shortest].label
		runs[shortest].label = other
		var merged []run
		for _, r := range runs {
			if k := len(merged); k > 0 && merged[k-1].label == r.label {
				merged[k-1].end = r.end
				continue
			}
			merged = append(merged, r)
		}
		runs = merged
	}
	return runs
}
