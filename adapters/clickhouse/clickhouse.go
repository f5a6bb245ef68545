package clickhouse

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Store writes pipeline events to ClickHouse and answers analytics queries.
type Store struct {
	conn driver.Conn
}

var (
	_ ports.AnalyticsSink      = (*Store)(nil)
	_ ports.ChecklistAnalytics = (*Store)(nil)
)

// Open connects to the DSN (clickhouse://host:port/database) and checks
// the server answers. It does not create tables: see Migrate.
func Open(ctx context.Context, dsn string) (*Store, error) {
	opts, err := ch.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("clickhouse.Open: %w", err)
	}
	opts.DialTimeout = 5 * time.Second
	conn, err := ch.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("clickhouse.Open: %w", err)
	}
	if err := conn.Ping(ctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("clickhouse.Open: ping %s: %w", strings.Join(opts.Addr, ","), err)
	}
	return &Store{conn: conn}, nil
}

// Close closes the connections.
func (s *Store) Close() error {
	if err := s.conn.Close(); err != nil {
		return fmt.Errorf("clickhouse.Close: %w", err)
	}
	return nil
}

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate creates the tables. Every statement is idempotent (IF NOT
// EXISTS), and applied migrations are recorded in schema_migrations, so
// several processes may run it at once.
func (s *Store) Migrate(ctx context.Context) error {
	if err := s.conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version UInt32, name String, applied_at DateTime
	) ENGINE = ReplacingMergeTree() ORDER BY version`); err != nil {
		return fmt.Errorf("clickhouse.Migrate: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("clickhouse.Migrate: %w", err)
	}
	sort.Strings(names)
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		num, _, _ := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			return fmt.Errorf("clickhouse.Migrate: %s: name must start with a version number", base)
		}
		var applied uint64
		if err := s.conn.QueryRow(ctx, `SELECT count() FROM schema_migrations WHERE version = ?`, uint32(v)).Scan(&applied); err != nil {
			return fmt.Errorf("clickhouse.Migrate: %w", err)
		}
		if applied > 0 {
			continue
		}
		b, err := migrations.ReadFile(name)
		if err != nil {
			return fmt.Errorf("clickhouse.Migrate: %w", err)
		}
		for _, stmt := range statements(string(b)) {
			exists, err := s.addsExisting(ctx, stmt)
			if err != nil {
				return fmt.Errorf("clickhouse.Migrate: %s: %w", base, err)
			}
			if exists {
				continue
			}
			if err := s.conn.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("clickhouse.Migrate: %s: %w", base, err)
			}
		}
		// INSERT … VALUES through Exec waits forever on 18.16 (the server
		// expects a data block): every INSERT here is a batch.
		batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO schema_migrations (version, name, applied_at)`)
		if err != nil {
			return fmt.Errorf("clickhouse.Migrate: %s: %w", base, err)
		}
		if err := batch.Append(uint32(v), base, time.Now().UTC().Truncate(time.Second)); err != nil {
			batch.Abort()
			return fmt.Errorf("clickhouse.Migrate: %s: %w", base, err)
		}
		if err := batch.Send(); err != nil {
			return fmt.Errorf("clickhouse.Migrate: %s: %w", base, err)
		}
	}
	return nil
}

// addColumn matches a migration's "ALTER TABLE t ADD COLUMN c …".
var addColumn = regexp.MustCompile(`(?is)^ALTER\s+TABLE\s+(\w+)\s+ADD\s+COLUMN\s+(\w+)\s`)

// addsExisting reports whether stmt adds a column its table already has:
// 18.16 has no ADD COLUMN IF NOT EXISTS, and a migration interrupted after
// its first ALTER, or run by two processes at once, must not fail on it.
func (s *Store) addsExisting(ctx context.Context, stmt string) (bool, error) {
	m := addColumn.FindStringSubmatch(stmt)
	if m == nil {
		return false, nil
	}
	var n uint64
	if err := s.conn.QueryRow(ctx, `SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = ? AND name = ?`, m[1], m[2]).Scan(&n); err != nil {
		return false, err
	}
	return n > 0, nil
}

// statements splits a migration into statements: the native protocol runs
// one at a time. Comment lines are dropped; statements end with ';'.
func statements(sql string) []string {
	var lines []string
	for _, l := range strings.Split(sql, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			lines = append(lines, l)
		}
	}
	var out []string
	for _, st := range strings.Split(strings.Join(lines, "\n"), ";") {
		if st = strings.TrimSpace(st); st != "" {
			out = append(out, st)
		}
	}
	return out
}

func splitMs(t time.Time) (time.Time, uint16) {
	t = t.UTC()
	return t.Truncate(time.Second), uint16(t.Nanosecond() / int(time.Millisecond))
}

// Write stores a batch of analysis.ready, analysis.reviewed and job.status
// events (others are ignored) with one INSERT per table. A repeated event writes rows with the
// same keys, which FINAL (and background merges) collapse to one. A
// job.deleted event drops every row of its job (see deletion.go).
func (s *Store) Write(ctx context.Context, events []domain.Event) error {
	var results, analyses, reviews, statuses, deleted []domain.Event
	for _, ev := range events {
		switch ev.Topic {
		case domain.TopicAnalysisReady:
			analyses = append(analyses, ev)
		case domain.TopicAnalysisReviewed:
			reviews = append(reviews, ev)
		case domain.TopicJobStatus:
			statuses = append(statuses, ev)
		case domain.TopicJobDeleted:
			deleted = append(deleted, ev)
		}
	}
	var err error
	if analyses, err = s.withoutDeleted(ctx, analyses, deleted); err != nil {
		return err
	}
	if statuses, err = s.withoutDeleted(ctx, statuses, deleted); err != nil {
		return err
	}
	if reviews, err = s.withoutDeleted(ctx, reviews, deleted); err != nil {
		return err
	}
	results = analyses
	if len(results) > 0 {
		if err := s.writeAnalyses(ctx, results); err != nil {
			return err
		}
	}
	if len(reviews) > 0 {
		if err := s.writeReviews(ctx, reviews); err != nil {
			return err
		}
	}
	if len(statuses) > 0 {
		if err := s.writeStatuses(ctx, statuses); err != nil {
			return err
		}
	}
	if len(deleted) > 0 {
		return s.forget(ctx, deleted)
	}
	return nil
}

// resultCols and analysisCols hold a batch column by column: the driver
// appends a whole column at once, far cheaper than row by row.
type resultCols struct {
	account, checklist, analysis, question, doc, name, text, answer []string
	version                                                         []uint32
	score, weight                                                   []float64
	evidence, ms                                                    []uint16
	at, callAt                                                      []time.Time
}

type analysisCols struct {
	account, checklist, analysis, doc, name, status, errs []string
	version                                               []uint32
	questions, yes, no, unclear, ms                       []uint16
	score                                                 []float64
	at, callAt                                            []time.Time
}

func appendColumns(b driver.Batch, cols ...any) error {
	for i, c := range cols {
		if err := b.Column(i).Append(c); err != nil {
			return fmt.Errorf("column %d: %w", i, err)
		}
	}
	return nil
}

func (s *Store) writeAnalyses(ctx context.Context, events []domain.Event) error {
	var r resultCols
	var a analysisCols
	for _, ev := range events {
		var d domain.AnalysisReadyData
		if err := ev.DecodeData(&d); err != nil {
			return domain.Permanent(fmt.Errorf("clickhouse.Write: %w", err))
		}
		at, ms := splitMs(d.AnalysedAt)
		callAt := at // events made before callAt was added: the analysis's time
		if !d.CallAt.IsZero() {
			callAt, _ = splitMs(d.CallAt)
		}
		var yes, no, unclear uint16
		for qid, res := range d.Results {
			w := d.Weights[qid]
			if w <= 0 {
				w = 1
			}
			switch res.Answer {
			case domain.AnswerYes:
				yes++
			case domain.AnswerNo:
				no++
			default:
				unclear++
			}
			r.account = append(r.account, string(ev.AccountID))
			r.checklist = append(r.checklist, d.ChecklistID)
			r.analysis = append(r.analysis, d.AnalysisID)
			r.question = append(r.question, qid)
			r.doc = append(r.doc, string(ev.DocID))
			r.version = append(r.version, uint32(d.ChecklistVersion))
			r.name = append(r.name, d.ChecklistName)
			r.text = append(r.text, res.Question)
			r.answer = append(r.answer, res.Answer)
			r.score = append(r.score, res.Score)
			r.weight = append(r.weight, w)
			r.evidence = append(r.evidence, uint16(min(len(res.Evidence), 65535)))
			r.at = append(r.at, at)
			r.ms = append(r.ms, ms)
			r.callAt = append(r.callAt, callAt)
		}
		// The one score every page shows: unclear answers left out
		// (domain.Counts); a call with none answered has yes + no = 0 and
		// is not scored (the report leaves it out of averages).
		score := domain.WeightedScore(d.Results, d.Weights)
		a.account = append(a.account, string(ev.AccountID))
		a.checklist = append(a.checklist, d.ChecklistID)
		a.analysis = append(a.analysis, d.AnalysisID)
		a.doc = append(a.doc, string(ev.DocID))
		a.version = append(a.version, uint32(d.ChecklistVersion))
		a.name = append(a.name, d.ChecklistName)
		a.status = append(a.status, d.Status)
		a.errs = append(a.errs, d.Error)
		a.questions = append(a.questions, uint16(min(len(d.Results), 65535)))
		a.yes, a.no, a.unclear = append(a.yes, yes), append(a.no, no), append(a.unclear, unclear)
		a.score = append(a.score, score)
		a.at = append(a.at, at)
		a.ms = append(a.ms, ms)
		a.callAt = append(a.callAt, callAt)
	}
	if len(r.account) > 0 {
		rb, err := s.conn.PrepareBatch(ctx, `INSERT INTO checklist_results (account_id, checklist_id, analysis_id, question_id,
			doc_id, checklist_version, checklist_name, question, answer, score, weight, evidence_count, analysed_at, analysed_ms, call_at)`)
		if err != nil {
			return fmt.Errorf("clickhouse.Write: results: %w", err)
		}
		defer rb.Abort()
		if err := appendColumns(rb, r.account, r.checklist, r.analysis, r.question, r.doc, r.version, r.name, r.text,
			r.answer, r.score, r.weight, r.evidence, r.at, r.ms, r.callAt); err != nil {
			return fmt.Errorf("clickhouse.Write: results: %w", err)
		}
		if err := rb.Send(); err != nil {
			return fmt.Errorf("clickhouse.Write: results: %w", err)
		}
	}
	ab, err := s.conn.PrepareBatch(ctx, `INSERT INTO analyses (account_id, checklist_id, analysis_id, doc_id, checklist_version,
		checklist_name, status, error, questions, yes, no, unclear, score, analysed_at, analysed_ms, call_at)`)
	if err != nil {
		return fmt.Errorf("clickhouse.Write: analyses: %w", err)
	}
	defer ab.Abort()
	if err := appendColumns(ab, a.account, a.checklist, a.analysis, a.doc, a.version, a.name, a.status, a.errs,
		a.questions, a.yes, a.no, a.unclear, a.score, a.at, a.ms, a.callAt); err != nil {
		return fmt.Errorf("clickhouse.Write: analyses: %w", err)
	}
	if err := ab.Send(); err != nil {
		return fmt.Errorf("clickhouse.Write: analyses: %w", err)
	}
	return nil
}

func (s *Store) writeStatuses(ctx context.Context, events []domain.Event) error {
	b, err := s.conn.PrepareBatch(ctx, `INSERT INTO job_status_events (event_id, doc_id, account_id, status, previous, type,
		duration, error, checklist_id, occurred_at, occurred_ms)`)
	if err != nil {
		return fmt.Errorf("clickhouse.Write: status: %w", err)
	}
	defer b.Abort()
	for _, ev := range events {
		var d domain.JobStatusData
		if err := ev.DecodeData(&d); err != nil {
			return domain.Permanent(fmt.Errorf("clickhouse.Write: %w", err))
		}
		at, ms := splitMs(ev.OccurredAt)
		if err := b.Append(ev.ID, string(ev.DocID), string(ev.AccountID), string(d.Status), string(d.Previous), string(d.Type),
			d.Duration, d.Error, d.ChecklistID, at, ms); err != nil {
			return fmt.Errorf("clickhouse.Write: status: %w", err)
		}
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("clickhouse.Write: status: %w", err)
	}
	return nil
}
