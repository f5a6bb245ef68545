package domain

import "unicode/utf8"

// MaxIDLen bounds an identifier taken from a request (docId, checklist and
// delivery ids). Ours are far shorter.
const MaxIDLen = 128

// PlausibleID reports whether s could be an identifier this service issued:
// non-empty, at most MaxIDLen bytes, valid UTF-8 and free of control
// characters. Anything else is refused before it reaches a store: Postgres
// refuses NUL and invalid UTF-8 in text with an error, which would otherwise
// come back as a 500 instead of the same 404 as any unknown id.
func PlausibleID(s string) bool {
	return len(s) > 0 && len(s) <= MaxIDLen && plainText(s)
}

// plainText reports whether s is valid UTF-8 without control characters.
func plainText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// CheckSignInEmail refuses, as a bad request, an email that no user could
// have (NUL, invalid UTF-8, control characters, over 254 bytes); any other
// is looked up, well-formed or not, so that sign-in says nothing more.
func CheckSignInEmail(email string) error {
	if len(email) > 254 || !plainText(email) {
		return Invalid("invalid_email", "the email contains characters no email address has")
	}
	return nil
}
