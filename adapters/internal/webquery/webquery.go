// Package webquery holds what the SQL stores (SQLite, Postgres) must compute
// alike for the web application's queries: the text a job search reads, the
// LIKE operand of a search, page sizes, and the column a ports.UserKey names.
//
// Search is case-insensitive in any script, Armenian included, and finds
// either spelling of "ev" (domain.FoldSearch). Neither database can be
// trusted with that (SQLite's lower() is ASCII only, Postgres's depends on
// the database's collation), so the stores keep the folded title,
// transcription and metadata values of a job in a column and compare it
// with the folded search as a plain substring.
package webquery

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// SearchText is what a job's search_text column holds.
func SearchText(title, transcription string, metadata json.RawMessage, filename string) string {
	return domain.SearchText(title, transcription, metadata, filename)
}

// BackfillMarker, in a migration's SQL, asks the store to recompute every
// job's search_text in Go after the migration ran: the folding cannot be
// written in SQL alike for both databases.
const BackfillMarker = "-- go: recompute search_text"

// likeEscaper makes LIKE's wildcards and its escape character literal.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// Contains is the operand of `search_text LIKE '%' || ? || '%' ESCAPE '\'`
// that finds search anywhere in the text, folded, with % and _ taken
// literally.
func Contains(search string) string {
	return likeEscaper.Replace(domain.FoldSearch(search))
}

// Excerpt returns what the stores' excerpt of a listed job's
// transcription (ports.ListedJob.Excerpt) is computed from: the folded
// search, as found in search_text by instr/strpos, and how many characters
// of the transcription to read beyond where the match starts in the folded
// transcription. A match in the folded text starts no earlier in the
// original (only և folds to two characters), so reading up to its folded
// end and domain.SnippetRadius+1 characters more holds all FindSnippet
// needs; with no match the store reads that many and FindSnippet finds
// nothing in them.
func Excerpt(search string) (folded string, beyond int) {
	folded = domain.FoldSearch(strings.TrimSpace(search))
	return folded, utf8.RuneCountInString(folded) + domain.SnippetRadius + 1
}

// FoldedTitleLength is the SQL expression of the length in characters of
// a job's folded title (domain.FoldSearch), at the head of search_text: its
// length, plus one for each և, which folds to two.
const FoldedTitleLength = "(2 * length(title) - length(replace(title, 'և', '')))"

// Page sizes of ListJobs.
const (
	DefaultPageSize = 50
	MaxPageSize     = 500
)

// Page returns the LIMIT and OFFSET of a JobQuery's page: 0 or less is the
// default size, sizes are capped, and a negative offset is 0.
func Page(q ports.JobQuery) (limit, offset int) {
	limit = q.Limit
	if limit <= 0 {
		limit = DefaultPageSize
	}
	return min(limit, MaxPageSize), max(q.Offset, 0)
}

// UserColumn returns the users column and value FindUser looks up. A key
// with no field set, or several, is the caller's bug and an error, so that
// an empty invitation hash (every accepted user has one) never matches.
func UserColumn(by ports.UserKey) (column, value string, err error) {
	set := 0
	for _, f := range []struct{ col, val string }{{"id", by.ID}, {"email", by.Email}, {"invite_hash", by.InviteHash}} {
		if f.val != "" {
			column, value = f.col, f.val
			set++
		}
	}
	if set != 1 {
		return "", "", fmt.Errorf("user key sets %d of ID, email and invitation hash, want exactly one", set)
	}
	return column, value, nil
}
