package diarize

import (
	"math"
	"math/rand/v2"
	"testing"
)

// correlatedCall is sixteen 1.5 s turns, speakers alternating 0, 1, 0, …,
// each its own region, whose voices differ only in how three pairs of
// coefficients move together (+0.9 for speaker 0, −0.9 for speaker 1):
// every coefficient has the same mean and spread for both, so a split by
// means and spreads cannot see them.
func correlatedCall() (*frameFeats, [][2]int, [][]bool, []int) {
	const turns, frames = 16, 150
	var regs [][2]int
	for i := 0; i < turns; i++ {
		regs = append(regs, [2]int{i * 200, i*200 + frames})
	}
	fs := &frameFeats{regs: regs, off: make([]int, turns)}
	pause := make([][]bool, turns)
	speaker := make([]int, turns)
	r := rand.New(rand.NewPCG(7, 8))
	for ri := range regs {
		fs.off[ri] = ri * frames
		pause[ri] = make([]bool, frames)
		speaker[ri] = ri % 2
		rho := 0.9
		if speaker[ri] == 1 {
			rho = -0.9
		}
		for f := 0; f < frames; f++ {
			v := make([]float32, dims)
			for j := range numCeps {
				v[j] = float32(r.NormFloat64())
			}
			for j := 0; j < 6; j += 2 {
				v[j+1] = float32(rho*float64(v[j]) + math.Sqrt(1-rho*rho)*r.NormFloat64())
			}
			v[dimEnergy] = float32(-20 + 3*r.NormFloat64())
			v[dimPitch] = float32(math.Log(120) + 0.1*r.NormFloat64())
			v[dimVoice] = 0.8
			fs.data = append(fs.data, v...)
		}
	}
	return fs, regs, pause, speaker
}

// accuracy is the share of regions whose frames all carry their speaker's
// label, under the better of the two namings.
func accuracy(labels [][]int, speaker []int) float64 {
	var same, swapped float64
	for ri, l := range labels {
		for _, x := range l {
			if x == speaker[ri] {
				same++
			} else {
				swapped++
			}
		}
	}
	return max(same, swapped) / (same + swapped)
}

func TestSearchLeavesAWrongSplitForALikelierOneTheSwapSearchFinds(t *testing.T) {
	fs, regs, pause, speaker := correlatedCall()
	// The start a means-and-spreads clustering may give: the first half of
	// the call against the second, each half both voices.
	start := make([][]int, len(regs))
	for ri := range regs {
		start[ri] = make([]int, regs[ri][1]-regs[ri][0])
		if ri >= len(regs)/2 {
			for i := range start[ri] {
				start[ri][i] = 1
			}
		}
	}
	// The premise: the frame models alone keep a wrong split, less likely
	// than the true one.
	fv := newFrameVectors(fs, pause)
	wrong, wrongScore := resegment(fv, pause, start, trainGMM)
	if acc := accuracy(wrong, speaker); acc > 0.9 {
		t.Fatalf("resegmentation alone already gets %.0f%% of the frames right: the test shows nothing", 100*acc)
	}
	truth := make([][]int, len(regs))
	for ri := range regs {
		truth[ri] = make([]int, regs[ri][1]-regs[ri][0])
		for i := range truth[ri] {
			truth[ri][i] = speaker[ri]
		}
	}
	if _, trueScore := resegment(fv, pause, truth, trainGMM); trueScore <= wrongScore {
		t.Fatalf("the true split scores %.0f, the wrong one %.0f: the models do not prefer the truth", trueScore, wrongScore)
	}
	got := search(fv, regs, pause, [][][]int{start})
	if acc := accuracy(got, speaker); acc < 0.99 {
		t.Fatalf("search gets %.1f%% of the frames right, want the true split", 100*acc)
	}
}

func TestSwapSearchLeavesShortFragmentsWithTheirStart(t *testing.T) {
	fs, regs, pause, speaker := correlatedCall()
	// Region 2 (speaker 0): 0.2 s of speech, a pause, then the rest; the
	// 0.2 s fragment is fixed.
	for i := 20; i < 26; i++ {
		pause[2][i] = true
	}
	spans := swapSpans(regs, pause)
	frag := -1
	for u, sp := range spans {
		if sp.ri == 2 && sp.from == 0 {
			frag = u
		}
		if want := sp.ri == 2 && sp.from == 0; sp.fixed != want {
			t.Fatalf("span %+v fixed %v, want %v", sp, sp.fixed, want)
		}
	}
	if frag < 0 || spans[frag].to != 20 {
		t.Fatalf("spans %v: no 0.2 s fragment at the start of region 2", spans)
	}
	// Start from the truth, the fragment on the wrong speaker: the search
	// has nothing to gain elsewhere and must not move the fragment back.
	start := make([][]int, len(regs))
	for ri := range regs {
		start[ri] = make([]int, regs[ri][1]-regs[ri][0])
		for i := range start[ri] {
			start[ri][i] = speaker[ri]
		}
	}
	for i := 0; i < 20; i++ {
		start[2][i] = 1 - speaker[2]
	}
	st := spanStats(newFrameVectors(fs, pause), pause, spans)
	got := swapStart(regs, pause, spans, st, start)
	if got[2][0] != 1-speaker[2] || got[2][100] != speaker[2] {
		t.Fatalf("region 2: fragment %d, rest %d; want the fragment kept on %d", got[2][0], got[2][100], 1-speaker[2])
	}
}
