package domain

import (
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Segment is a stretch of recognised speech with absolute times in seconds.
// Speaker is empty for single_voice and "1" or "2" for phone_call.
type Segment struct {
	Start   float64 `json:"start"`
	End     float64 `json:"end"`
	Text    string  `json:"text"`
	Speaker string  `json:"speaker,omitempty"`
	// Channel is the stereo channel a phone call's segment was heard on
	// ("left" or "right"); empty for a mono recording.
	Channel string `json:"channel,omitempty"`
}

// Word is one recognised word with its times.
type Word struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Word  string  `json:"word"`
}

// Recognition is what a speech engine returns for one piece of audio.
// Text is the engine's own text, punctuation and word boundaries as it
// wrote them; Segments and Words carry the times it gave. An engine that
// gave no times at all (text only) sets NoTimestamps; its Segments are
// then one segment over the whole piece.
type Recognition struct {
	Text         string
	Language     string
	Duration     float64
	Segments     []Segment
	Words        []Word
	NoTimestamps bool
}

// SpeakerLabel is the spec's inline label word ("Խոսնակ 1:").
const SpeakerLabel = "Խոսնակ"

// PlainText joins segments into single_voice text: one paragraph, no labels.
func PlainText(segs []Segment) string {
	parts := make([]string, 0, len(segs))
	for _, s := range segs {
		if t := strings.TrimSpace(s.Text); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " ")
}

// MergeChannels interleaves two speakers' segments by start time (a stereo
// call: one speaker per channel, a the left, b the right), tagging them
// with the given speaker keys and their channel.
func MergeChannels(a, b []Segment, speakerA, speakerB string) []Segment {
	out := make([]Segment, 0, len(a)+len(b))
	for _, s := range a {
		s.Speaker, s.Channel = speakerA, ChannelLeft
		out = append(out, s)
	}
	for _, s := range b {
		s.Speaker, s.Channel = speakerB, ChannelRight
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// FormatPhoneCall writes diarized text: one line per speaker turn, "Խոսնակ 1: …"
// / "Խոսնակ 2: …", speakers numbered by first appearance, consecutive segments of
// one speaker joined into one turn. Segments must be in time order. At most two
// labels are ever written: a third speaker key is folded into speaker 2.
func FormatPhoneCall(segs []Segment) string {
	numbers := map[string]int{}
	var lines []string
	last := 0
	for _, s := range segs {
		text := strings.TrimSpace(s.Text)
		if text == "" {
			continue
		}
		n, ok := numbers[s.Speaker]
		if !ok {
			n = len(numbers) + 1
			if n > 2 {
				n = 2
			}
			numbers[s.Speaker] = n
		}
		if n == last {
			lines[len(lines)-1] += " " + text
			continue
		}
		lines = append(lines, SpeakerLabel+" "+strconv.Itoa(n)+": "+text)
		last = n
	}
	return strings.Join(lines, "\n")
}

// NumberSpeakers rewrites segment speakers to "1"/"2" by first appearance,
// as FormatPhoneCall numbers them.
func NumberSpeakers(segs []Segment) []Segment {
	numbers := map[string]int{}
	out := make([]Segment, len(segs))
	for i, s := range segs {
		n, ok := numbers[s.Speaker]
		if !ok && strings.TrimSpace(s.Text) != "" {
			n = min(len(numbers)+1, 2)
			numbers[s.Speaker] = n
		}
		if n == 0 {
			n = 1
		}
		s.Speaker = strconv.Itoa(n)
		out[i] = s
	}
	return out
}

// AlignWords gives the engine's text its words' times: it returns the
// text's own words (split at white space, punctuation kept as the engine
// wrote it) each with the times of the timed words it matches. Engines'
// word lists drop punctuation (OpenAI's whisper-1), attach it differently
// or cut words in pieces (whisper.cpp's tokens); letters and digits decide
// the match, case aside. Where text and words differ (an engine whose words
// were decoded apart from its text), they are matched word by word with a
// short look-ahead, and a word of the text that matches none takes the time
// where it falls between its neighbours. With no text the words are
// returned as they are; with no words, none.
func AlignWords(text string, words []Word) []Word {
	tokens := strings.Fields(text)
	if len(tokens) == 0 || len(words) == 0 {
		return words
	}
	words = append([]Word(nil), words...)
	sort.SliceStable(words, func(i, j int) bool { return words[i].Start < words[j].Start })
	out := make([]Word, len(tokens))
	timed := make([]bool, len(tokens))
	if !alignChars(tokens, words, out, timed) {
		clear(out)
		clear(timed)
		alignTokens(tokens, words, out, timed)
	}
	// Words of the text matched by nothing (punctuation of its own, a word
	// the engine's list lacks) sit where they fall.
	last := -1
	for i := range out {
		out[i].Word = tokens[i]
		if timed[i] {
			last = i
			continue
		}
		switch {
		case last >= 0:
			out[i].Start, out[i].End = out[last].End, out[last].End
		default:
			next := i + 1
			for next < len(out) && !timed[next] {
				next++
			}
			if next < len(out) {
				out[i].Start, out[i].End = out[next].Start, out[next].Start
			}
		}
	}
	return out
}

// normWord is a word's letters and digits, lower case: what alignment compares.
func normWord(s string) []rune {
	var out []rune
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			out = append(out, unicode.ToLower(r))
		}
	}
	return out
}

// alignChars matches text and words letter by letter, when they spell the
// same letters: a token takes the span of every word its letters are in.
func alignChars(tokens []string, words []Word, out []Word, timed []bool) bool {
	var owner []int // text letter → token
	var letters []rune
	for i, t := range tokens {
		for _, r := range normWord(t) {
			letters = append(letters, r)
			owner = append(owner, i)
		}
	}
	k := 0
	for wi, w := range words {
		for _, r := range normWord(w.Word) {
			if k >= len(letters) || letters[k] != r {
				return false
			}
			ti := owner[k]
			if !timed[ti] {
				out[ti].Start, out[ti].End, timed[ti] = words[wi].Start, words[wi].End, true
			} else {
				out[ti].Start, out[ti].End = min(out[ti].Start, words[wi].Start), max(out[ti].End, words[wi].End)
			}
			k++
		}
	}
	return k == len(letters)
}

// alignTokens matches text and words one word to one word, looking a few
// words ahead on either side to get past a word one of them lacks.
func alignTokens(tokens []string, words []Word, out []Word, timed []bool) {
	const ahead = 8
	norm := func(s string) string { return string(normWord(s)) }
	i, j := 0, 0
	for i < len(tokens) && j < len(words) {
		a, b := norm(tokens[i]), norm(words[j].Word)
		if a == "" { // punctuation alone: placed afterwards
			i++
			continue
		}
		if b == "" {
			j++
			continue
		}
		if a == b {
			out[i].Start, out[i].End, timed[i] = words[j].Start, words[j].End, true
			i, j = i+1, j+1
			continue
		}
		// The nearest resynchronisation: skip da tokens and db words.
		best, bi, bj := -1, 0, 0
		for d := 1; d <= 2*ahead && best < 0; d++ {
			for da := 0; da <= d; da++ {
				db := d - da
				if da > ahead || db > ahead || i+da >= len(tokens) || j+db >= len(words) {
					continue
				}
				if norm(tokens[i+da]) != "" && norm(tokens[i+da]) == norm(words[j+db].Word) {
					best, bi, bj = d, i+da, j+db
					break
				}
			}
		}
		if best < 0 { // a word the engine heard differently: take its time
			out[i].Start, out[i].End, timed[i] = words[j].Start, words[j].End, true
			i, j = i+1, j+1
			continue
		}
		i, j = bi, bj
	}
}

// Phrases groups the engine's text, aligned to its words (AlignWords), into
// segments of one speaker that break wherever the speech pauses for at
// least pause seconds: a stereo channel's speech as turns that interleave
// with the other channel's, where the engine's own segments (up to 30 s
// of voice-activity chunks) would not.
func Phrases(text string, words []Word, pause float64) []Segment {
	var out []Segment
	for _, w := range AlignWords(text, words) {
		t := strings.TrimSpace(w.Word)
		if t == "" {
			continue
		}
		if n := len(out); n > 0 && w.Start-out[n-1].End < pause {
			out[n-1].Text += " " + t
			out[n-1].End = max(out[n-1].End, w.End)
			continue
		}
		out = append(out, Segment{Start: w.Start, End: w.End, Text: t})
	}
	return out
}
