// Package sqlite is the embedded store: every store port (jobs, accounts and
// keys, checklists and analyses, rate counters, the outbox, webhook
// deliveries, the web application's users and sessions) in one SQLite file,
// through the pure-Go driver modernc.org/sqlite, so `hyscribe serve` needs
// no database server.
//
// One file may be open in several processes at once (the CLI provisions
// accounts while `serve` runs): the database is in WAL mode so readers never
// wait, every write transaction starts with BEGIN IMMEDIATE so two writers
// queue on the write lock instead of deadlocking on a lock upgrade, and
// busy_timeout makes the queueing wait instead of fail. Inside one process
// writes also take a semaphore, so they queue in Go rather than in SQLite's
// sleeping busy handler.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/hyscribe/hyscribe/adapters/internal/diskfull"
	"github.com/hyscribe/hyscribe/adapters/internal/migrations"
	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/adapters/internal/webquery"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// busyTimeout is how long a write waits for another process's write lock.
// Transactions here last milliseconds; ten seconds means "something is wrong".
const busyTimeout = 10 * time.Second

// Store implements every store port (ports.Stores) on one SQLite database.
type Store struct {
	// Reads are the plain reads written once for both stores.
	sqlstore.Reads
	migrated      []string // migrations Open applied
	schemaVersion int      // the schema's version after Open
	db            *sql.DB
	writeSem      chan struct{} // one writer at a time in this process
	written       chan struct{} // OutboxWritten
	lastWindow    atomic.Int64  // newest rate window seen, unix ms: drives cleanup
	getJob        *sql.Stmt     // GetJob's statement, parsed once: the poll's one read
	keyByHash     *sql.Stmt     // APIKeyByHash's, parsed once: a key the cache lacks
}

var (
	_ ports.Stores      = (*Store)(nil)
	_ ports.TeamStore   = (*Store)(nil)
	_ ports.UsageReader = (*Store)(nil)
)

// shared are the statements the stores share (sqlstore), in this dialect.
var shared = sqlstore.SQLite.Statements()

// Open opens (creating if needed) the database file at path and brings its
// schema up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("sqlite.Open: %w", err)
	}
	// Connections are cheap to keep and costly to reopen (each applies the
	// pragmas); readers run in parallel under WAL.
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	applied, version, err := migrateWhenFree(ctx, db)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite.Open %s: %w", path, err)
	}
	// The poll's reads, parsed once: the job, and the key when the
	// process's key cache does not hold it.
	getJob, err := db.PrepareContext(ctx, shared.Job.Select+" WHERE id = ?")
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite.Open %s: %w", path, err)
	}
	keyByHash, err := db.PrepareContext(ctx, keyByHashSelect)
	if err != nil {
		getJob.Close()
		db.Close()
		return nil, fmt.Errorf("sqlite.Open %s: %w", path, err)
	}
	return &Store{Reads: sqlstore.NewReads(sqlstore.SQLite, reader{db}, "sqlite", translate), migrated: applied, schemaVersion: version, db: db, writeSem: make(chan struct{}, 1), written: make(chan struct{}, 1), getJob: getJob, keyByHash: keyByHash}, nil
}

func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	// In WAL mode NORMAL loses no committed data on a process crash, only
	// possibly the last commits on a power cut, and saves an fsync per commit.
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	u := url.URL{Scheme: "file", OmitHost: true, Path: path, RawQuery: q.Encode()}
	return u.String()
}

// Close closes the database.
func (s *Store) Close() error {
	s.getJob.Close()
	s.keyByHash.Close()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("sqlite.Close: %w", err)
	}
	return nil
}

// migrateWhenFree runs migrate, again while SQLite answers SQLITE_BUSY
// without waiting, for up to busyTimeout. busy_timeout covers a writer
// waiting for another, but not a connection that opens (and switches to
// WAL) while another process is migrating a new file: that answers busy at
// once.
func migrateWhenFree(ctx context.Context, db *sql.DB) ([]string, int, error) {
	deadline := time.Now().Add(busyTimeout)
	for {
		applied, version, err := migrate(ctx, db)
		var se *msqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return applied, version, err
		}
		select {
		case <-ctx.Done():
			return nil, 0, err
		case <-time.After(20 * time.Millisecond):
		}
	}
}

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrate applies the missing migrations in one write transaction. Because
// the transaction begins IMMEDIATE, a second process opening the database at
// the same moment waits for the first to finish and then finds nothing to do.
// It returns the names of the migrations it applied and the schema's
// version.
func migrate(ctx context.Context, db *sql.DB) (done []string, version int, err error) {
	ms, err := migrations.Load(migrationFiles, "migrations")
	if err != nil {
		return nil, 0, err
	}
	version = ms[len(ms)-1].Version
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at INTEGER NOT NULL
	) STRICT`); err != nil {
		return nil, 0, fmt.Errorf("migrate: %w", err)
	}
	applied := map[int]bool{}
	newest := 0
	rows, err := tx.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, 0, fmt.Errorf("migrate: %w", err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return nil, 0, fmt.Errorf("migrate: %w", err)
		}
		applied[v], newest = true, max(newest, v)
	}
	if err := rows.Close(); err != nil {
		return nil, 0, fmt.Errorf("migrate: %w", err)
	}
	if known := ms[len(ms)-1].Version; newest > known {
		// An older binary must not write to a schema it does not know.
		return nil, 0, fmt.Errorf("migrate: database schema is at version %d, newer than this binary's %d", newest, known)
	}
	for _, m := range ms {
		if applied[m.Version] {
			continue
		}
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return nil, 0, fmt.Errorf("migrate: %s: %w", m.Name, err)
		}
		if m.Version == 3 || strings.Contains(m.SQL, webquery.BackfillMarker) {
			if err := backfillSearchText(ctx, tx, m.Version >= sqlstore.FilenameMigration); err != nil {
				return nil, 0, fmt.Errorf("migrate: %s: %w", m.Name, err)
			}
		}
		if strings.Contains(m.SQL, sqlstore.ListScoreMarker) {
			if err := backfillListScores(ctx, tx); err != nil {
				return nil, 0, fmt.Errorf("migrate: %s: %w", m.Name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
			m.Version, m.Name, time.Now().UnixMilli()); err != nil {
			return nil, 0, fmt.Errorf("migrate: %s: %w", m.Name, err)
		}
		done = append(done, m.Name)
	}
	if err := tx.Commit(); err != nil {
		return nil, 0, fmt.Errorf("migrate: %w", err)
	}
	return done, version, nil
}

// Migrations reports what Open did to the schema: the names of the
// migrations it applied (none when it was up to date) and the schema's
// version now.
func (s *Store) Migrations() (applied []string, version int) { return s.migrated, s.schemaVersion }

// write runs fn in a write transaction (BEGIN IMMEDIATE, from the DSN) and
// commits it when fn returns nil. The in-process semaphore is taken first,
// so only writers of other processes ever wait in busy_timeout.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if err := s.lockWrite(ctx); err != nil {
		return err
	}
	defer s.unlockWrite()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return translate(err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return full(err)
	}
	return translate(tx.Commit())
}

func (s *Store) lockWrite(ctx context.Context) error {
	select {
	case s.writeSem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Store) unlockWrite() { <-s.writeSem }

// signal tells a relay in this process that events were committed.
func (s *Store) signal() {
	select {
	case s.written <- struct{}{}:
	default:
	}
}

// OutboxWritten is signalled after each commit that wrote events.
func (s *Store) OutboxWritten() <-chan struct{} { return s.written }

// translate turns driver errors into the domain's sentinels, keeping the
// driver's error in the chain for the log.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return domain.ErrNotFound
	}
	if outOfSpace(err) {
		return full(err)
	}
	var se *msqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w: %w", domain.ErrConflict, err)
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			// The only references are to accounts: the row names an account
			// that does not exist.
			return fmt.Errorf("account %w: %w", domain.ErrNotFound, err)
		}
	}
	return err
}

// outOfSpace reports whether err is SQLite's "database or disk is full"
// (SQLITE_FULL), or a write the file system refused for want of space.
func outOfSpace(err error) bool {
	var se *msqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL {
		return true
	}
	return diskfull.Is(err)
}

// full wraps err in domain.ErrStorageFull when it says the disk is full
// (outOfSpace), once; other errors pass as they are. write applies it to
// whatever its transaction's function returns, translated or not.
func full(err error) error {
	if err == nil || errors.Is(err, domain.ErrStorageFull) || !outOfSpace(err) {
		return err
	}
	return fmt.Errorf("%w: %w", domain.ErrStorageFull, err)
}

// Times and updates as both stores write them (sqlstore).
var (
	toMs   = sqlstore.ToMs
	fromMs = sqlstore.FromMs
	// keyLast moves a row's key (its first value) to the end, to match
	// sqlstore.Dialect.Update.
	keyLast = sqlstore.KeyLast
)

func toNullMs(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

type scanner interface{ Scan(dest ...any) error }

// placeholders returns "?, ?, ?" for n values.
func placeholders(n int) string { return sqlstore.SQLite.Params(1, n) }

// backfillSearchText gives every job the search text of this binary
// (webquery.SearchText): after migration 3, which added the column that
// SQLite's lower() cannot fill for Armenian, and after each migration that
// changes what search reads (marked webquery.BackfillMarker).
func backfillSearchText(ctx context.Context, tx *sql.Tx, withFilename bool) error {
	query := `SELECT id, status, title, transcription, metadata, '' FROM jobs`
	if withFilename {
		query = `SELECT id, status, title, transcription, metadata, filename FROM jobs`
	}
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	type row struct{ id, text string }
	var all []row
	for rows.Next() {
		var id, status, title, tr, file string
		var meta sql.NullString
		if err := rows.Scan(&id, &status, &title, &tr, &meta, &file); err != nil {
			rows.Close()
			return err
		}
		all = append(all, row{id, sqlstore.BackfillSearchText(status, title, tr, json.RawMessage(meta.String), file)})
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, r := range all {
		if _, err := tx.ExecContext(ctx, `UPDATE jobs SET search_text = ? WHERE id = ?`, r.text, r.id); err != nil {
			return err
		}
	}
	return nil
}

// backfillListScores gives every analysed job its list_score
// (sqlstore.BackfillListScores), after the migration that added it.
func backfillListScores(ctx context.Context, tx *sql.Tx) error {
	read := func(query string) (*sql.Rows, error) { return tx.QueryContext(ctx, query) }
	rows, err := read(sqlstore.BackfillAnalyses)
	if err != nil {
		return err
	}
	analyses, err := sqlstore.Collect(rows, sqlstore.ScanAnalysis)
	rows.Close()
	if err != nil {
		return err
	}
	if rows, err = read(sqlstore.BackfillChecklists); err != nil {
		return err
	}
	checklists, err := sqlstore.Collect(rows, sqlstore.ScanChecklist)
	rows.Close()
	if err != nil {
		return err
	}
	for doc, v := range sqlstore.BackfillListScores(analyses, checklists) {
		if _, err := tx.ExecContext(ctx, sqlstore.SetListScore, v, string(doc)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, sqlstore.BackfillAnalysisScore, v, string(doc)); err != nil {
			return err
		}
	}
	return nil
}
