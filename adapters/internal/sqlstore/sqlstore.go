// Package sqlstore is what the SQLite and Postgres stores share, following
// Ardan's rule for stores: share helpers, not function bodies that hide an
// engine's difference. Here are each entity's row struct (jobRow,
// accountRow, deliveryRow, …: a field per column, tagged with its name),
// the mapping between it and the domain value (for a job the pair
// toJobRow/toDomainJob), the placeholders of each dialect, every statement
// both engines run alike (Statements, the job list's filter JobFilter), the
// plain reads that are one statement in both (Reads) and the
// read-modify-writes whose only difference is the engine's lock (Modify*).
//
// A new job column is a jobRow field, its line in toJobRow and in
// toDomainJob, and the two migrations (with the domain.Job field: four
// files); TestRowMappingsComplete fails if a line is missing, without being
// edited. The stores keep only what differs between the engines:
// transactions and locking, upserts, the outbox, search, group commit,
// migrations. Placeholders are positional ($n, ?): both drivers would take
// @name, but see docs/decisions.md ("Named parameters") for why not.
//
// Rows are written with plain Go values, a nil pointer or []byte for NULL,
// and scanned into pointers to the row struct's fields; database/sql and
// pgx both take them.
package sqlstore

import (
	"strconv"
	"strings"
	"time"
)

// Scanner is one row: *sql.Row, *sql.Rows, pgx.Row, pgx.Rows. Scan errors
// are returned as the driver gives them, for the store to translate.
type Scanner interface{ Scan(dest ...any) error }

// Times are stored as unix milliseconds, UTC.

// ToMs is t as stored.
func ToMs(t time.Time) int64 { return t.UnixMilli() }

// FromMs is a stored time.
func FromMs(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// ToNullMs is t as stored, NULL (nil) when t is nil.
func ToNullMs(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	v := t.UnixMilli()
	return &v
}

// FromNullMs is a stored time that may be NULL.
func FromNullMs(v *int64) *time.Time {
	if v == nil {
		return nil
	}
	t := FromMs(*v)
	return &t
}

// Dialect is how an engine writes the n-th parameter of a statement.
type Dialect int

// The two engines.
const (
	SQLite   Dialect = iota // ?
	Postgres                // $1, $2, …
)

// Param is the n-th (from 1) parameter.
func (d Dialect) Param(n int) string {
	if d == Postgres {
		return "$" + strconv.Itoa(n)
	}
	return "?"
}

// Params lists the parameters from..from+n-1: "$1, $2, $3" or "?, ?, ?".
func (d Dialect) Params(from, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = d.Param(from + i)
	}
	return strings.Join(parts, ", ")
}

// Insert is "INSERT INTO table (cols) VALUES (params)".
func (d Dialect) Insert(table string, cols []string) string {
	return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES (" + d.Params(1, len(cols)) + ")"
}

// InsertUnlessDeleted is Insert for a row that belongs to a job: nothing is
// inserted once the job has a tombstone (deleted). Its doc_id is the
// parameter after the row's.
func (d Dialect) InsertUnlessDeleted(table string, cols []string) string {
	return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") SELECT " + d.Params(1, len(cols)) +
		" WHERE NOT EXISTS (SELECT 1 FROM job_tombstones WHERE doc_id = " + d.Param(len(cols)+1) + ")"
}

// UpdateSet is "b = p1, c = p2" for every column but the first (the key),
// which is then parameter len(cols): see KeyLast.
func (d Dialect) UpdateSet(cols []string) string {
	parts := make([]string, 0, len(cols)-1)
	for i, c := range cols[1:] {
		parts = append(parts, c+" = "+d.Param(i+1))
	}
	return strings.Join(parts, ", ")
}

// Update is "UPDATE table SET <UpdateSet> WHERE key = p(len(cols))", the
// key being the first column; its arguments are KeyLast(row).
func (d Dialect) Update(table string, cols []string) string {
	return "UPDATE " + table + " SET " + d.UpdateSet(cols) + " WHERE " + cols[0] + " = " + d.Param(len(cols))
}

// KeyLast moves a row's key (its first value) to the end, to match Update.
func KeyLast(args []any) []any {
	return append(append([]any{}, args[1:]...), args[0])
}

// Select is "SELECT cols FROM table".
func Select(table string, cols []string) string {
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + table
}

// TableSQL are a table's plain statements in one dialect; its first column
// is its key.
type TableSQL struct {
	// Select is "SELECT cols FROM table", to be followed by a WHERE.
	Select string
	// Insert writes a row (all the columns).
	Insert string
	// Update writes a row with its key last (KeyLast).
	Update string
}

// Table is the plain statements of table, whose columns are cols.
func (d Dialect) Table(table string, cols []string) TableSQL {
	return TableSQL{Select: Select(table, cols), Insert: d.Insert(table, cols), Update: d.Update(table, cols)}
}

// Jobs is the jobs table's: a job is read without its search text
// (JobCols) and written with it (JobWriteCols).
func (d Dialect) Jobs() TableSQL {
	t := d.Table("jobs", JobWriteCols)
	t.Select = Select("jobs", JobCols)
	return t
}

// Statements are all the statements the stores share, in one dialect.
type Statements struct {
	Account, Analysis, Job, User TableSQL
	Deletion                     DeletionSQL
	Team                         TeamSQL
	Pieces                       PiecesSQL
}

// Statements is the shared statements in d.
func (d Dialect) Statements() Statements {
	return Statements{
		Account:  d.Table("accounts", AccountCols),
		Analysis: d.Table("analyses", AnalysisCols),
		Job:      d.Jobs(),
		User:     d.Table("users", UserCols),
		Deletion: d.Deletion(),
		Team:     d.Team(),
		Pieces:   d.Pieces(),
	}
}
