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
	f, _, _ := fold(s)
	return f
}

// fold returns s folded, and for each byte of the result the start and the
// end of the rune of s it came from, so that a match in the folded text can
// be found again in s.
func fold(s string) (string, []int, []int) {
	var b strings.Builder
	b.Grow(len(s))
	from := make([]int, 0, len(s))
	to := make([]int, 0, len(s))
	emit := func(r rune, start, end int) {
		n := b.Len()
		b.WriteRune(r)
		for i := n; i < b.Len(); i++ {
			from, to = append(from, start), append(to, end)
		}
	}
	var prev rune
	for i, r := range s {
		end := i + utf8.RuneLen(r)
		if r == utf8.RuneError {
			end = i + 1
		}
		r = unicode.ToLower(r)
		switch {
		case r == 'և':
			emit('ե', i, end)
			r = 'վ'
		case r == 'ւ' && prev == 'ե':
			r = 'վ'
		}
		emit(r, i, end)
		prev = r
	}
	return b.String(), from, to
}

// SearchText is the folded text a search of a job's history reads: the
// title, the transcription and the metadata's values (a CRM id such as
// B-77), one per line. Metadata keys are left out: they are the same in
// every job of an integration and would match everything.
func SearchText(title, transcription string, metadata json.RawMessage) string {
	parts := []string{title, transcription}
	if vals := MetadataValues(metadata); len(vals) > 0 {
		parts = append(parts, strings.Join(vals, "\n"))
	}
	return FoldSearch(strings.Join(parts, "\n"))
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

// FindSnippet finds q in text as a search would (folded) and returns the
// match with up to about radius characters either side, cut at spaces and
// marked "…" where text goes on. ok is false when text does not contain q.
func FindSnippet(text, q string, radius int) (Snippet, bool) {
	fq := FoldSearch(strings.TrimSpace(q))
	if fq == "" {
		return Snippet{}, false
	}
	ft, from, to := fold(text)
	at := strings.Index(ft, fq)
	if at < 0 {
		return Snippet{}, false
	}
	start, end := from[at], to[at+len(fq)-1]
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
