package domain

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxOrgName is the longest organisation name, in characters (as the
// sign-up form says: 200 Armenian letters too).
const MaxOrgName = 200

// OrgName checks an organisation's name as given at sign-up, by the
// operator or in a rename, and returns it trimmed. A name is one line of
// printable text: it goes into the subject and body of the e-mail we send
// (invitations, resets, low-balance notices) and onto every page, so a
// line break would write its own lines into a letter ("SECURITY NOTICE: …
// http://phish.example/…"), and a bidi control would reorder what the
// reader sees around it.
func OrgName(raw string) (string, error) {
	name := strings.TrimSpace(raw)
	switch {
	case name == "":
		return "", Invalid("invalid_name", "organisation name is required")
	case !utf8.ValidString(name):
		return "", Invalid("invalid_name", "organisation name is not UTF-8 text")
	case utf8.RuneCountInString(name) > MaxOrgName:
		return "", Invalid("invalid_name", "organisation name must be at most %d characters", MaxOrgName)
	}
	for _, r := range name {
		if !oneLineRune(r) {
			return "", Invalid("invalid_name", "organisation name must be one line of printable text: no line breaks, tabs or control characters (found U+%04X)", r)
		}
	}
	return name, nil
}

// oneLineRune reports whether r may stand in a one-line name: not a
// control character (line breaks, tabs, NUL), a line or paragraph
// separator, a bidi control, or the replacement of invalid bytes.
func oneLineRune(r rune) bool {
	return !unicode.IsControl(r) && !unicode.In(r, unicode.Zl, unicode.Zp, unicode.Bidi_Control) && r != utf8.RuneError
}

// OneLine is s as one line of printable text: each run of what a name may
// not hold (OrgName) and of spaces becomes one space. Letters put names
// through it, so a name stored before names were checked still cannot
// write lines of its own.
func OneLine(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToValidUTF8(s, " "), func(r rune) bool {
		return unicode.IsSpace(r) || !oneLineRune(r)
	}), " ")
}
