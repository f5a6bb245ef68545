package asr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime"
	"sort"
	"strconv"
	"strings"

	"github.com/hyscribe/hyscribe/adapters/internal/retryhttp"
	"github.com/hyscribe/hyscribe/domain"
)

// answer is verbose_json as OpenAI documents it, read leniently: engines
// differ in the extras (a speaker per segment in diarized_json, words
// nested in segments as whisper.cpp sends them, vLLM's duration as a
// string, speaches' "words": null) and a plain {"text": …} answer is one
// too.
type answer struct {
	Text     *string         `json:"text"`
	Language string          `json:"language"`
	Duration flexFloat       `json:"duration"`
	Segments []answerSegment `json:"segments"`
	Words    []answerWord    `json:"words"`
}

type answerSegment struct {
	Start   flexFloat    `json:"start"`
	End     flexFloat    `json:"end"`
	Text    string       `json:"text"`
	Speaker flexString   `json:"speaker"`
	Words   []answerWord `json:"words"`
}

type answerWord struct {
	Start flexFloat `json:"start"`
	End   flexFloat `json:"end"`
	Word  string    `json:"word"`
	// TDTW is whisper.cpp's: its "words" are tokens, pieces of words.
	TDTW *float64 `json:"t_dtw"`
}

// flexFloat is a JSON number, a number in a string, or null.
type flexFloat float64

func (f *flexFloat) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	if s == "null" {
		return nil
	}
	if uq, err := strconv.Unquote(s); err == nil {
		s = strings.TrimSpace(uq)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%s is not a number of seconds", b)
	}
	*f = flexFloat(v)
	return nil
}

// flexString is a JSON string, a number (speaker 0, 1) or null.
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*f = flexString(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err == nil {
		*f = flexString(n.String())
		return nil
	}
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	return fmt.Errorf("speaker %s is neither a string nor a number", b)
}

// parse turns the engine's 2xx body into a Recognition.
func parse(body []byte, contentType string, p profile) (domain.Recognition, error) {
	trimmed := bytes.TrimSpace(body)
	if !bytes.HasPrefix(trimmed, []byte("{")) {
		if mt, _, _ := mime.ParseMediaType(contentType); mt == "text/plain" || mt == "text/html" {
			text := strings.TrimSpace(string(trimmed))
			return fromAnswer(answer{Text: &text}, p), nil
		}
		return domain.Recognition{}, unreadable(errors.New("not JSON"), body)
	}
	var a answer
	if err := json.Unmarshal(trimmed, &a); err != nil {
		return domain.Recognition{}, unreadable(err, body)
	}
	if a.Text == nil && a.Segments == nil {
		return domain.Recognition{}, unreadable(errors.New("no text and no segments"), body)
	}
	return fromAnswer(a, p), nil
}

func unreadable(err error, body []byte) error {
	return fmt.Errorf("speech engine returned an unreadable answer (%v): %q", err, retryhttp.Snippet(body, retryhttp.SnippetBytes))
}

func fromAnswer(a answer, p profile) domain.Recognition {
	rec := domain.Recognition{Language: strings.TrimSpace(a.Language), Duration: max(float64(a.Duration), 0)}
	var nested []answerWord
	tokens := p.tokens
	timed := false
	var raw []string // the segments' texts as the engine wrote them
	for _, s := range a.Segments {
		nested = append(nested, s.Words...)
		for _, w := range s.Words {
			tokens = tokens || w.TDTW != nil
		}
		raw = append(raw, s.Text)
		text := strings.TrimSpace(s.Text)
		if text == "" {
			continue
		}
		start := max(float64(s.Start), 0)
		end := max(float64(s.End), start)
		timed = timed || end > 0
		rec.Segments = append(rec.Segments, domain.Segment{
			Start:   start,
			End:     end,
			Text:    text,
			Speaker: strings.TrimSpace(string(s.Speaker)),
		})
	}
	words := a.Words
	if len(words) == 0 {
		words = nested
	}
	if tokens {
		words = mergeTokens(words)
	}
	for _, w := range words {
		word := strings.TrimSpace(w.Word)
		if word == "" {
			continue
		}
		start := max(float64(w.Start), 0)
		end := max(float64(w.End), start)
		if end == 0 {
			continue // a word without times says nothing a segment does not
		}
		rec.Words = append(rec.Words, domain.Word{Start: start, End: end, Word: word})
	}
	sort.SliceStable(rec.Segments, func(i, j int) bool { return rec.Segments[i].Start < rec.Segments[j].Start })
	sort.SliceStable(rec.Words, func(i, j int) bool { return rec.Words[i].Start < rec.Words[j].Start })

	if rec.Duration == 0 {
		for _, s := range rec.Segments {
			rec.Duration = max(rec.Duration, s.End)
		}
		for _, w := range rec.Words {
			rec.Duration = max(rec.Duration, w.End)
		}
	}
	switch {
	case (p.joinRaw || tokens) && len(raw) > 0:
		// whisper.cpp's text is its segments joined by newlines, and a
		// segment it wrapped may end mid-word: its segments' texts run
		// together (each word starts with its space) are the text.
		rec.Text = strings.TrimSpace(strings.Join(raw, ""))
	case a.Text != nil:
		rec.Text = strings.TrimSpace(*a.Text)
	default:
		rec.Text = joinSegments(raw)
	}
	if !timed && len(rec.Words) == 0 {
		rec.NoTimestamps = rec.Text != ""
		// A text-only answer: all of it is one segment over the whole audio.
		rec.Segments = nil
		if rec.Text != "" {
			rec.Segments = []domain.Segment{{Start: 0, End: rec.Duration, Text: rec.Text}}
		}
	}
	return rec
}

// joinSegments is the text of segments given without one: run together
// when they start with their own space (Whisper's way, which keeps a word
// split between segments whole), else joined by spaces.
func joinSegments(raw []string) string {
	spaced := 0
	for i, t := range raw {
		if i > 0 && t != "" && (t[0] == ' ' || t[0] == '\n') {
			spaced++
		}
	}
	if len(raw) > 1 && spaced == len(raw)-1 {
		return strings.TrimSpace(strings.Join(raw, ""))
	}
	parts := make([]string, 0, len(raw))
	for _, t := range raw {
		if t = strings.TrimSpace(t); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " ")
}

// mergeTokens joins whisper.cpp's token pieces into words: a piece that
// starts with a space starts a word, any other continues the word before
// (across segments too: a segment wrapped mid-word continues it). A word
// spans its pieces' times.
func mergeTokens(pieces []answerWord) []answerWord {
	var out []answerWord
	for _, p := range pieces {
		if p.Word == "" {
			continue
		}
		starts := p.Word[0] == ' ' || p.Word[0] == '\n' || p.Word[0] == '\t'
		if n := len(out); n > 0 && !starts {
			out[n-1].Word += p.Word
			out[n-1].End = max(out[n-1].End, p.End)
			continue
		}
		out = append(out, answerWord{Start: p.Start, End: p.End, Word: p.Word})
	}
	return out
}
