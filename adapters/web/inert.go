package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Text a customer wrote (metadata, checklist names and questions) may carry
// characters that change how the text around them is displayed without being
// seen themselves: bidirectional overrides and isolates, which can make
// "exe.txt" read as "txt.exe", and zero-width characters, which make two
// different strings look the same. inert shows each of them as a visible
// code (⟨U+202E⟩) instead, so the page shows what is stored; the templates
// also put such text in a <bdi>, so what is left of its direction cannot
// leak into the page around it.
func inert(s string) string {
	if strings.IndexFunc(s, invisibleControl) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		if invisibleControl(r) {
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// invisibleControl reports the bidirectional controls (Unicode's Bidi_Control
// property) and the zero-width and invisible formatting characters.
func invisibleControl(r rune) bool {
	switch {
	case r == 0x061C, // Arabic letter mark
		r == 0x200E, r == 0x200F, // left-to-right and right-to-left marks
		r >= 0x202A && r <= 0x202E, // embeddings and overrides
		r >= 0x2066 && r <= 0x2069, // isolates
		r >= 0x200B && r <= 0x200D, // zero-width space, non-joiner, joiner
		r == 0x2060, r == 0xFEFF,   // word joiner, zero-width no-break space
		r >= 0x2061 && r <= 0x2064, // invisible operators
		r == 0x180E, r == 0x00AD:   // Mongolian vowel separator, soft hyphen
		return true
	}
	return false
}

// maxPrettyDepth is the nesting up to which metadata is shown indented.
// Indenting costs the depth on every line, so deeper JSON (stored before
// creation bounded it, domain.MaxMetadataDepth) is shown compact: the page
// stays linear in the size of the metadata.
const maxPrettyDepth = 32

// prettyJSON shows stored metadata as indented JSON, inert.
func prettyJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	if jsonDepth(raw) > maxPrettyDepth {
		return inert(string(raw))
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return inert(string(raw))
	}
	// Shown as text by the template, which escapes it for HTML; json's own
	// \u003c escaping would only make it unreadable.
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	return inert(strings.TrimSpace(buf.String()))
}

// jsonDepth is the deepest nesting of objects and arrays in raw, counted in
// one pass that skips strings.
func jsonDepth(raw []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range raw {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// errFormText refuses a form holding bytes no text has: invalid UTF-8 or
// NUL, which Postgres refuses in text columns (a 500 otherwise) and which
// would come back raw on every page.
var errFormText = errors.New("the form holds bytes that are not text (invalid UTF-8 or NUL)")

func checkFormText(f url.Values) error {
	for k, vs := range f {
		if !utf8.ValidString(k) || strings.ContainsRune(k, 0) {
			return errFormText
		}
		for _, v := range vs {
			if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
				return errFormText
			}
		}
	}
	return nil
}
