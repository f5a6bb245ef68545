package domain

import (
	"math"
	"sort"
)

// Utterances for engines that give text without times: the audio is cut
// at pauses into pieces of about one utterance, each sent on its own, so
// every piece's text has the time of its cut.
const (
	// UtteranceMaxSeconds is the longest piece; a stretch of speech longer
	// than that is cut into equal parts.
	UtteranceMaxSeconds = 30.0
	// UtteranceJoinGap joins stretches of one speaker less than this apart
	// into one piece (the voice-activity detector bridges shorter gaps
	// already; this spares a request for a breath).
	UtteranceJoinGap = 0.3
	// UtterancePad is the silence kept on either side of a piece, never
	// past the middle of the pause to the next.
	UtterancePad = 0.15
	// UtteranceMinSeconds is the shortest piece: a shorter bit of speech
	// that touches a neighbour joins it, and one alone is padded to it
	// where the silence around allows (engines refuse audio under 0.1 s).
	UtteranceMinSeconds = 0.5
)

// PlanUtterances cuts speech into utterance-sized pieces. speech is the
// stretches of speech of one channel (in any order); turns, when given,
// are a diarizer's turns of that channel: a stretch is split where the
// speaker changes and each piece takes its speaker (speech outside every
// turn takes the nearest). Without turns pieces have no speaker. Pieces
// are in time order, do not overlap, last at most maxSeconds
// (UtteranceMaxSeconds when ≤ 0) and never start before 0 or end after
// total (when total > 0).
func PlanUtterances(speech []Span, turns []Turn, maxSeconds, total float64) []Turn {
	if maxSeconds <= 0 {
		maxSeconds = UtteranceMaxSeconds
	}
	speech = append([]Span(nil), speech...)
	sort.SliceStable(speech, func(i, j int) bool { return speech[i].Start < speech[j].Start })
	turns = append([]Turn(nil), turns...)
	sort.SliceStable(turns, func(i, j int) bool { return turns[i].Start < turns[j].Start })

	// Stretches split at the turns' edges, each with its speaker.
	var parts []Turn
	for _, s := range speech {
		if s.End <= s.Start {
			continue
		}
		if len(turns) == 0 {
			parts = append(parts, Turn{Start: s.Start, End: s.End})
			continue
		}
		at := s.Start
		for _, t := range turns {
			if t.End <= at || t.Start >= s.End {
				continue
			}
			if t.Start > at { // speech before this turn: the nearest's
				parts = append(parts, Turn{Start: at, End: t.Start, Speaker: speakerAt(turns, at, t.Start)})
			}
			end := min(t.End, s.End)
			parts = append(parts, Turn{Start: max(t.Start, at), End: end, Speaker: t.Speaker})
			at = end
		}
		if at < s.End {
			parts = append(parts, Turn{Start: at, End: s.End, Speaker: speakerAt(turns, at, s.End)})
		}
	}
	// Short gaps of one speaker joined, within the longest piece.
	var joined []Turn
	for _, p := range parts {
		if p.End-p.Start < 0.01 {
			continue
		}
		if n := len(joined); n > 0 {
			last := &joined[n-1]
			if last.Speaker == p.Speaker && p.Start-last.End < UtteranceJoinGap && p.End-last.Start <= maxSeconds {
				last.End = max(last.End, p.End)
				continue
			}
		}
		joined = append(joined, p)
	}
	// Bits too short to send alone join the neighbour they touch.
	var merged []Turn
	for i := 0; i < len(joined); i++ {
		p := joined[i]
		if p.End-p.Start >= UtteranceMinSeconds {
			merged = append(merged, p)
			continue
		}
		prevGap, nextGap := math.Inf(1), math.Inf(1)
		if n := len(merged); n > 0 {
			prevGap = p.Start - merged[n-1].End
		}
		if i+1 < len(joined) {
			nextGap = joined[i+1].Start - p.End
		}
		switch {
		case prevGap < UtteranceJoinGap && prevGap <= nextGap:
			merged[len(merged)-1].End = p.End
		case nextGap < UtteranceJoinGap:
			joined[i+1].Start = p.Start
		default:
			merged = append(merged, p)
		}
	}
	joined = merged
	// Pieces too long cut into equal parts.
	var out []Turn
	for _, p := range joined {
		n := int((p.End - p.Start) / maxSeconds)
		if float64(n)*maxSeconds < p.End-p.Start {
			n++
		}
		step := (p.End - p.Start) / float64(n)
		for k := range n {
			out = append(out, Turn{Start: p.Start + float64(k)*step, End: p.Start + float64(k+1)*step, Speaker: p.Speaker})
		}
	}
	// A little silence either side, up to the middle of each pause.
	padded := make([]Turn, len(out))
	for i, p := range out {
		pad := max(UtterancePad, (UtteranceMinSeconds-(p.End-p.Start))/2)
		lo, hi := max(p.Start-pad, 0), p.End+pad
		if i > 0 {
			lo = max(lo, (out[i-1].End+p.Start)/2)
		}
		if i+1 < len(out) {
			hi = min(hi, (p.End+out[i+1].Start)/2)
		}
		if total > 0 {
			hi = min(hi, total)
		}
		padded[i] = Turn{Start: min(lo, p.Start), End: max(hi, p.End), Speaker: p.Speaker}
	}
	return padded
}
