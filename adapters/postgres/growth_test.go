package postgres_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
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
		{Account: storeseed.AccountID(1), Limit: limit, After: domain.CursorAfter(storeseed.JobCreated(1000*growthSpec.Accounts+1), storeseed.JobID(1000*growthSpec.Accounts+1))},
		{Account: storeseed.AccountID(0), Limit: limit, After: domain.CursorAfter(storeseed.JobCreated(deep+60*growthSpec.Accounts), storeseed.JobID(deep+60*growthSpec.Accounts))},
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
