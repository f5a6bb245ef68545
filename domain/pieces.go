package domain

import (
	"cmp"
	"math"
	"slices"
)

// PieceSizing says how a long recording is cut for a speech engine that
// works on a fixed number of requests at once (a GPU server's slots).
//
// Why pieces of about a minute rather than as long as the engine takes: the
// engine, not this service, is the limit, and one recording finishes when
// its last piece does. With a few long pieces the last wave leaves slots
// idle and the longest piece sets the finish (8 pieces of 288–567 s on 4
// slots finished 1.12–1.24× after the engine-bound time); with many short
// ones, sent longest first, the slots stay busy to the end. Short pieces
// also free a slot often, so another account's call never waits long for
// one (see docs/performance.md, issue 28).
type PieceSizing struct {
	// MaxSeconds is the longest piece the engine takes in one request
	// (its size or length limit); 0 is no limit.
	MaxSeconds float64
	// Seconds is the length a piece aims at; 0 cuts only what MaxSeconds
	// requires, into the fewest pieces (PlanChunks).
	Seconds float64
	// WholeSeconds: a recording up to this long goes whole (and never one
	// up to 1.5× Seconds). A short call cut in pieces would need several
	// slots to come free before it finishes, each a wait behind whatever
	// the engine is doing; whole, it needs one.
	WholeSeconds float64
	// Slots is how many requests the engine works on at once. A recording
	// cut into more pieces than one is cut into a multiple of Slots when
	// the pieces stay at least half of Seconds long, so that its last wave
	// keeps every slot busy.
	Slots int
}

// PieceWindow is how far a cut may move from its even place to fall in a
// pause, as a fraction of a piece's length: pieces are 0.75–1.25× the
// even length, and sent longest first (LongestFirst) the difference does not
// lengthen the recording's time at the engine.
const PieceWindow = 0.25

// PlanPieces cuts a recording of total seconds into consecutive pieces
// sized by sz, each cut in a pause so that no word is cut in two: a cut is
// placed at the middle of the longest silence within PieceWindow of its
// even place (the remaining length shared evenly among the remaining
// pieces), or at that place when no silence is near. No piece is longer
// than sz.MaxSeconds. silences must be in time order. The plan depends only
// on its arguments, so the same recording is cut the same way again (a
// restarted job finds the pieces it already has).
func PlanPieces(total float64, sz PieceSizing, silences []Span) []Span {
	if sz.Seconds <= 0 {
		return PlanChunks(total, sz.MaxSeconds, silences)
	}
	n := PieceCount(total, sz)
	if n <= 1 {
		return []Span{{0, total}}
	}
	out := make([]Span, 0, n)
	start, i := 0.0, 0
	for k := range n - 1 {
		left := n - k // pieces still to cut, this one included
		even := (total - start) / float64(left)
		at := start + even
		lo, hi := at-PieceWindow*even, at+PieceWindow*even
		if sz.MaxSeconds > 0 {
			hi = min(hi, start+sz.MaxSeconds)
			lo = max(lo, total-float64(left-1)*sz.MaxSeconds)
		}
		at = min(max(at, lo), hi)
		cut, longest := at, -1.0
		for i < len(silences) && (silences[i].Start+silences[i].End)/2 <= lo {
			i++
		}
		for j := i; j < len(silences) && silences[j].Start < hi; j++ {
			s := silences[j]
			mid := (s.Start + s.End) / 2
			if mid <= lo || mid > hi {
				continue
			}
			// The part of the silence inside the window is what counts; of
			// two as long, the nearer the even place.
			l := min(s.End, hi) - max(s.Start, lo)
			if l > longest || (l == longest && math.Abs(mid-at) < math.Abs(cut-at)) {
				cut, longest = mid, l
			}
		}
		out = append(out, Span{start, cut})
		start = cut
	}
	return append(out, Span{start, total})
}

// PieceCount is how many pieces PlanPieces cuts a recording of total
// seconds into: one up to sz.WholeSeconds (and 1.5× sz.Seconds), else about
// total/sz.Seconds, rounded up to a multiple of sz.Slots when the pieces
// stay at least Seconds/2 long; and, for a recording over sz.MaxSeconds,
// enough that none is over it wherever its cuts move within PieceWindow.
func PieceCount(total float64, sz PieceSizing) int {
	if sz.Seconds <= 0 || total <= 0 {
		return 1
	}
	n := 1
	if total > max(sz.WholeSeconds, 1.5*sz.Seconds) {
		n = max(int(math.Round(total/sz.Seconds)), 2)
		if sz.Slots > 1 {
			if up := (n + sz.Slots - 1) / sz.Slots * sz.Slots; total/float64(up) >= sz.Seconds/2 {
				n = up
			}
		}
	}
	if sz.MaxSeconds > 0 && total > sz.MaxSeconds {
		n = max(n, int(math.Ceil(total/(sz.MaxSeconds/(1+PieceWindow)))))
	}
	return n
}

// LongestFirst returns the order in which to send pieces of the given
// lengths to an engine of several slots: longest first (ties in their
// order), so the last to finish is a short one and the recording's time at
// the engine is close to its total divided by the slots.
func LongestFirst(seconds []float64) []int {
	order := make([]int, len(seconds))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(seconds[b], seconds[a]) })
	return order
}
