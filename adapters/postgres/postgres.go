// Package postgres is the production store: every store port (jobs,
// accounts and keys, checklists and analyses, rate counters, the outbox,
// webhook deliveries, the web application's users and sessions) in one
// Postgres database through pgx, shared by any number of API and worker
// processes.
//
// Concurrency rests on row locks, not on a process-wide writer: UpdateJob
// locks the job (SELECT … FOR NO KEY UPDATE), and its account too when the
// step changes the balance, so racing transitions of one job queue in
// Postgres and each sees the last committed state; ClaimOutbox locks records with SKIP LOCKED so relays never wait on
// each other; Hit is one upsert. The schema is versioned SQL embedded in the
// binary, applied by Open under a transaction-scoped advisory lock so that
// processes starting together migrate once.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hyscribe/hyscribe/adapters/groupcommit"
	"github.com/hyscribe/hyscribe/adapters/internal/migrations"
	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/adapters/internal/webquery"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Store implements every store port (ports.Stores) on one Postgres database.
type Store struct {
	// Reads are the plain reads written once for both stores.
	sqlstore.Reads
	pool       *pgxpool.Pool
	written    chan struct{}                // OutboxWritten
	lastWindow atomic.Int64                 // newest rate window seen, unix ms: drives cleanup
	polls      *groupcommit.Queue[*pollReq] // HitAndGetJob's queue, see pollbatch.go
	pollsSent  atomic.Int64                 // batches of polls sent, for tests

	startListen sync.Once // starts the LISTEN connection, see OutboxWritten
	stopListen  context.CancelFunc
	listenDone  chan struct{}
	logger      *slog.Logger

	updates *groupcommit.Queue[*jobUpdateReq] // UpdateJob's queue, see jobupdate.go

	// statementTimeout bounds work that no caller's deadline bounds
	// (Options.StatementTimeout).
	statementTimeout time.Duration

	migrated      []string // migrations Open applied
	schemaVersion int      // the schema's version after Open
}

var (
	_ ports.Stores      = (*Store)(nil)
	_ ports.TeamStore   = (*Store)(nil)
	_ ports.UsageReader = (*Store)(nil)
)

// shared are the statements the stores share (sqlstore), in this dialect.
var shared = sqlstore.Postgres.Statements()

// Open connects to the database at url (postgres://…; pool settings such
// as pool_max_conns and runtime parameters such as search_path may be given
// in its query) and brings its schema up to date.
func Open(ctx context.Context, url string) (*Store, error) {
	return OpenWith(ctx, url, Options{})
}

// OpenWith is Open with opts (statement deadlines, see Options).
func OpenWith(ctx context.Context, url string, opts Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres.Open: %w", err)
	}
	opts = withDeadlines(cfg, opts)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres.Open: %w", err)
	}
	applied, version, err := migrate(withoutDeadline(ctx), pool)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres.Open: %w", err)
	}
	return &Store{Reads: sqlstore.NewReads(sqlstore.Postgres, reader{pool}, "postgres", translate), pool: pool, migrated: applied, schemaVersion: version, written: make(chan struct{}, 1), logger: slog.New(slog.DiscardHandler),
		polls:            groupcommit.New[*pollReq](pollBatchesInFlight, pollBatchMax),
		updates:          groupcommit.New[*jobUpdateReq](maxCommitters, maxGroup),
		statementTimeout: opts.StatementTimeout,
	}, nil
}

// Close stops the outbox listener, if it runs, and closes every connection
// of the pool.
func (s *Store) Close() error {
	s.startListen.Do(func() {}) // no listener can start after this
	if s.stopListen != nil {
		s.stopListen()
		<-s.listenDone
	}
	s.pool.Close()
	return nil
}

// SetLogger sets where the store reports trouble it recovers from by
// itself (the outbox listener losing its connection); by default nowhere.
// Call it before OutboxWritten.
func (s *Store) SetLogger(log *slog.Logger) { s.logger = log }

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrateLock is the first key of the advisory lock migrations take; the
// second is the hash of the schema, so databases and schemas migrate
// independently (tests give each test its own schema).
const migrateLock = 0x68797363 // "hysc"

// migrate applies the missing migrations in one transaction holding a
// transaction-scoped advisory lock: a second process starting at the same
// moment waits for the first to commit and then finds nothing to do. DDL is
// transactional in Postgres, so a failed migration leaves no trace.
// It returns the names of the migrations it applied and the schema's
// version.
func migrate(ctx context.Context, pool *pgxpool.Pool) (done []string, version int, err error) {
	ms, err := migrations.Load(migrationFiles, "migrations")
	if err != nil {
		return nil, 0, fmt.Errorf("migrate: %w", err)
	}
	version = ms[len(ms)-1].Version
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		done = nil // a retried transaction starts again
		// A migration's backfill reads and rewrites every job, and a
		// process starting beside one waits for its lock: as long as that
		// takes, whatever the session's statement_timeout.
		if _, err := tx.Exec(ctx, `SET LOCAL statement_timeout = 0`); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))`, migrateLock); err != nil {
			return fmt.Errorf("migrate: lock: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    integer PRIMARY KEY,
			name       text NOT NULL,
			applied_at bigint NOT NULL
		)`); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		rows, _ := tx.Query(ctx, `SELECT version FROM schema_migrations`)
		versions, err := pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		applied := map[int]bool{}
		newest := 0
		for _, v := range versions {
			applied[v], newest = true, max(newest, v)
		}
		if known := ms[len(ms)-1].Version; newest > known {
			// An older binary must not write to a schema it does not know.
			return fmt.Errorf("migrate: database schema is at version %d, newer than this binary's %d", newest, known)
		}
		for _, m := range ms {
			if applied[m.Version] {
				continue
			}
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return fmt.Errorf("migrate: %s: %w", m.Name, err)
			}
			if strings.Contains(m.SQL, webquery.BackfillMarker) {
				if err := backfillSearchText(ctx, tx, m.Version >= sqlstore.FilenameMigration); err != nil {
					return fmt.Errorf("migrate: %s: %w", m.Name, err)
				}
			}
			if strings.Contains(m.SQL, sqlstore.ListScoreMarker) {
				if err := backfillListScores(ctx, tx); err != nil {
					return fmt.Errorf("migrate: %s: %w", m.Name, err)
				}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
				m.Version, m.Name, time.Now().UnixMilli()); err != nil {
				return fmt.Errorf("migrate: %s: %w", m.Name, err)
			}
			done = append(done, m.Name)
		}
		return nil
	})
	return done, version, err
}

// Migrations reports what Open did to the schema: the names of the
// migrations it applied (none when it was up to date) and the schema's
// version now.
func (s *Store) Migrations() (applied []string, version int) { return s.migrated, s.schemaVersion }

// signal tells a relay in this process that events were committed.
func (s *Store) signal() {
	select {
	case s.written <- struct{}{}:
	default:
	}
}

// OutboxWritten is signalled after each commit that wrote events: at once
// for commits of this Store, and through LISTEN/NOTIFY for commits of other
// processes. The first call starts the listening connection.
func (s *Store) OutboxWritten() <-chan struct{} {
	s.startListen.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		s.stopListen, s.listenDone = cancel, make(chan struct{})
		go s.listen(ctx)
	})
	return s.written
}

// Postgres error codes the store translates.
const (
	uniqueViolation     = "23505"
	foreignKeyViolation = "23503"
	diskFull            = "53100" // the server could not extend a file
)

// translate turns driver errors into the domain's sentinels, keeping the
// driver's error in the chain for the log. An error already translated is
// returned as it is, so nested calls do not repeat the sentinel.
func translate(err error) error {
	if err == nil {
		return nil
	}
	for _, done := range []error{domain.ErrNotFound, domain.ErrConflict, domain.ErrUnavailable} {
		if errors.Is(err, done) {
			return err
		}
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.ErrNotFound
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case uniqueViolation:
			return fmt.Errorf("%w: %w", domain.ErrConflict, err)
		case diskFull:
			return fmt.Errorf("%w: %w", domain.ErrStorageFull, err)
		case foreignKeyViolation:
			// The only references are to accounts: the row names an account
			// that does not exist.
			return fmt.Errorf("account %w: %w", domain.ErrNotFound, err)
		}
	}
	if unreachable(err) {
		// ErrStoreDown is ErrUnavailable (503) and ErrBackOff (the stages
		// wait the outage out without spending a job's attempts).
		return fmt.Errorf("%w: %w", domain.ErrStoreDown, err)
	}
	return err
}

// unreachable reports whether err says the database could not be reached
// or dropped the connection (restart, failover, network cut), rather than
// refusing the statement: the request may succeed once it is back, so
// callers answer "unavailable" (503) instead of "internal error".
func unreachable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// Class 08 connection exception; 57P01-03 the server shutting down
		// or starting; 53300 too many connections.
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" ||
			pe.Code == "57P03" || pe.Code == "53300"
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.As(err, &ne), pgconn.SafeToRetry(err),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	}
	// pgx reports a connection that broke during an earlier statement as
	// closed, without a typed error.
	return strings.Contains(err.Error(), "conn closed")
}

// Times and updates as both stores write them (sqlstore).
var (
	toMs     = sqlstore.ToMs
	fromMs   = sqlstore.FromMs
	toNullMs = sqlstore.ToNullMs
	// keyLast moves a row's key (its first value) to the end, to match
	// sqlstore.Dialect.Update.
	keyLast = sqlstore.KeyLast
)
