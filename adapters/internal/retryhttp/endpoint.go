package retryhttp

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Endpoint joins an OpenAI-compatible /v1 base URL and an operation path
// ("/audio/transcriptions", "/chat/completions"), refusing what is not such a
// base: no http(s) scheme or host, a fragment, or the operation's own address
// given instead of its base. A query is kept and follows the operation's path
// (Azure OpenAI's "?api-version=2024-06-01" belongs to every request). Errors
// start with prefix ("asr", "llm"); hint says what the base is when none was
// given. Credentials in the URL are dropped: keys go in the API key, never in
// an address that errors quote.
func Endpoint(prefix, base, path, hint string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	switch {
	case base == "":
		return "", errors.New(prefix + ": BaseURL is required (" + hint + ")")
	case err != nil:
		return "", fmt.Errorf("%s: malformed BaseURL: %w", prefix, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("%s: BaseURL %q must start with http:// or https://", prefix, base)
	case u.Host == "":
		return "", fmt.Errorf("%s: BaseURL %q has no host", prefix, base)
	case u.Fragment != "":
		return "", fmt.Errorf("%s: BaseURL %q must not have a fragment", prefix, base)
	case strings.HasSuffix(strings.TrimRight(u.Path, "/"), path):
		return "", fmt.Errorf("%s: BaseURL %q is the endpoint; give the /v1 base it belongs to", prefix, base)
	}
	u.User = nil
	u.Path = strings.TrimRight(u.Path, "/") + path
	u.RawPath = ""
	return u.String(), nil
}
