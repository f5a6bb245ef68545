package sqlite

import (
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// TestHistoryOrdersReadAnIndex: every order of the history, on its first
// page and after a key, reads one index in order from the key (migration
// 28), never sorting the account's calls or skipping an OFFSET's rows —
// what keeps a deep page as cheap as the first (docs/performance.md).
func TestHistoryOrdersReadAnIndex(t *testing.T) {
	s := openTemp(t)
	for _, sort := range domain.HistorySorts {
		for _, after := range []bool{false, true} {
			q := ports.JobQuery{Account: "a", Sort: sort, Limit: 25}
			if after {
				q.After = domain.HistoryKey{Value: 1, ID: "x"}
			}
			a := sqlstore.SQLite.NewArgs()
			where, err := sqlstore.SQLite.JobFilter(q, a)
			if err != nil {
				t.Fatal(err)
			}
			keyset, order := sqlstore.HistoryOrder(q, a)
			if keyset != "" {
				where = append(where, keyset)
			}
			plan := explain(t, s, "SELECT id FROM jobs WHERE "+strings.Join(where, " AND ")+order+" LIMIT 25", a.Values)
			all := strings.Join(plan, "; ")
			if len(plan) != 1 || !strings.HasPrefix(all, "SEARCH jobs USING COVERING INDEX jobs_account_") || after && !strings.Contains(all, ")") {
				t.Errorf("order %q (after a key: %v) is planned as %q, want one search of an index in the order", sort, after, all)
			}
		}
	}
}

// explain is SQLite's plan of query, a line per step.
func explain(t *testing.T, s *Store, query string, args []any) []string {
	t.Helper()
	rows, err := s.db.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}
