package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

var _ ports.AnalyticsSink = (*Sink)(nil)

// codeUnknownDatabase is ClickHouse's UNKNOWN_DATABASE.
const codeUnknownDatabase = 81

// Sink is the analytics stage's writer: a Store that is opened on first
// need (its database created when missing, its tables migrated) and again
// after each failure to open. A ClickHouse that is down or refuses when
// the worker starts therefore holds back analytics alone: Write fails, the
// batch consumer retries it (logging each retry), and the events wait in
// Kafka until they can be stored; every other stage runs meanwhile.
type Sink struct {
	dsn   string
	mu    sync.Mutex
	store *Store
}

// NewSink returns a sink for dsn (clickhouse://host:port/database). It
// does not connect: see Open.
func NewSink(dsn string) *Sink { return &Sink{dsn: dsn} }

// Open opens the store unless it is open: it creates the DSN's database
// if the server says it does not exist, then runs Migrate.
func (k *Sink) Open(ctx context.Context) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.store != nil {
		return nil
	}
	s, err := Open(ctx, k.dsn)
	var exc *ch.Exception
	if errors.As(err, &exc) && exc.Code == codeUnknownDatabase {
		if err = CreateDatabase(ctx, k.dsn); err == nil {
			s, err = Open(ctx, k.dsn)
		}
	}
	if err != nil {
		return err
	}
	if err := s.Migrate(ctx); err != nil {
		_ = s.Close() // the migration's error is the one returned
		return err
	}
	k.store = s
	return nil
}

// Write opens the store if needed and writes events to it.
func (k *Sink) Write(ctx context.Context, events []domain.Event) error {
	if err := k.Open(ctx); err != nil {
		return fmt.Errorf("clickhouse.Sink: waiting for ClickHouse: %w", err)
	}
	return k.store.Write(ctx, events)
}

// Close closes the store if it was opened.
func (k *Sink) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.store == nil {
		return nil
	}
	return k.store.Close()
}

// CreateDatabase creates the database dsn names (CREATE DATABASE IF NOT
// EXISTS), connecting to the server's "default" database to do so: a DSN
// naming a database that does not exist cannot connect at all.
func CreateDatabase(ctx context.Context, dsn string) error {
	opts, err := ch.ParseDSN(dsn)
	if err != nil {
		return fmt.Errorf("clickhouse.CreateDatabase: %w", err)
	}
	db := opts.Auth.Database
	if db == "" || db == "default" {
		return nil
	}
	opts.Auth.Database = "default"
	opts.DialTimeout = 5 * time.Second
	conn, err := ch.Open(opts)
	if err != nil {
		return fmt.Errorf("clickhouse.CreateDatabase %s: %w", db, err)
	}
	defer conn.Close()
	if err := conn.Exec(ctx, "CREATE DATABASE IF NOT EXISTS "+quoteIdent(db)); err != nil {
		return fmt.Errorf("clickhouse.CreateDatabase %s: %w", db, err)
	}
	return nil
}

// quoteIdent quotes a name for ClickHouse SQL: backquotes, with backslashes
// and backquotes escaped.
func quoteIdent(name string) string {
	return "`" + strings.NewReplacer(`\`, `\\`, "`", "\\`").Replace(name) + "`"
}
