package domain

import (
	"math"
	"slices"
	"testing"
)

// speechSilences are the pauses of a recording of total seconds that
// speaks for 5.58 s and then pauses, again and again (the rhythm of the
// fixture of adapters/mp3/mp3test), each pause 0.2–0.72 s long, in an
// order that looks random, as people's pauses are.
func speechSilences(total float64) []Span {
	var out []Span
	for k, at := 0, 5.58; at < total; k, at = k+1, at+6.3 {
		l := 0.2 + 0.52*float64((k*7919)%101)/100
		out = append(out, Span{at, min(at+l, total)})
	}
	return out
}

// lptMakespan is when the last piece finishes on slots engine slots, the
// pieces sent in order, each to the first free slot.
func lptMakespan(seconds []float64, order []int, slots int) float64 {
	free := make([]float64, slots)
	for _, i := range order {
		k := slices.Index(free, slices.Min(free))
		free[k] += seconds[i]
	}
	return slices.Max(free)
}

func lengths(plan []Span) []float64 {
	var out []float64
	for _, s := range plan {
		out = append(out, s.Seconds())
	}
	return out
}

func inOrder(t *testing.T, plan []Span, total float64) {
	t.Helper()
	if plan[0].Start != 0 || plan[len(plan)-1].End != total {
		t.Fatalf("plan does not cover 0–%v: %v", total, plan)
	}
	for i := 1; i < len(plan); i++ {
		if plan[i].Start != plan[i-1].End || plan[i].Seconds() <= 0 {
			t.Fatalf("piece %d does not follow piece %d: %v", i, i-1, plan)
		}
	}
}

func inSilence(cut float64, silences []Span) bool {
	for _, s := range silences {
		if cut >= s.Start && cut <= s.End {
			return true
		}
	}
	return false
}

// Issue 28: a 60-minute recording on an engine of 4 slots. The old plan
// (pieces up to 600 s, cut at the longest pause of each window's second
// half) leaves slots idle on its last wave; pieces of about a minute in a
// multiple of the slots, sent longest first, finish within 1.05× the
// engine-bound time (audio × RTF / slots), every cut in a pause.
func TestPlanPiecesKeepsEverySlotBusy(t *testing.T) {
	const total, slots = 3600.0, 4
	quiet := speechSilences(total)
	bound := total / slots

	old := PlanChunks(total, 600, quiet)
	if got := lptMakespan(lengths(old), LongestFirst(lengths(old)), slots) / bound; got < 1.15 {
		t.Fatalf("premise: the 600 s plan finishes at %.2f× the bound, not over 1.15×", got)
	} else {
		t.Logf("the 600 s plan: %d pieces, %.2f× the bound longest first", len(old), got)
	}

	plan := PlanPieces(total, PieceSizing{MaxSeconds: 600, Seconds: 60, Slots: slots}, quiet)
	inOrder(t, plan, total)
	if len(plan)%slots != 0 || len(plan) != 60 {
		t.Fatalf("%d pieces, want 60 (a multiple of %d slots)", len(plan), slots)
	}
	for i, s := range plan {
		// Each cut moves at most PieceWindow from its even place, the
		// remaining length shared anew after each: within about a third of 60 s.
		if s.Seconds() < 39 || s.Seconds() > 81 {
			t.Fatalf("piece %d is %.1f s, outside 39–81 s", i, s.Seconds())
		}
		if i > 0 && !inSilence(s.Start, quiet) {
			t.Fatalf("cut %d at %.2f s is not in a pause", i, s.Start)
		}
	}
	l := lengths(plan)
	if got := lptMakespan(l, LongestFirst(l), slots) / bound; got > 1.05 {
		t.Fatalf("longest first finishes at %.3f× the bound", got)
	}
}

func TestPieceCount(t *testing.T) {
	sz := PieceSizing{MaxSeconds: 600, Seconds: 60, Slots: 4}
	for _, c := range []struct {
		total float64
		want  int
	}{
		{30, 1}, {60, 1}, {89, 1}, // a call of a minute or so stays whole
		{120, 4},   // 2 rounded up to the slots: 30 s pieces, half the target
		{110, 2},   // rounding up would make them shorter than half the target
		{150, 4},   // 3 rounded up to the slots: 37.5 s pieces
		{200, 4},   // 50 s each
		{3600, 60}, // already a multiple
		{3605, 60},
		{7200, 120},
	} {
		if got := PieceCount(c.total, sz); got != c.want {
			t.Errorf("PieceCount(%v) = %d, want %d", c.total, got, c.want)
		}
	}
	// The service's defaults: pieces of 30 s, calls up to 90 s whole.
	def := PieceSizing{MaxSeconds: 600, Seconds: 30, WholeSeconds: 90, Slots: 4}
	for total, want := range map[float64]int{60: 1, 90: 1, 100: 4, 120: 4, 3600: 120} {
		if got := PieceCount(total, def); got != want {
			t.Errorf("defaults: PieceCount(%v) = %d, want %d", total, got, want)
		}
	}
	// The engine's limit wins over the target: no piece over MaxSeconds.
	small := PieceSizing{MaxSeconds: 40, Seconds: 60, Slots: 4}
	plan := PlanPieces(1000, small, speechSilences(1000))
	inOrder(t, plan, 1000)
	for i, s := range plan {
		if s.Seconds() > 40+1e-9 {
			t.Fatalf("piece %d is %.1f s, over the engine's 40 s", i, s.Seconds())
		}
	}
	// Without a target, the fewest pieces the limit allows, as before.
	if got, want := PlanPieces(30, PieceSizing{MaxSeconds: 10}, nil), PlanChunks(30, 10, nil); !slices.Equal(got, want) {
		t.Fatalf("no target: %v, want %v", got, want)
	}
}

// With no pause anywhere near, the cut falls at its even place.
func TestPlanPiecesWithoutPauses(t *testing.T) {
	plan := PlanPieces(240, PieceSizing{Seconds: 60, Slots: 4}, nil)
	want := []Span{{0, 60}, {60, 120}, {120, 180}, {180, 240}}
	if !slices.Equal(plan, want) {
		t.Fatalf("got %v, want %v", plan, want)
	}
	// A pause just outside the window is not used; one inside is.
	plan = PlanPieces(120, PieceSizing{Seconds: 60}, []Span{{20, 21}, {70, 71}})
	if !slices.Equal(plan, []Span{{0, 70.5}, {70.5, 120}}) {
		t.Fatalf("got %v", plan)
	}
}

func TestLongestFirst(t *testing.T) {
	if got := LongestFirst([]float64{50, 70, 60, 70}); !slices.Equal(got, []int{1, 3, 2, 0}) {
		t.Fatalf("got %v", got)
	}
}

// Stitching stays exact at the new sizes: a recording with a word every
// 6.3 s, cut into pieces of about a minute (each after the first starting
// one 36 ms frame early, as the MP3 chunker cuts), recognised piece by
// piece with piece-relative times, stitches back to every word once at its
// absolute time.
func TestStitchMinutePieces(t *testing.T) {
	const total, frame = 3600.0, 0.036
	quiet := speechSilences(total)
	var words []Word
	for at := 0.0; at+5.58 <= total; at += 6.3 {
		words = append(words, Word{at, at + 5.58, "բառ"})
	}
	plan := PlanPieces(total, PieceSizing{MaxSeconds: 600, Seconds: 60, Slots: 4}, quiet)
	var chunks []ChunkResult
	for k, p := range plan {
		offset := p.Start
		if k > 0 {
			offset -= frame
		}
		var rec Recognition
		for _, w := range words {
			// The engine hears what the piece's audio holds, warm-up included.
			if w.End > offset && w.Start < p.End {
				rec.Words = append(rec.Words, Word{w.Start - offset, w.End - offset, w.Word})
				rec.Segments = append(rec.Segments, Segment{Start: w.Start - offset, End: w.End - offset, Text: w.Word})
			}
		}
		chunks = append(chunks, ChunkResult{Offset: offset, From: p.Start, End: p.End, Rec: rec})
	}
	got := Stitch(chunks)
	if len(got.Words) != len(words) || len(got.Segments) != len(words) {
		t.Fatalf("%d words, %d segments after stitching %d pieces; the recording has %d", len(got.Words), len(got.Segments), len(plan), len(words))
	}
	for i, w := range got.Words {
		if math.Abs(w.Start-words[i].Start) > 1e-6 || math.Abs(w.End-words[i].End) > 1e-6 {
			t.Fatalf("word %d at %.3f–%.3f, want %.3f–%.3f", i, w.Start, w.End, words[i].Start, words[i].End)
		}
	}
}
