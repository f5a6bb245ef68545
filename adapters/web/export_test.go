package web

// HasMessage reports whether key has text in both languages.
func HasMessage(key string) bool {
	m, ok := messages[key]
	return ok && m[0] != "" && m[1] != ""
}
