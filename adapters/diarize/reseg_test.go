package diarize

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSnapMovesAChangeToTheNearestPause(t *testing.T) {
	labels := func(change ...int) []int {
		out := make([]int, 100)
		l := 0
		for i := range out {
			if slices.Contains(change, i) {
				l = 1 - l
			}
			out[i] = l
		}
		return out
	}
	pauseAt := func(from, to int) []bool {
		p := make([]bool, 100)
		for i := from; i < to; i++ {
			p[i] = true
		}
		return p
	}
	cases := []struct {
		name   string
		labels []int
		pause  []bool
		want   []int
	}{
		{"late change moves back to the pause", labels(60), pauseAt(40, 46), labels(43)},
		{"early change moves on to the pause", labels(30), pauseAt(40, 46), labels(43)},
		{"a change already in a pause stays", labels(41), pauseAt(40, 46), labels(41)},
		{"no pause within reach: stays", labels(80), pauseAt(10, 16), labels(80)},
		{"one pause serves one change, never past another", labels(20, 30), pauseAt(24, 26), labels(25, 30)},
		{"no change, no move", labels(), pauseAt(40, 46), labels()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := snap(slices.Clone(c.labels), c.pause, 30); !slices.Equal(got, c.want) {
				t.Fatalf("changes at %v, want %v", changesOf(got), changesOf(c.want))
			}
		})
	}
}

func changesOf(labels []int) []int {
	var out []int
	for i := 1; i < len(labels); i++ {
		if labels[i] != labels[i-1] {
			out = append(out, i)
		}
	}
	return out
}

// synthetic frames of two close voices: every cepstral coefficient's mean
// differs by 0.5 of its frame-to-frame spread, so no single frame tells the
// voices apart; speaker 0 talks to frame 300, a 100 ms pause, speaker 1
// from 310 to 600, and speaker 1 says a 0.2 s back-channel over speaker 0
// (frames 100–120, no pause).
func syntheticCall() (*frameFeats, [][2]int, []bool, []int) {
	regs := [][2]int{{0, 600}}
	fs := &frameFeats{regs: regs, off: []int{0}}
	truth := make([]int, 600)
	pause := make([]bool, 600)
	r := rand.New(rand.NewPCG(3, 4))
	for f := 0; f < 600; f++ {
		s := 0
		if f >= 310 || (f >= 100 && f < 120) {
			s = 1
		}
		truth[f] = s
		v := make([]float32, dims)
		if f >= 300 && f < 310 {
			pause[f] = true
			for j := range numCeps {
				v[j] = float32(r.NormFloat64())
			}
			v[dimEnergy] = -70
			v[dimPitch] = float32(math.Log(150))
		} else {
			for j := range numCeps {
				v[j] = float32(0.5*float64(2*s-1)*float64(j%2*2-1) + r.NormFloat64())
			}
			v[dimEnergy] = float32(-20 + 3*r.NormFloat64())
			v[dimPitch] = float32(math.Log(120) + 0.1*r.NormFloat64())
			v[dimVoice] = 0.8
		}
		fs.data = append(fs.data, v...)
	}
	return fs, regs, pause, truth
}

func TestResegmentPutsTheChangeInThePauseAndKeepsTheBackChannelWithTheTurn(t *testing.T) {
	fs, _, pause, truth := syntheticCall()
	// The windows' labels: the change 0.5 s late, as a 1.5 s window puts it.
	start := make([]int, 600)
	for f := 360; f < 600; f++ {
		start[f] = 1
	}
	res, _ := resegment(newFrameVectors(fs, [][]bool{pause}), [][]bool{pause}, [][]int{start}, trainGMM)
	got := res[0]
	ch := changesOf(got)
	if len(ch) != 1 || ch[0] < 300 || ch[0] > 310 {
		t.Fatalf("changes of speaker at frames %v, want one in the pause at 300–310", ch)
	}
	if got[0] != truth[0] || got[599] != truth[599] {
		t.Fatalf("labels %d…%d, want %d…%d", got[0], got[599], truth[0], truth[599])
	}
	for f := 100; f < 120; f++ {
		if got[f] != got[0] {
			t.Fatalf("frame %d of the overlapping back-channel left the speaker holding the turn", f)
		}
	}
}

func TestViterbiSwitchesInsideSpeechOnlyOnSustainedEvidence(t *testing.T) {
	fs, _, pause, truth := syntheticCall()
	p := [][]bool{pause}
	fv := newFrameVectors(fs, p)
	// Models trained on the truth; with them, a long change inside speech
	// would be found, but the 0.2 s back-channel is not worth a switch.
	var models [2]*gmm
	for s := range models {
		models[s] = trainGMM(fv, p, [][]int{truth}, s)
	}
	got, _ := viterbi(fv, p, models)
	if ch := changesOf(got[0]); len(ch) != 1 || ch[0] < 300 || ch[0] > 310 {
		t.Fatalf("changes at %v, want one in the pause", ch)
	}
}

func TestPausesAreShortGapsUnderTheThreshold(t *testing.T) {
	energy := make([]float32, 200)
	for i := range energy {
		energy[i] = -20
		if i < 20 || i >= 180 {
			energy[i] = -80 // silence around the speech sets the floor
		}
	}
	for i := 60; i < 66; i++ { // a 60 ms pause
		energy[i] = -75
	}
	for i := 120; i < 122; i++ { // a 20 ms dip: not a pause
		energy[i] = -75
	}
	regs := regions(vad(energy))
	if len(regs) != 1 {
		t.Fatalf("regions %v, want one (the VAD bridges the pause)", regs)
	}
	p := pauses(energy, regs)[0]
	for f := regs[0][0]; f < regs[0][1]; f++ {
		if want := f >= 60 && f < 66; p[f-regs[0][0]] != want {
			t.Fatalf("frame %d: pause %v, want %v", f, p[f-regs[0][0]], want)
		}
	}
}

func TestAgglomerativeClusteringSeparatesTwoCloseVoices(t *testing.T) {
	// Ten regions of 1.5 s, speakers alternating 0, 1, 0, 1, …; each
	// coefficient's mean differs by 0.4 of its spread.
	var regs [][2]int
	for i := 0; i < 10; i++ {
		regs = append(regs, [2]int{i * 200, i*200 + 150})
	}
	fs := &frameFeats{regs: regs, off: make([]int, len(regs))}
	r := rand.New(rand.NewPCG(5, 6))
	pause := make([][]bool, len(regs))
	for ri := range regs {
		fs.off[ri] = ri * 150
		pause[ri] = make([]bool, 150)
		s := float64(2*(ri%2) - 1)
		for f := 0; f < 150; f++ {
			v := make([]float32, dims)
			for j := range numCeps {
				v[j] = float32(0.2*s*float64(j%2*2-1) + r.NormFloat64())
			}
			v[dimEnergy] = float32(-20 + 3*r.NormFloat64())
			v[dimPitch] = float32(math.Log(120) + 0.1*r.NormFloat64())
			v[dimVoice] = 0.8
			fs.data = append(fs.data, v...)
		}
	}
	got := ahcLabels(newFrameVectors(fs, pause), regs, pause)
	if got == nil {
		t.Fatal("no labels")
	}
	for ri := range regs {
		want := ri % 2
		if got[0][0] == 1 {
			want = 1 - want
		}
		for f, l := range got[ri] {
			if l != want {
				t.Fatalf("region %d frame %d: label %d, want %d (regions by label: %v)", ri, f, l, want, firstLabels(got))
			}
		}
	}
}

func firstLabels(labels [][]int) []int {
	out := make([]int, len(labels))
	for i, l := range labels {
		out[i] = l[0]
	}
	return out
}

func TestVADKeepsQuietWordEdges(t *testing.T) {
	// Floor −80 dB, speech −20 dB: the threshold is −62 dB. Frames at
	// −68 dB next to speech (a word's quiet edge) are speech; the same
	// level far from speech (a noise burst) is not.
	energy := make([]float32, 300)
	for i := range energy {
		energy[i] = -80
	}
	for i := 100; i < 200; i++ {
		energy[i] = -20
	}
	for i := 90; i < 100; i++ {
		energy[i] = -68
	}
	for i := 200; i < 215; i++ {
		energy[i] = -68
	}
	for i := 260; i < 280; i++ {
		energy[i] = -68
	}
	regs := regions(vad(energy))
	if len(regs) != 1 || regs[0] != [2]int{90, 215} {
		t.Fatalf("speech at frames %v, want [90 215)", regs)
	}
}
