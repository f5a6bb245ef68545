package clickhouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/hyscribe/hyscribe/adapters/clickhouse"
	"github.com/hyscribe/hyscribe/adapters/clickhouse/chtest"
	"github.com/hyscribe/hyscribe/domain"
)

// newStore creates a database of the test's own (chtest: on the server
// make test starts, or one of the test process's own), migrated, and drops
// it at the end of the test.
func newStore(tb testing.TB) (*clickhouse.Store, ch.Conn, string) {
	tb.Helper()
	dsn, db := chtest.Database(tb, "hyscribe_test_")
	ctx := context.Background()
	opts, err := ch.ParseDSN(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := clickhouse.Open(ctx, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		tb.Fatal(err)
	}
	conn, err := ch.Open(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	return s, conn, db
}

var t0 = time.Date(2026, 11, 20, 9, 30, 15, 123_000_000, time.UTC)

// analysisEvent is the analysis.ready event of doc with answers in question
// order q1, q2, …
func analysisEvent(doc, account, checklist string, at time.Time, answers ...string) domain.Event {
	results := map[string]domain.QuestionResult{}
	for i, a := range answers {
		score := 0.0
		if a == domain.AnswerYes {
			score = 1
		}
		results[fmt.Sprintf("q%d", i+1)] = domain.QuestionResult{Question: fmt.Sprintf("Հարց %d", i+1), Answer: a, Score: score, Evidence: []domain.Evidence{}}
	}
	a := domain.Analysis{ID: "an-" + doc, DocID: domain.DocID(doc), AccountID: domain.AccountID(account), ChecklistID: checklist,
		ChecklistVersion: 1, ChecklistName: "Վաճառք", Status: domain.AnalysisOK, Results: results, CreatedAt: at}
	return domain.NewAnalysisReadyEvent(a, domain.Job{Metadata: json.RawMessage(`{"crm":"1"}`), CreatedAt: at}, nil, at)
}

func count(t *testing.T, conn ch.Conn, query string, args ...any) uint64 {
	t.Helper()
	var n uint64
	if err := conn.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func TestMigrateIsIdempotent(t *testing.T) {
	s, conn, db := newStore(t)
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatalf("second migrate: %v", err)
	}
	if n := count(t, conn, "SELECT count() FROM system.tables WHERE database = ? AND name IN ('checklist_results', 'analyses', 'job_status_events')", db); n != 3 {
		t.Fatalf("%d tables", n)
	}
	if n := count(t, conn, "SELECT count() FROM schema_migrations FINAL"); n != migrationFiles(t) {
		t.Fatalf("%d migrations recorded", n)
	}
	// A migration run again without its record (interrupted before it was
	// written, or two processes at once) skips the columns it already added.
	if err := conn.Exec(context.Background(), "TRUNCATE TABLE schema_migrations"); err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatalf("migrate without its records: %v", err)
	}
	if n := count(t, conn, "SELECT count() FROM system.columns WHERE database = ? AND name = 'call_at'", db); n != 2 {
		t.Fatalf("call_at in %d tables, want analyses and checklist_results", n)
	}
}

func TestDuplicateAnalysisReadyLeavesOneRowPerQuestion(t *testing.T) {
	s, conn, _ := newStore(t)
	ctx := context.Background()
	ev := analysisEvent("doc-1", "acc", "cl", t0, "yes", "no", "unclear", "yes")
	other := analysisEvent("doc-2", "acc", "cl", t0, "yes", "yes", "yes", "yes")
	// The same event twice in one batch, then again in a later batch (a
	// redelivery after a crash before the offset commit).
	if err := s.Write(ctx, []domain.Event{ev, ev, other}); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, []domain.Event{ev}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, conn, "SELECT count() FROM checklist_results FINAL WHERE analysis_id = 'an-doc-1'"); n != 4 {
		t.Fatalf("%d rows FINAL, want one per question (4)", n)
	}
	if n := count(t, conn, "SELECT count() FROM analyses FINAL"); n != 2 {
		t.Fatalf("%d analyses FINAL, want 2", n)
	}
	var ms uint16
	var at time.Time
	if err := conn.QueryRow(ctx, "SELECT analysed_at, analysed_ms FROM analyses FINAL WHERE analysis_id = 'an-doc-1'").Scan(&at, &ms); err != nil {
		t.Fatal(err)
	}
	if !at.Equal(t0.Truncate(time.Second)) || ms != 123 {
		t.Fatalf("analysed at %v + %d ms, want %v", at, ms, t0)
	}
}

func TestStatusEventsAreIdempotent(t *testing.T) {
	s, conn, _ := newStore(t)
	ctx := context.Background()
	j, evs := domain.NewJob("doc-1", "acc", domain.CreateRequest{Type: domain.TypeSingleVoice}, t0, time.Hour)
	more, err := j.ReceiveUpload(t0.Add(time.Second), "k", 10)
	if err != nil {
		t.Fatal(err)
	}
	evs = append(evs, more...)
	for range 2 {
		if err := s.Write(ctx, evs); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, conn, "SELECT count() FROM job_status_events FINAL"); n != 2 {
		t.Fatalf("%d status rows FINAL, want 2 (uploading, processing)", n)
	}
	if n := count(t, conn, "SELECT count() FROM job_status_events FINAL WHERE status = 'processing' AND previous = 'uploading' AND isNull(duration)"); n != 1 {
		t.Fatalf("processing row missing")
	}
}

func TestChecklistReport(t *testing.T) {
	s, _, _ := newStore(t)
	ctx := context.Background()
	day1, day2 := t0, t0.Add(24*time.Hour)
	evs := []domain.Event{
		analysisEvent("d1", "acc", "cl", day1, "yes", "no"),
		analysisEvent("d2", "acc", "cl", day1.Add(time.Hour), "yes", "yes"),
		analysisEvent("d3", "acc", "cl", day2, "no", "unclear"),
		analysisEvent("x1", "acc", "other", day1, "yes", "yes"),        // another checklist
		analysisEvent("x2", "other", "cl", day1, "no", "no"),           // another account
		analysisEvent("x3", "acc", "cl", day2.Add(48*time.Hour), "no"), // after the period
	}
	if err := s.Write(ctx, append(evs, evs[0], evs[2])); err != nil { // with repeats
		t.Fatal(err)
	}
	rep, err := s.ChecklistReport(ctx, "acc", "cl", t0.Truncate(24*time.Hour), t0.Truncate(24*time.Hour).Add(48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Questions) != 2 {
		t.Fatalf("questions %+v", rep.Questions)
	}
	q1, q2 := rep.Questions[0], rep.Questions[1]
	if q1.QuestionID != "q1" || q1.Answers != 3 || q1.Yes != 2 || q1.No != 1 || fmt.Sprintf("%.3f", q1.PassRate) != "0.667" || q1.Question != "Հարց 1" {
		t.Fatalf("q1 %+v", q1)
	}
	if q2.Answers != 3 || q2.Yes != 1 || q2.No != 1 || q2.Unclear != 1 {
		t.Fatalf("q2 %+v", q2)
	}
	if len(rep.Days) != 2 || rep.Days[0].Day != "2026-11-20" || rep.Days[0].Analyses != 2 || rep.Days[1].Analyses != 1 ||
		rep.Days[0].AvgScore != 0.75 || rep.Days[1].AvgScore != 0 {
		t.Fatalf("days %+v", rep.Days)
	}
	if _, err := s.ChecklistReport(ctx, "acc", "cl", t0, t0); err == nil {
		t.Fatal("an empty period was accepted")
	}
}

// BenchmarkSinkWrite measures rows/s into ClickHouse: batches of 1000
// analyses of 10 questions, 10,000 checklist_results rows per Write.
func BenchmarkSinkWrite(b *testing.B) {
	s, _, _ := newStore(b)
	ctx := context.Background()
	const analyses, questions = 1000, 10
	answers := make([]string, questions)
	for i := range answers {
		answers[i] = []string{"yes", "no", "unclear"}[i%3]
	}
	batch := make([]domain.Event, analyses)
	rows := 0
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		for k := range batch {
			batch[k] = analysisEvent(fmt.Sprintf("doc-%d-%d", i, k), "acc", "cl", t0.Add(time.Duration(k)*time.Second), answers...)
		}
		b.StartTimer()
		if err := s.Write(ctx, batch); err != nil {
			b.Fatal(err)
		}
		rows += analyses * questions
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// migrationFiles counts the embedded migrations, each recorded once.
func migrationFiles(t *testing.T) uint64 {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("migrations", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no migrations found: %v", err)
	}
	return uint64(len(files))
}
