// Package webquery holds what the SQL stores (SQLite, Postgres) must compute
// alike for the web application's queries: the text a job search reads, the
// LIKE operand of a search, page sizes, and the column a ports.UserKey names.
//
// Search is case-insensitive in any script, Armenian included. Neither
// database can be trusted with that (SQLite's lower() is ASCII only,
// Postgres's depends on the database's collation), so the stores keep Go's
// strings.ToLower of a job's title and transcription in a column and compare
// it with the lower-cased search as a plain substring.
package webquery

import (
	"fmt"
	"strings"

	"github.com/hyscribe/hyscribe/ports"
)

// SearchText is what a job's search_text column holds.
func SearchText(title, transcription string) string {
	return strings.ToLower(title + "\n" + transcription)
}

// likeEscaper makes LIKE's wildcards and its escape character literal.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// Contains is the operand of `search_text LIKE '%' || ? || '%' ESCAPE '\'`
// that finds search anywhere in the text, in any case, with % and _ taken
// literally.
func Contains(search string) string {
	return likeEscaper.Replace(strings.ToLower(search))
}

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
