package domain

import (
	"sort"
	"strconv"
	"strings"
)

// Segment is a stretch of recognised speech with absolute times in seconds.
// Speaker is empty for single_voice and "1" or "2" for phone_call.
type Segment struct {
	Start   float64 `json:"start"`
	End     float64 `json:"end"`
	Text    string  `json:"text"`
	Speaker string  `json:"speaker,omitempty"`
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
// call: one speaker per channel), tagging them with the given speaker keys.
func MergeChannels(a, b []Segment, speakerA, speakerB string) []Segment {
	out := make([]Segment, 0, len(a)+len(b))
	for _, s := range a {
		s.Speaker = speakerA
		out = append(out, s)
	}
	for _, s := range b {
		s.Speaker = speakerB
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
