package sqlite

import (
	"strings"
	"unicode/utf8"

	"github.com/hyscribe/hyscribe/domain"
)

// searchPhrase is the FTS5 query (a quoted phrase) that finds search as a
// substring of search_text in the trigram index job_search (migration 9),
// and false when the folded search is shorter than a trigram: such
// searches scan with LIKE. The index is case-sensitive and the phrase is
// folded like the text, so it finds exactly what the LIKE would: a phrase
// of trigrams matches where they follow each other, and ", % and _ are
// only characters in it.
func searchPhrase(search string) (string, bool) {
	f := domain.FoldSearch(search)
	if utf8.RuneCountInString(f) < 3 {
		return "", false
	}
	return `"` + strings.ReplaceAll(f, `"`, `""`) + `"`, true
}
