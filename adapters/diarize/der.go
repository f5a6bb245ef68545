package diarize

import (
	"math"

	"github.com/hyscribe/hyscribe/domain"
)

// DERResult is a diarization error rate and its parts, in seconds of
// reference speech scored.
type DERResult struct {
	Scored, Missed, FalseAlarm, Confusion float64
}

// Rate is (missed + false alarm + confusion) / scored speech.
func (r DERResult) Rate() float64 {
	if r.Scored == 0 {
		return 0
	}
	return (r.Missed + r.FalseAlarm + r.Confusion) / r.Scored
}

// DER scores hyp against ref the way NIST's md-eval does, on a 10 ms grid:
// time within collar seconds of a reference boundary is not scored; hyp's
// speaker keys are mapped onto ref's by the mapping (of the two possible for
// two speakers, or identity for more) that minimises confusion. Overlapped
// reference speech counts once per speaker.
func DER(ref, hyp []domain.Turn, collar float64) DERResult {
	const step = 0.01
	end := 0.0
	for _, t := range append(append([]domain.Turn(nil), ref...), hyp...) {
		end = max(end, t.End)
	}
	n := int(math.Ceil(end/step)) + 1
	refKeys, hypKeys := keys(ref), keys(hyp)
	skip := make([]bool, n)
	for _, t := range ref {
		for _, b := range []float64{t.Start, t.End} {
			for i := max(int((b-collar)/step), 0); i < n && float64(i)*step < b+collar; i++ {
				skip[i] = true
			}
		}
	}
	grid := func(turns []domain.Turn, idx map[string]int) [][]int {
		g := make([][]int, n)
		for _, t := range turns {
			for i := int(math.Round(t.Start / step)); i < n && float64(i)*step < t.End; i++ {
				if !contains(g[i], idx[t.Speaker]) {
					g[i] = append(g[i], idx[t.Speaker])
				}
			}
		}
		return g
	}
	rg, hg := grid(ref, refKeys), grid(hyp, hypKeys)
	best := DERResult{Scored: -1}
	for _, perm := range mappings(len(hypKeys)) {
		var r DERResult
		for i := 0; i < n; i++ {
			if skip[i] {
				continue
			}
			nr, nh := len(rg[i]), len(hg[i])
			correct := 0
			for _, h := range hg[i] {
				if contains(rg[i], perm[h]) {
					correct++
				}
			}
			r.Scored += float64(nr) * step
			r.Missed += float64(max(nr-nh, 0)) * step
			r.FalseAlarm += float64(max(nh-nr, 0)) * step
			r.Confusion += float64(min(nr, nh)-correct) * step
		}
		if best.Scored < 0 || r.Confusion < best.Confusion {
			best = r
		}
	}
	return best
}

func keys(turns []domain.Turn) map[string]int {
	m := map[string]int{}
	for _, t := range turns {
		if _, ok := m[t.Speaker]; !ok {
			m[t.Speaker] = len(m)
		}
	}
	return m
}

// mappings of hyp speaker indexes onto ref indexes: both ways for two.
func mappings(n int) [][]int {
	id := make([]int, max(n, 1))
	for i := range id {
		id[i] = i
	}
	if n != 2 {
		return [][]int{id}
	}
	return [][]int{{0, 1}, {1, 0}}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
