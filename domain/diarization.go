package domain

import (
	"math"
	"sort"
	"strings"
)

// Turn is a stretch of time in which one speaker talks, as a diarizer finds
// it. Speaker is an opaque key ("A", "B"); FormatPhoneCall numbers speakers
// by first appearance whatever their keys.
type Turn struct {
	Start   float64 `json:"start"`
	End     float64 `json:"end"`
	Speaker string  `json:"speaker"`
}

// Span is a stretch of time in seconds.
type Span struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// Seconds is the span's length.
func (s Span) Seconds() float64 { return s.End - s.Start }

// AssignSpeakers gives recognised speech the speakers of a diarization. With
// word timestamps every word goes whole to the turn it overlaps most (the
// nearest turn when it overlaps none), so no word is ever split; a change
// of speaker that falls mid-phrase moves to a pause between words nearby
// (SettleChanges); consecutive words of one speaker become one segment, so
// a segment the engine ran across a change of speaker is split there.
// Without words whole segments are assigned the same way. Segments
// and turns need not be sorted; the result is in time order. With no turns
// every segment is left to the first speaker.
func AssignSpeakers(segs []Segment, words []Word, turns []Turn) []Segment {
	turns = append([]Turn(nil), turns...)
	sort.SliceStable(turns, func(i, j int) bool { return turns[i].Start < turns[j].Start })
	if len(words) > 0 {
		words = append([]Word(nil), words...)
		sort.SliceStable(words, func(i, j int) bool { return words[i].Start < words[j].Start })
		kept := words[:0]
		for _, w := range words {
			if strings.TrimSpace(w.Word) != "" {
				kept = append(kept, w)
			}
		}
		words = kept
		speakers := make([]string, len(words))
		for i, w := range words {
			speakers[i] = speakerAt(turns, w.Start, w.End)
		}
		SettleChanges(words, speakers)
		var out []Segment
		for i, w := range words {
			text := strings.TrimSpace(w.Word)
			sp := speakers[i]
			if n := len(out); n > 0 && out[n-1].Speaker == sp {
				out[n-1].Text += " " + text
				out[n-1].End = max(out[n-1].End, w.End)
				continue
			}
			out = append(out, Segment{Start: w.Start, End: w.End, Text: text, Speaker: sp})
		}
		return out
	}
	out := make([]Segment, 0, len(segs))
	for _, s := range segs {
		s.Speaker = speakerAt(turns, s.Start, s.End)
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// A gap between words of at least WordPause seconds is a pause; a change
// of speaker between words closer than that (mid-phrase, as far as the
// engine's times tell) moves at most WordShift seconds to reach one.
const (
	WordPause = 0.05
	WordShift = 1.0
)

// SettleChanges moves changes of speaker that fall mid-phrase to pauses
// (speakers[i] is words[i]'s, words in time order): speakers change where
// people stop talking, while a diarizer's change point is only as sharp as
// its frames. A change between words less than WordPause apart moves to the
// widest gap of at least WordPause between words within WordShift seconds
// of it (the nearer of equal ones), inside the two runs of words it
// separates and leaving each at least one word; with no such gap it stays.
// A change that already lies in a pause, however short, stays: the pause
// between two turns is often shorter than one inside a turn (after a
// comma), so the widest pause is no better a guess than the diarizer's. A
// one-word turn of its own (a back-channel between pauses) is kept.
func SettleChanges(words []Word, speakers []string) {
	for i := 1; i < len(words); i++ {
		if speakers[i] == speakers[i-1] || words[i].Start-words[i-1].End >= WordPause {
			continue
		}
		lo := i - 1
		for lo > 0 && speakers[lo-1] == speakers[i-1] {
			lo--
		}
		hi := i + 1
		for hi < len(words) && speakers[hi] == speakers[i] {
			hi++
		}
		at := (words[i-1].End + words[i].Start) / 2
		best, bestGap, bestDist := -1, 0.0, 0.0
		for j := lo + 1; j < hi; j++ {
			gap := words[j].Start - words[j-1].End
			dist := math.Abs((words[j].Start+words[j-1].End)/2 - at)
			if gap < WordPause || dist > WordShift {
				continue
			}
			if best < 0 || gap > bestGap || (gap == bestGap && dist < bestDist) {
				best, bestGap, bestDist = j, gap, dist
			}
		}
		switch {
		case best < 0:
		case best < i:
			for k := best; k < i; k++ {
				speakers[k] = speakers[i]
			}
		default:
			for k := i; k < best; k++ {
				speakers[k] = speakers[i-1]
			}
			i = best
		}
	}
}

// speakerAt is the speaker of the turn overlapping [start, end] most, or of
// the nearest turn; "A" when there are no turns.
func speakerAt(turns []Turn, start, end float64) string {
	if len(turns) == 0 {
		return "A"
	}
	best, bestOverlap, bestDist := "", 0.0, -1.0
	for _, t := range turns {
		if overlap := min(end, t.End) - max(start, t.Start); overlap > bestOverlap {
			best, bestOverlap = t.Speaker, overlap
		}
		if bestOverlap > 0 {
			continue
		}
		if dist := max(t.Start-end, start-t.End, 0); bestDist < 0 || dist < bestDist {
			best, bestDist = t.Speaker, dist
		}
	}
	return best
}

// ChunkResult is the recognition of one piece of a recording whose audio
// starts Offset seconds into the recording (times in Rec are relative to
// it). The piece's own part is From to End: it may begin with a little audio
// of the previous piece (a decoder's warm-up, in a silence).
type ChunkResult struct {
	Offset, From, End float64
	Rec               Recognition
}

// Stitch joins the recognitions of consecutive pieces of one recording into
// one with absolute times; the text is each piece's engine text (its
// punctuation and word boundaries kept). A word or segment whose middle lies before its
// piece's From belongs to the previous piece and is left out, so nothing is
// doubled at a seam; one an engine places past its piece's end (timestamps
// drifting over the end of the audio) is clamped to the piece, never
// dropped. Times never go below 0. Chunks must be in order.
func Stitch(chunks []ChunkResult) Recognition {
	var out Recognition
	var texts []string
	for k, c := range chunks {
		abs := func(v float64) float64 {
			v = c.Offset + v
			if c.End > c.From {
				v = min(v, c.End)
			}
			return max(v, 0)
		}
		mine := func(start, end float64) bool {
			return k == 0 || (c.Offset+start+c.Offset+end)/2 >= c.From
		}
		var kept []string
		dropped := false
		for _, s := range c.Rec.Segments {
			if !mine(s.Start, s.End) {
				dropped = true
				continue
			}
			s.Start, s.End = abs(s.Start), abs(s.End)
			out.Segments = append(out.Segments, s)
			kept = append(kept, strings.TrimSpace(s.Text))
		}
		for _, w := range c.Rec.Words {
			if !mine(w.Start, w.End) {
				continue
			}
			w.Start, w.End = abs(w.Start), abs(w.End)
			out.Words = append(out.Words, w)
		}
		// The engine's own text, unless a segment of it belongs to the
		// previous piece (then its kept segments' texts).
		text := strings.TrimSpace(c.Rec.Text)
		if dropped || text == "" {
			text = strings.TrimSpace(strings.Join(kept, " "))
		}
		if text != "" {
			texts = append(texts, text)
		}
		if out.Language == "" {
			out.Language = c.Rec.Language
		}
		out.NoTimestamps = out.NoTimestamps || c.Rec.NoTimestamps
		out.Duration = max(out.Duration, c.End)
	}
	out.Text = strings.Join(texts, " ")
	return out
}

// PlanChunks cuts a recording of total seconds into consecutive pieces of at
// most maxSeconds each, cutting in silences so that no word is cut in two:
// each cut is at the middle of the longest silence in the second half of
// the piece, or at maxSeconds when that half holds no silence. silences
// must be in time order. maxSeconds ≤ 0 gives one piece.
func PlanChunks(total, maxSeconds float64, silences []Span) []Span {
	if maxSeconds <= 0 || total <= maxSeconds {
		return []Span{{0, total}}
	}
	var out []Span
	start, i := 0.0, 0
	for total-start > maxSeconds {
		lo, hi := start+maxSeconds/2, start+maxSeconds
		cut, longest := hi, -1.0
		for ; i < len(silences) && silences[i].Start < hi; i++ {
			s := silences[i]
			mid := (s.Start + s.End) / 2
			if mid <= lo || mid > hi {
				continue
			}
			// The part of the silence inside the window is what counts.
			if l := min(s.End, hi) - max(s.Start, lo); l > longest {
				cut, longest = mid, l
			}
		}
		// A silence reaching past hi may hold the next cut too.
		if i > 0 && silences[i-1].End > hi {
			i--
		}
		out = append(out, Span{start, cut})
		start = cut
	}
	return append(out, Span{start, total})
}

// AssignSpeakersToText is AssignSpeakers for an engine's text and its
// words' times: every word of the text, punctuation and word boundaries as
// the engine wrote them, goes to its speaker (AlignWords puts the text on
// the words' times), so "։" and commas survive speaker labelling.
func AssignSpeakersToText(text string, words []Word, turns []Turn) []Segment {
	return AssignSpeakers(nil, AlignWords(text, words), turns)
}
