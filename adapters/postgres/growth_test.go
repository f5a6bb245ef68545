package postgres_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/adapters/postgres"
	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/adapters/storeseed"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// growthSpec is a small store seeded for the plan tests: 6,000 jobs over
// 3 accounts, 2,000 each, enough for a plan that walks an account's jobs
// to read hundreds of rows more than one that does not.
var growthSpec = storeseed.Spec{Jobs: 6000, Accounts: 3, KeysPerAccount: 1}

// explainRows runs EXPLAIN (ANALYZE, FORMAT JSON) of query and returns
// the rows its scans of relation produced and removed by their filters.
func explainRows(t *testing.T, conn *pgx.Conn, relation, query string, args ...any) (read int) {
	t.Helper()
	var out []byte
	if err := conn.QueryRow(context.Background(), "EXPLAIN (ANALYZE, FORMAT JSON) "+query, args...).Scan(&out); err != nil {
		t.Fatal(err)
	}
	var plans []struct{ Plan map[string]any }
	if err := json.Unmarshal(out, &plans); err != nil {
		t.Fatal(err)
	}
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if n["Relation Name"] == relation {
			for _, k := range []string{"Actual Rows", "Rows Removed by Filter", "Rows Removed by Index Recheck"} {
				if v, ok := n[k].(float64); ok {
					read += int(v * loops(n))
				}
			}
		}
		if subs, ok := n["Plans"].([]any); ok {
			for _, s := range subs {
				walk(s.(map[string]any))
			}
		}
	}
	walk(plans[0].Plan)
	if read == 0 {
		t.Logf("plan: %s", out)
	}
	return read
}

func loops(n map[string]any) float64 {
	if v, ok := n["Actual Loops"].(float64); ok && v > 0 {
		return v
	}
	return 1
}

// TestAPIPageReadsItsOwnRows: a page of listTranscriptions (PageJobs)
// reads the rows it returns, wherever its cursor is and however many jobs
// the account has: no count of the account's jobs beside it, and the
// cursor a range of the index, not a filter over every newer job.
func TestAPIPageReadsItsOwnRows(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	if _, err := storeseed.Postgres(ctx, url, growthSpec); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const limit = 50
	deep := 1 * growthSpec.Accounts // the account's second-oldest job: 1,998 newer ones before it
	for _, q := range []ports.JobQuery{
		{Account: storeseed.AccountID(1), Limit: limit},
		{Account: storeseed.AccountID(1), Limit: limit, After: domain.CursorAfter(storeseed.JobCreated(1000*growthSpec.Accounts+1), storeseed.JobID(1000*growthSpec.Accounts+1)).Key()},
		{Account: storeseed.AccountID(0), Limit: limit, After: domain.CursorAfter(storeseed.JobCreated(deep+60*growthSpec.Accounts), storeseed.JobID(deep+60*growthSpec.Accounts)).Key()},
	} {
		query, args, err := sqlstore.PageJobsQuery(sqlstore.Postgres, q)
		if err != nil {
			t.Fatal(err)
		}
		if read := explainRows(t, conn, "jobs", query, args...); read > 2*limit || read == 0 {
			t.Errorf("a page of %d after %v read %d rows of jobs, want at most %d", limit, q.After, read, 2*limit)
		}
	}
}

// TestRetentionSweepReadsExpiredJobsOnly: the retention sweep's read
// (ExpiredJobs, at every worker's start and every RetentionInterval) costs
// the expired jobs it returns, not the store: none without a rule (it
// scanned every job, 2.9 s at a million), and at most its limit per rule.
func TestRetentionSweepReadsExpiredJobsOnly(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	if _, err := storeseed.Postgres(ctx, url, growthSpec); err != nil {
		t.Fatal(err)
	}
	// The seeded store is opened again as serve opens it (migrations
	// applied), its rules table as production has it: empty.
	st, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	query := sqlstore.Postgres.Statements().Deletion.ExpiredJobs
	now := storeseed.JobCreated(growthSpec.Jobs).Add(30 * 24 * time.Hour)
	const limit = 100
	if read := explainRows(t, conn, "jobs", query, now.UnixMilli(), limit); read != 0 {
		t.Errorf("with no retention rule the sweep read %d rows of jobs, want none", read)
	}
	if err := st.SetRetentionDays(ctx, storeseed.AccountID(1), 31); err != nil {
		t.Fatal(err)
	}
	if read := explainRows(t, conn, "jobs", query, now.UnixMilli(), limit); read == 0 || read > limit+1 {
		t.Errorf("with one rule the sweep read %d rows of jobs, want 1 to %d", read, limit+1)
	}
	expired, err := st.ExpiredJobs(ctx, now, limit)
	if err != nil || len(expired) != limit {
		t.Fatalf("ExpiredJobs: %d jobs, %v; want %d", len(expired), err, limit)
	}
	if expired[0].ID != storeseed.JobID(1) {
		t.Errorf("oldest expired job %s, want %s", expired[0].ID, storeseed.JobID(1))
	}
}

// TestRetentionSweepNotCompiled: the retention sweep's plan is cheap
// enough that Postgres does not JIT-compile it (0.3-0.5 s a sweep for
// nothing, with the rules table estimated at 1,270 rows unanalysed).
func TestRetentionSweepNotCompiled(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	if _, err := storeseed.Postgres(ctx, url, growthSpec); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The schema comes with its rules table analysed (migration 0031):
	// known to be small, rather than guessed at 1,270 rows.
	fresh, err := pgx.Connect(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close(ctx)
	st, err := postgres.Open(ctx, fresh.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	var tuples float64
	if err := fresh.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'account_retention'::regclass`).Scan(&tuples); err != nil {
		t.Fatal(err)
	}
	if tuples < 0 {
		t.Errorf("a new schema's account_retention was never analysed (reltuples %v)", tuples)
	}
	// The seeded store as that schema has it (seeding truncated the table).
	if _, err := conn.Exec(ctx, "ANALYZE account_retention"); err != nil {
		t.Fatal(err)
	}
	// The cost JIT starts at by default, whatever this server's setting.
	if _, err := conn.Exec(ctx, "SET jit_above_cost = 100000"); err != nil {
		t.Fatal(err)
	}
	var plan string
	query := sqlstore.Postgres.Statements().Deletion.ExpiredJobs
	if err := conn.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+query, time.Now().UnixMilli(), 100).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	var plans []struct {
		Plan struct {
			TotalCost float64 `json:"Total Cost"`
		}
	}
	if err := json.Unmarshal([]byte(plan), &plans); err != nil {
		t.Fatal(err)
	}
	if c := plans[0].Plan.TotalCost; c >= 100000 {
		t.Errorf("the retention sweep's plan costs %.0f, at or over jit_above_cost (100,000): compiled on every sweep", c)
	}
}
