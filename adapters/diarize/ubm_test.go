package diarize

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/domain"
)

// closeTelCall is a call of two close voices in the telephone band and its
// known turns (testdata/audio/README.md).
type closeTelCall struct {
	file  string
	turns []struct {
		start, end float64
		speaker    string
	}
}

var closeTelCalls = []closeTelCall{
	{"call-close-female-tel-8k.mp3", []struct {
		start, end float64
		speaker    string
	}{
		{0.380, 6.479, "1"}, {7.019, 13.236, "2"}, {13.636, 17.233, "1"}, {17.893, 22.780, "2"},
		{23.500, 31.480, "1"}, {31.860, 35.375, "2"}, {35.915, 41.416, "1"}, {41.816, 45.073, "2"},
		{45.733, 51.734, "1"}, {52.054, 53.044, "2"},
	}},
	{"call-close-male-tel-8k.mp3", []struct {
		start, end float64
		speaker    string
	}{
		{0.300, 5.512, "1"}, {6.072, 12.628, "2"}, {13.048, 16.122, "1"}, {16.802, 22.006, "2"},
		{22.746, 29.624, "1"}, {29.924, 33.613, "2"}, {34.173, 38.961, "1"}, {39.381, 42.795, "2"},
		{43.475, 48.572, "1"}, {48.912, 49.942, "2"},
	}},
}

// Two eSpeak voices with the same formants, differing above 3.4 kHz and in
// breath and voicing, through the telephone band: with the speakers' own
// mixtures the diarizer split the women's call by what is said (46 of 85
// words right in the eval, DER over 40%); with models adapted from the
// background model it finds the voices. On the men's call the unit swap
// search's split by content was a near tie with the stretch search's split
// by voice, and won it (DER 49%): the stretch search now wins near ties.
func TestCloseVoicesInTheTelephoneBandAreToldApart(t *testing.T) {
	for _, c := range closeTelCalls {
		t.Run(c.file, func(t *testing.T) {
			turns, err := New().Diarize(context.Background(), decode(t, c.file))
			if err != nil {
				t.Fatal(err)
			}
			ref := make([]domain.Turn, 0, len(c.turns))
			for _, tr := range c.turns {
				ref = append(ref, tn(tr.start, tr.end, tr.speaker))
			}
			r := DER(ref, turns, 0.25)
			t.Logf("turns: %v; DER %.1f%%", turns, 100*r.Rate())
			if r.Rate() > 0.10 {
				t.Errorf("DER %.1f%% (%+v), want ≤ 10%%", 100*r.Rate(), r)
			}
		})
	}
}

func TestTheBackgroundModelLoads(t *testing.T) {
	g, err := background()
	if err != nil {
		t.Fatal(err)
	}
	if len(g.logW) != ubmComponents {
		t.Fatalf("%d components, want %d", len(g.logW), ubmComponents)
	}
	var sum float64
	for _, lw := range g.logW {
		sum += math.Exp(lw)
	}
	if math.Abs(sum-1) > 1e-3 {
		t.Errorf("weights sum to %g", sum)
	}
}

func TestAMalformedBackgroundModelIsRefused(t *testing.T) {
	good := `{"dims":34,"weights":[1],"means":[[` + strings.Repeat("0,", 33) + `0]],"variances":[[` + strings.Repeat("1,", 33) + `1]]}`
	if _, err := parseUBM([]byte(good)); err != nil {
		t.Fatalf("a well-formed model: %v", err)
	}
	for _, c := range []struct{ name, json, want string }{
		{"not JSON", `{`, "background model"},
		{"other dimensions", strings.Replace(good, `"dims":34`, `"dims":19`, 1), "want 34 dimensions"},
		{"a negative variance", strings.Replace(good, `"variances":[[1,`, `"variances":[[-1,`, 1), "variance -1"},
		{"weights not summing to one", strings.Replace(good, `"weights":[1]`, `"weights":[0.5]`, 1), "weights sum to 0.5"},
		{"a short mean", strings.Replace(good, `"means":[[0,`, `"means":[[`, 1), "component 0 is malformed"},
	} {
		_, err := parseUBM([]byte(c.json))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}

// A component's mean moves toward a speaker's frames by n/(n+relevance)
// of the way, n the frames it takes.
func TestAdaptedMeansMoveByTheirShareOfTheFrames(t *testing.T) {
	fs, _, pause, truth := syntheticCall()
	p, labels := [][]bool{pause}, [][]int{truth}
	fv := newFrameVectors(fs, p)
	base := &gmm{logW: []float64{0}, mean: [][]float64{make([]float64, dimsFrame)}, ivar: [][]float64{make([]float64, dimsFrame)}}
	for j := range base.ivar[0] {
		base.ivar[0][j] = 1
	}
	base.prepare()
	for s := range 2 {
		var n float64
		mean := make([]float64, dimsFrame)
		v := make([]float64, dimsFrame)
		for i, l := range truth {
			if l != s || pause[i] {
				continue
			}
			fv.vector(0, i, v)
			for j, e := range v {
				mean[j] += e
			}
			n++
		}
		g := adaptMeans(base, fv, p, labels, s)
		if g == nil {
			t.Fatalf("speaker %d: no model from %.0f frames", s, n)
		}
		for j := range mean {
			want := n / (n + relevance) * mean[j] / n
			if math.Abs(g.mean[0][j]-want) > 1e-9 {
				t.Fatalf("speaker %d, dimension %d: mean %g, want %g", s, j, g.mean[0][j], want)
			}
		}
	}
}

// The gain's closed form is the adapted model's log-likelihood gain with
// the posteriors held: d·F − ½·N·|d|² for the adapted shift d = F/(N+r).
func TestGainIsTheAdaptedLikelihoodGain(t *testing.T) {
	a := newSpeakerStats(2)
	a.n[0], a.n[1] = 30, 4
	for j := range dimsFrame {
		a.f[j] = float64(j%5) - 2
		a.f[dimsFrame+j] = 0.5 * float64(j%3)
	}
	var want float64
	for k, n := range a.n {
		f := a.f[k*dimsFrame : (k+1)*dimsFrame]
		var df, dd float64
		for _, x := range f {
			d := x / (n + relevance)
			df += d * x
			dd += d * d
		}
		want += df - 0.5*n*dd
	}
	if got := a.gain(); math.Abs(got-want) > 1e-9 {
		t.Fatalf("gain %g, want %g", got, want)
	}
}

// Twelve stretches, speakers alternating, each mostly one class of sound
// (component), the classes in another order: the speakers differ by the
// same small shift in every class. The split by speaker gains more than
// the split by content, and the stretch search reaches it from a start
// with a quarter of the stretches on the wrong side.
func TestStretchSearchSplitsBySpeakerNotByContent(t *testing.T) {
	const units = 12
	st := make([]mapStats, units)
	speaker := make([]int, units)
	content := make([]int, units)
	for u := range units {
		speaker[u] = u % 2
		content[u] = (u / 2) % 2 // 0 0 1 1 0 0 …: its own order
		shift := float32(0.4)
		if speaker[u] == 1 {
			shift = -0.4
		}
		st[u] = mapStats{n: make([]float32, 2), f: make([]float32, 2*dimsFrame)}
		st[u].n[content[u]], st[u].n[1-content[u]] = 90, 10
		for k := range 2 {
			for j := range dimsFrame {
				st[u].f[k*dimsFrame+j] = st[u].n[k] * shift * float32(1+j%3) / 3
			}
		}
	}
	gainOf := func(lab []int) float64 {
		c := [2]speakerStats{newSpeakerStats(2), newSpeakerStats(2)}
		for u := range st {
			c[lab[u]].add(&st[u], 1)
		}
		return c[0].gain() + c[1].gain()
	}
	if bySpeaker, byContent := gainOf(speaker), gainOf(content); bySpeaker <= byContent {
		t.Fatalf("gain of the split by speaker %.1f, by content %.1f: want the speakers' larger", bySpeaker, byContent)
	}
	lab := append([]int(nil), speaker...)
	for _, u := range []int{2, 5, 9} {
		lab[u] = 1 - lab[u]
	}
	mapSwapSearch(st, make([]bool, units), lab)
	for u := range units {
		if lab[u] != speaker[u] {
			t.Fatalf("labels %v, want the speakers %v", lab, speaker)
		}
	}
}

func TestTrainBackgroundWritesAModelTheDiarizerLoads(t *testing.T) {
	wav := decode(t, "call-close-female-tel-8k.mp3")
	if _, err := TrainBackground(context.Background(), []string{wav}, "one call"); err == nil || !strings.Contains(err.Error(), "too few") {
		t.Fatalf("one 53 s call: error %v, want one saying its frames are too few", err)
	}
	paths := []string{wav, wav, wav, wav}
	b, err := trainBackground(context.Background(), paths, "the same call four times", 2)
	if err != nil {
		t.Fatal(err)
	}
	g, err := parseUBM(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.logW) != ubmComponents || !strings.Contains(string(b), `"about": "the same call four times; `) {
		t.Fatalf("%d components; the model's head: %.120s", len(g.logW), b)
	}
}

// The scripted calls of adapters/asr/asrtest speak each utterance as a
// steady tone of its own (speaker A 220–280 Hz, B 820–900 Hz). Adapted
// models cannot compare such sounds (a split by stretch won: A B B A B A
// B); the call's own mixtures keep the speakers apart.
func TestSteadyTonesAreLeftToTheCallsOwnMixtures(t *testing.T) {
	wav := decode(t, "../../adapters/asr/asrtest/testdata/scripted-call-mono-16k.mp3")
	sp, err := readSpeech(context.Background(), wav)
	if err != nil {
		t.Fatal(err)
	}
	fv := sp.fv
	if share := withinShare(fv, sp.pause); share >= steadyShare || callModel(fv, sp.pause) != nil {
		t.Fatalf("%.2f of the tones' variance within their stretches, and a call model: want under %.2f and none", share, steadyShare)
	}
	speechWAV := decode(t, "call-close-female-tel-8k.mp3")
	sp, err = readSpeech(context.Background(), speechWAV)
	if err != nil {
		t.Fatal(err)
	}
	if share := withinShare(sp.fv, sp.pause); share < steadyShare {
		t.Fatalf("speech: %.2f of the variance within its stretches, want at least %.2f", share, steadyShare)
	}
	turns, err := New().Diarize(context.Background(), wav)
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 7 {
		t.Fatalf("turns %v, want the call's 7", turns)
	}
	for i, tr := range turns {
		if tr.Speaker != turns[i%2].Speaker || (i > 0 && tr.Speaker == turns[i-1].Speaker) {
			t.Fatalf("turns do not alternate: %v", turns)
		}
	}
}
