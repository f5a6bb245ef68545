package domain

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Search folding. A search and the text it looks in are both folded, so
// that a person finds a word however it was written: in any case, and in
// either Armenian spelling of "ev". The ligature և is written ԵՎ or ԵՒ in
// capitals, եւ in the classical spelling and often եվ in the middle of a
// word (Երեվան), so և, եւ and եվ all fold to եվ. The letter ւ follows ե
// only in that spelling (elsewhere it is the ու of ու), so the rule touches
// nothing else.
//
// FoldSearch is what stores compare: SearchText of a job contains
// FoldSearch(q) exactly when a search for q should find it.
func FoldSearch(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	var prev rune
	for _, r := range s {
		r, ev := foldRune(r, prev)
		if ev {
			b.WriteRune('ե')
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// foldRune folds one rune of a text after prev (the previous folded
// rune): its folded form, and ev when և was written, which folds to ե
// before it.
func foldRune(r, prev rune) (folded rune, ev bool) {
	r = unicode.ToLower(r)
	switch {
	case r == 'և':
		return 'վ', true
	case r == 'ւ' && prev == 'ե':
		return 'վ', false
	}
	return r, false
}

// foldedSpan returns the bytes of text whose folding holds the first
// occurrence of fq (folded and not empty) in FoldSearch(text): the start
// of the rune the match begins in and the end of the rune it ends in.
func foldedSpan(text, fq string) (start, end int, ok bool) {
	at := strings.Index(FoldSearch(text), fq)
	if at < 0 {
		return 0, 0, false
	}
	last := at + len(fq) - 1 // the match's last folded byte
	off := 0                 // folded bytes before the rune at i
	start = -1
	var prev rune
	for i, r := range text {
		end := i + utf8.RuneLen(r)
		if r == utf8.RuneError {
			end = i + 1
		}
		f, ev := foldRune(r, prev)
		n := utf8.RuneLen(f)
		if ev {
			n += utf8.RuneLen('ե')
		}
		if start < 0 && at < off+n {
			start = i
		}
		if last < off+n {
			return start, end, true
		}
		off += n
		prev = f
	}
	return 0, 0, false
}

// SearchText is the folded text a search of a job's history reads: the
// title, the transcription, the metadata's values a search is for
// (SearchMetadataValues: a CRM id such as B-77) and the uploaded file's
// name (ext115_2026-11-20_1312.mp3: call centres name recordings by
// extension, number and time), one per line. Metadata keys are left out:
// they are the same in every job of an integration and would match
// everything. The title comes first and the transcription second: the
// stores find a search's excerpt of the transcription by that order.
func SearchText(title, transcription string, metadata json.RawMessage, filename string) string {
	parts := []string{title, transcription}
	if vals := SearchMetadataValues(metadata); len(vals) > 0 {
		parts = append(parts, strings.Join(vals, "\n"))
	}
	if filename != "" {
		parts = append(parts, filename)
	}
	return FoldSearch(strings.Join(parts, "\n"))
}

// What of a job's metadata is searched. Metadata is the customer's (up to
// MaxMetadataBytes) and may hold anything; a search looks in it for what
// people type: CRM and order ids, phone numbers, a customer's name, all far
// shorter than MaxSearchValueBytes. Each value is a row of the stores'
// trigram index per three bytes, so 253 KiB of random values cost about a
// CPU-second of indexing on SQLite and stalled every account's writes
// meanwhile; bounded, a create indexes at most MaxSearchMetadataBytes of
// metadata (about 4,000 trigrams) whatever it sends.
const (
	// MaxSearchValueBytes is the longest value searched; longer ones
	// (notes, encoded blobs) are left out whole rather than cut into a
	// prefix nobody would type.
	MaxSearchValueBytes = 256
	// MaxSearchMetadataBytes is the most of a job's metadata values
	// searched, in key order, separators included: 16 values of the
	// longest kind, or some 200 ids.
	MaxSearchMetadataBytes = 4096
)

// SearchMetadataValues are the values of MetadataValues a search looks
// in: each at most MaxSearchValueBytes, taken in order while they fit in
// MaxSearchMetadataBytes with a separator each.
func SearchMetadataValues(metadata json.RawMessage) []string {
	var out []string
	total := 0
	for _, v := range MetadataValues(metadata) {
		if len(v) > MaxSearchValueBytes {
			continue
		}
		if total+len(v)+1 > MaxSearchMetadataBytes {
			break
		}
		total += len(v) + 1
		out = append(out, v)
	}
	return out
}

// MetadataValues lists the strings, numbers and booleans of a metadata
// object, nested ones included, ordered by key; invalid JSON has none.
func MetadataValues(metadata json.RawMessage) []string {
	if len(metadata) == 0 {
		return nil
	}
	var v any
	d := json.NewDecoder(strings.NewReader(string(metadata)))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case json.Number:
			out = append(out, x.String())
		case bool:
			out = append(out, strconv.FormatBool(x))
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k])
			}
		}
	}
	walk(v)
	return out
}

// Snippet is a piece of a text around a search's first match, split so the
// match can be highlighted.
type Snippet struct {
	Before, Match, After string
}

// SnippetRadius is how many characters a search result shows either side
// of the match in a transcript.
const SnippetRadius = 60

// SearchExcerpt is the shortest prefix of text from which FindSnippet(…, q,
// radius) reads the snippet it reads from the whole text: through the
// first match and radius+1 characters beyond it, or all of text; "" when
// text does not contain q. A store lists this instead of the transcript
// (ports.JobLister); any longer prefix does as well.
func SearchExcerpt(text, q string, radius int) string {
	fq := FoldSearch(strings.TrimSpace(q))
	if fq == "" {
		return ""
	}
	_, end, ok := foldedSpan(text, fq)
	if !ok {
		return ""
	}
	for n := 0; n <= radius && end < len(text); n++ {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
	}
	return text[:end]
}

// FindSnippet finds q in text as a search would (folded) and returns the
// match with up to about radius characters either side, cut at spaces and
// marked "…" where text goes on. ok is false when text does not contain q.
func FindSnippet(text, q string, radius int) (Snippet, bool) {
	fq := FoldSearch(strings.TrimSpace(q))
	if fq == "" {
		return Snippet{}, false
	}
	start, end, ok := foldedSpan(text, fq)
	if !ok {
		return Snippet{}, false
	}
	lo := cutBack(text, start, radius)
	hi := cutForward(text, end, radius)
	sn := Snippet{Before: text[lo:start], Match: text[start:end], After: text[end:hi]}
	if lo > 0 {
		sn.Before = "…" + strings.TrimLeft(sn.Before, " ")
	}
	if hi < len(text) {
		sn.After = strings.TrimRight(sn.After, " ") + "…"
	}
	return sn, true
}

// cutBack returns where a snippet starts: radius runes before i, moved
// forward to the next space so that no word is cut, and never past a line
// break.
func cutBack(s string, i, radius int) int {
	j := i
	for n := 0; j > 0 && n < radius; n++ {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		if r == '\n' {
			return j
		}
		j -= size
	}
	if j == 0 {
		return 0
	}
	if k := strings.IndexAny(s[j:i], " \n"); k >= 0 {
		return j + k + 1
	}
	return j
}

// cutForward is cutBack's mirror: where a snippet ends.
func cutForward(s string, i, radius int) int {
	j := i
	for n := 0; j < len(s) && n < radius; n++ {
		r, size := utf8.DecodeRuneInString(s[j:])
		if r == '\n' {
			return j
		}
		j += size
	}
	if j >= len(s) {
		return len(s)
	}
	if k := strings.LastIndexAny(s[i:j], " \n"); k >= 0 {
		return i + k
	}
	return j
}
