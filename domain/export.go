package domain

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ExportFormat is a format of GET /api/exportTranscription.
type ExportFormat string

// The export formats (docs/decisions.md, Integrators' kit).
const (
	ExportSRT  ExportFormat = "srt"
	ExportVTT  ExportFormat = "vtt"
	ExportTXT  ExportFormat = "txt"
	ExportJSON ExportFormat = "json"
)

// ExportFormats lists the formats in the order error messages name them.
var ExportFormats = []ExportFormat{ExportSRT, ExportVTT, ExportTXT, ExportJSON}

// ParseExportFormat reads the format query parameter.
func ParseExportFormat(s string) (ExportFormat, error) {
	for _, f := range ExportFormats {
		if string(f) == s {
			return f, nil
		}
	}
	if s == "" {
		return "", Invalid("missing_format", "the format query parameter is required: one of srt, vtt, txt, json")
	}
	return "", Invalid("invalid_format", "format must be one of srt, vtt, txt, json; got %q", clipText(s, 20))
}

// ContentType is the media type an export is served with.
func (f ExportFormat) ContentType() string {
	switch f {
	case ExportSRT:
		return "application/x-subrip; charset=utf-8"
	case ExportVTT:
		return "text/vtt; charset=utf-8"
	case ExportJSON:
		return "application/json; charset=utf-8"
	}
	return "text/plain; charset=utf-8"
}

// Limits of one subtitle cue: what a viewer reads comfortably in two lines.
const (
	CueMaxSeconds = 7.0
	CueMaxChars   = 84
	cueLineChars  = 42
)

// Cue is one subtitle: a stretch of speech with its speaker ("Խոսնակ 1", or
// "" for single_voice).
type Cue struct {
	Start, End float64
	Speaker    string
	Text       string
}

// Export renders a transcribed job in format f.
func Export(j Job, f ExportFormat) ([]byte, error) {
	if j.Status != StatusTranscribed {
		return nil, fmt.Errorf("job %s is %s; exports are available once it is transcribed: %w", j.ID, j.Status, ErrConflict)
	}
	switch f {
	case ExportSRT:
		return []byte(SRT(Cues(j))), nil
	case ExportVTT:
		return []byte(VTT(Cues(j))), nil
	case ExportJSON:
		return exportJSON(j)
	}
	return []byte(j.Transcription + "\n"), nil
}

// speakerName is a segment's speaker as exports write it.
func speakerName(j Job, s Segment) string {
	if j.Type != TypePhoneCall || s.Speaker == "" {
		return ""
	}
	return SpeakerLabel + " " + s.Speaker
}

// exportSegments are the job's segments, or one segment spanning the whole
// recording when the engine gave none.
func exportSegments(j Job) []Segment {
	if len(j.Segments) > 0 {
		return j.Segments
	}
	end := 0.0
	if d := j.Duration(); d != nil {
		end = *d
	}
	return []Segment{{Start: 0, End: end, Text: j.Transcription}}
}

// Cues cuts the job's segments into subtitles of at most CueMaxSeconds and
// CueMaxChars each, breaking between words. A segment's time is shared
// among its words by their length, the best estimate without word times.
func Cues(j Job) []Cue {
	var out []Cue
	for _, s := range exportSegments(j) {
		words := strings.Fields(s.Text)
		if len(words) == 0 {
			continue
		}
		speaker := speakerName(j, s)
		span := math.Max(s.End-s.Start, 0)
		total := wordChars(words)
		at := func(chars int) float64 { return s.Start + span*float64(chars)/float64(total) }
		var cur []string
		curChars, startChars, done := 0, 0, 0
		flush := func() {
			if len(cur) == 0 {
				return
			}
			out = append(out, Cue{Start: round3(at(startChars)), End: round3(at(done - 1)), Speaker: speaker, Text: strings.Join(cur, " ")})
			cur, curChars, startChars = nil, 0, done
		}
		for _, w := range words {
			n := utf8.RuneCountInString(w)
			longer := curChars + n
			if len(cur) > 0 {
				longer++
			}
			if len(cur) > 0 && (longer > CueMaxChars || at(done+n)-at(startChars) > CueMaxSeconds) {
				flush()
				longer = n
			}
			cur, curChars, done = append(cur, w), longer, done+n+1
		}
		flush()
	}
	return out
}

// wordChars is the length of words joined by single spaces, in characters:
// the scale on which a segment's time is shared among its words.
func wordChars(words []string) int {
	n := len(words) - 1
	for _, w := range words {
		n += utf8.RuneCountInString(w)
	}
	return max(n, 1)
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// SRT writes cues as SubRip: numbered cues, comma milliseconds, the
// speaker's label before the text.
func SRT(cues []Cue) string {
	var b strings.Builder
	for i, c := range cues {
		text := c.Text
		if c.Speaker != "" {
			text = c.Speaker + ": " + text
		}
		fmt.Fprintf(&b, "%d\n%s --> %s\n%s\n\n", i+1, cueTime(c.Start, ','), cueTime(c.End, ','), wrapCue(text))
	}
	return b.String()
}

// VTT writes cues as WebVTT, the speaker as a voice tag (<v Խոսնակ 1>).
func VTT(cues []Cue) string {
	var b strings.Builder
	b.WriteString("WEBVTT\n\n")
	for i, c := range cues {
		text := vttEscape(c.Text)
		if c.Speaker != "" {
			text = "<v " + c.Speaker + ">" + text
		}
		fmt.Fprintf(&b, "%d\n%s --> %s\n%s\n\n", i+1, cueTime(c.Start, '.'), cueTime(c.End, '.'), wrapCue(text))
	}
	return b.String()
}

// vttEscaper keeps recognised text from being read as cue markup.
var vttEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func vttEscape(s string) string { return vttEscaper.Replace(s) }

// wrapCue breaks a text longer than one line at the space nearest its middle.
func wrapCue(s string) string {
	if utf8.RuneCountInString(s) <= cueLineChars {
		return s
	}
	mid, best := len(s)/2, -1
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' && (best < 0 || absInt(i-mid) < absInt(best-mid)) {
			best = i
		}
	}
	if best < 0 {
		return s
	}
	return s[:best] + "\n" + s[best+1:]
}

func absInt(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// cueTime writes seconds as hh:mm:ss,mmm (sep ',' for SRT, '.' for VTT).
func cueTime(sec float64, sep byte) string {
	ms := int64(math.Round(math.Max(sec, 0) * 1000))
	return fmt.Sprintf("%02d:%02d:%02d%c%03d", ms/3600000, ms/60000%60, ms/1000%60, sep, ms%1000)
}

func exportJSON(j Job) ([]byte, error) {
	meta := j.Metadata
	if len(meta) == 0 {
		meta = json.RawMessage(`{}`)
	}
	doc := ExportDocument{
		DocID: j.ID, Type: j.Type, LanguageCode: j.LanguageCode, Duration: j.Duration(), Title: j.Title,
		Resolution: j.Resolution, Transcription: j.Transcription, Metadata: meta,
		Segments: []ExportSegment{}, Words: []ExportWord{},
	}
	for _, s := range exportSegments(j) {
		text := strings.TrimSpace(s.Text)
		if text == "" {
			continue
		}
		var speaker *string
		if name := speakerName(j, s); name != "" {
			speaker = &name
		}
		doc.Segments = append(doc.Segments, ExportSegment{Start: round3(s.Start), End: round3(s.End), Speaker: speaker, Text: text})
		words := strings.Fields(text)
		total := wordChars(words)
		span, done := math.Max(s.End-s.Start, 0), 0
		for _, w := range words {
			n := utf8.RuneCountInString(w)
			start := s.Start + span*float64(done)/float64(total)
			end := s.Start + span*float64(done+n)/float64(total)
			doc.Words = append(doc.Words, ExportWord{Start: round3(start), End: round3(end), Speaker: speaker, Word: w})
			done += n + 1
		}
	}
	return json.Marshal(doc)
}

// ExportFilename is the download's file name: the docId and the format.
func ExportFilename(id DocID, f ExportFormat) string {
	return strconv.Quote(string(id) + "." + string(f))
}

func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
