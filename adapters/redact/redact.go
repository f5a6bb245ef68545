// Package redact removes secrets from text bound for the log: one-time
// tokens in paths (/app/invite/…, /app/reset/…), every query value of a
// URL (upload signatures, a receiver's ?token=…), passwords in URLs
// (postgres://user:pass@…), API keys (hsk_…), webhook secrets (whsec_…)
// and Bearer credentials. ReplaceAttr applies it to every attribute and
// the message of a slog handler, so no log line carries them whatever code
// wrote it (docs/security.md).
package redact

import (
	"log/slog"
	"regexp"
)

// Mark replaces what was removed.
const Mark = "[redacted]"

var rules = []struct {
	re   *regexp.Regexp
	with string
}{
	// A one-time token is the path segment after invite/ or reset/.
	{regexp.MustCompile(`(/(?:invite|reset)/)[^/?#\s"'<>\\]+`), "${1}" + Mark},
	// Every query value: which names carry secrets is the integrator's
	// choice (?token=, ?auth=, ?sig=), so none is kept.
	{regexp.MustCompile(`([?&][^=&#?\s"'<>\\]+=)[^&#\s"'<>\\]+`), "${1}" + Mark},
	// user:password@ in a URL.
	{regexp.MustCompile(`(://)[^/@\s"'<>\\]+@`), "${1}" + Mark + "@"},
	{regexp.MustCompile(`\bhsk_[A-Za-z0-9]+`), "hsk_" + Mark},
	{regexp.MustCompile(`\bwhsec_[A-Za-z0-9+/=_-]+`), "whsec_" + Mark},
	{regexp.MustCompile(`(?i)\b(Bearer\s+)[^\s"'<>\\]+`), "${1}" + Mark},
}

// Secrets returns s with every secret the rules know replaced by Mark.
func Secrets(s string) string {
	for _, r := range rules {
		s = r.re.ReplaceAllString(s, r.with)
	}
	return s
}

// ReplaceAttr is a slog.HandlerOptions.ReplaceAttr that redacts strings,
// errors and anything else printed as text, the message included.
func ReplaceAttr(_ []string, a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if s := v.String(); s != "" {
			a.Value = slog.StringValue(Secrets(s))
		}
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			a.Value = slog.StringValue(Secrets(x.Error()))
		case interface{ String() string }:
			a.Value = slog.StringValue(Secrets(x.String()))
		case []byte:
			a.Value = slog.StringValue(Secrets(string(x)))
		}
	}
	return a
}
