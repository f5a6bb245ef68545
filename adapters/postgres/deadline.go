package postgres

import (
	"context"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Options tune Open. Zero values take the defaults noted.
type Options struct {
	// StatementTimeout bounds one statement, batch or wait for a pooled
	// connection whose context has no deadline of its own (background
	// work: stages, relay, sweeper), and is the server's statement_timeout
	// unless the URL sets one (default DefaultStatementTimeout). A request
	// brings its own, shorter deadline; migrations have none.
	StatementTimeout time.Duration
}

// Defaults of Options and of the URL's connect_timeout.
const (
	DefaultStatementTimeout = 30 * time.Second
	// defaultConnectTimeout bounds dialling and the start-up exchange of
	// one connection when the URL gives no connect_timeout (libpq's
	// default is to wait forever).
	defaultConnectTimeout = 10 * time.Second
)

// withDeadlines applies opts to a parsed pool configuration: the connect
// timeout, the server's statement_timeout and the client-side bound of
// statementDeadline. A URL's own connect_timeout or statement_timeout wins.
// It returns opts with its defaults.
func withDeadlines(cfg *pgxpool.Config, opts Options) Options {
	if opts.StatementTimeout <= 0 {
		opts.StatementTimeout = DefaultStatementTimeout
	}
	d := opts.StatementTimeout
	cc := cfg.ConnConfig
	if cc.ConnectTimeout <= 0 {
		cc.ConnectTimeout = min(defaultConnectTimeout, d)
	}
	if _, set := cc.RuntimeParams["statement_timeout"]; !set {
		cc.RuntimeParams["statement_timeout"] = strconv.FormatInt(d.Milliseconds(), 10)
	}
	if cc.Tracer == nil {
		cc.Tracer = statementDeadline{d}
	}
	return opts
}

// statementDeadline gives every statement, batch and acquisition of a
// pooled connection whose context has no deadline a deadline d away. The
// server's statement_timeout cannot do this alone: a database that went
// silent (a stalled disk, a half-open connection) never sees the
// statement, or never answers, and pgx would wait forever. pgx uses the
// context a tracer's Start returns for the rest of the call, and hands it
// back to End, where the timer is released.
type statementDeadline struct{ d time.Duration }

var (
	_ pgx.QueryTracer       = statementDeadline{}
	_ pgx.BatchTracer       = statementDeadline{}
	_ pgxpool.AcquireTracer = statementDeadline{}
)

type cancelKey struct{}

// noDeadlineKey marks work allowed to run as long as it takes (migrations,
// which backfill every row).
type noDeadlineKey struct{}

func withoutDeadline(ctx context.Context) context.Context {
	return context.WithValue(ctx, noDeadlineKey{}, true)
}

func (t statementDeadline) start(ctx context.Context) context.Context {
	if _, has := ctx.Deadline(); has || ctx.Value(noDeadlineKey{}) != nil {
		return ctx
	}
	ctx, cancel := context.WithTimeout(ctx, t.d)
	return context.WithValue(ctx, cancelKey{}, cancel)
}

func end(ctx context.Context) {
	if cancel, ok := ctx.Value(cancelKey{}).(context.CancelFunc); ok {
		cancel()
	}
}

func (t statementDeadline) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return t.start(ctx)
}

func (statementDeadline) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	end(ctx)
}

func (t statementDeadline) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return t.start(ctx)
}

func (statementDeadline) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (statementDeadline) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchEndData) {
	end(ctx)
}

func (t statementDeadline) TraceAcquireStart(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireStartData) context.Context {
	return t.start(ctx)
}

func (statementDeadline) TraceAcquireEnd(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireEndData) {
	end(ctx)
}
