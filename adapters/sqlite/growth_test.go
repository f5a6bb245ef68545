package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/adapters/storeseed"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// growthSpec is a small store seeded for the plan tests.
var growthSpec = storeseed.Spec{Jobs: 3000, Accounts: 3, KeysPerAccount: 1}

// seeded is a SQLite file seeded with growthSpec, opened read-only for
// EXPLAIN QUERY PLAN.
func seeded(t *testing.T) *sql.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hyscribe.db")
	if _, err := storeseed.SQLite(context.Background(), path, growthSpec); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// queryPlan is EXPLAIN QUERY PLAN's details of query, one a line.
func queryPlan(t *testing.T, db *sql.DB, query string, args ...any) string {
	t.Helper()
	rows, err := db.Query("EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		out = append(out, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, "\n")
}

// TestAPIPageReadsItsOwnRows: a page of listTranscriptions (PageJobs) is
// one range of jobs_account_created_id (the history's keyset index,
// migration 29) bounded by the account and the cursor, nothing counted:
// it reads the rows it returns, however deep the cursor and however many
// jobs the account has.
func TestAPIPageReadsItsOwnRows(t *testing.T) {
	db := seeded(t)
	n := 1000 * growthSpec.Accounts
	query, args, err := sqlstore.PageJobsQuery(sqlstore.SQLite, ports.JobQuery{Account: storeseed.AccountID(1), Limit: 50,
		After: domain.CursorAfter(storeseed.JobCreated(n+1), storeseed.JobID(n+1)).Key()})
	if err != nil {
		t.Fatal(err)
	}
	plan := queryPlan(t, db, query, args...)
	want := "SEARCH jobs USING INDEX jobs_account_created_id (account_id=? AND (created_at,id)<(?,?))"
	if first, _, _ := strings.Cut(plan, "\n"); first != want || strings.Contains(plan, "SUBQUERY") || strings.Contains(plan, "SCAN ") {
		t.Errorf("plan of a page after a cursor:\n%s\nwant (one range of the account's jobs up to the cursor, nothing counted):\n%s", plan, want)
	}
}

// TestWaitingUploadsCountOnItsIndex: the count of an account's waiting
// uploads every create makes stays on the partial index of uploading jobs,
// not on an index of all the account's jobs (an index on (account_id,
// created_at, id) took it: create+upload fell to 0.35x at 300,000 jobs).
func TestWaitingUploadsCountOnItsIndex(t *testing.T) {
	db := seeded(t)
	plan := queryPlan(t, db, "SELECT count(*) FROM jobs WHERE account_id = ?1 AND status = 'uploading'", string(storeseed.AccountID(1)))
	if !strings.Contains(plan, "jobs_account_uploading") {
		t.Errorf("the waiting uploads are counted with:\n%s\nwant the index jobs_account_uploading", plan)
	}
}
