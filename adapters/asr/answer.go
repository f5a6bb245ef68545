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
// differ in the extras (a speaker per segment, words nested in segments,
// numbers sent as strings) and a plain {"text": …} answer is one too.
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
func parse(body []byte, contentType string) (domain.Recognition, error) {
	trimmed := bytes.TrimSpace(body)
	if !bytes.HasPrefix(trimmed, []byte("{")) {
		if mt, _, _ := mime.ParseMediaType(contentType); mt == "text/plain" {
			text := strings.TrimSpace(string(trimmed))
			return fromAnswer(answer{Text: &text}), nil
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
	return fromAnswer(a), nil
}

func unreadable(err error, body []byte) error {
	return fmt.Errorf("speech engine returned an unreadable answer (%v): %q", err, retryhttp.Snippet(body, retryhttp.SnippetBytes))
}

func fromAnswer(a answer) domain.Recognition {
	rec := domain.Recognition{Language: strings.TrimSpace(a.Language), Duration: max(float64(a.Duration), 0)}
	var nested []answerWord
	for _, s := range a.Segments {
		nested = append(nested, s.Words...)
		text := strings.TrimSpace(s.Text)
		if text == "" {
			continue
		}
		start := max(float64(s.Start), 0)
		rec.Segments = append(rec.Segments, domain.Segment{
			Start:   start,
			End:     max(float64(s.End), start),
			Text:    text,
			Speaker: strings.TrimSpace(string(s.Speaker)),
		})
	}
	words := a.Words
	if len(words) == 0 {
		words = nested
	}
	for _, w := range words {
		word := strings.TrimSpace(w.Word)
		if word == "" {
			continue
		}
		start := max(float64(w.Start), 0)
		rec.Words = append(rec.Words, domain.Word{Start: start, End: max(float64(w.End), start), Word: word})
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
	if a.Text != nil {
		rec.Text = strings.TrimSpace(*a.Text)
	} else {
		rec.Text = domain.PlainText(rec.Segments)
	}
	if len(rec.Segments) == 0 && rec.Text != "" {
		// A plain answer: all of it is one segment over the whole audio.
		rec.Segments = []domain.Segment{{Start: 0, End: rec.Duration, Text: rec.Text}}
	}
	return rec
}
