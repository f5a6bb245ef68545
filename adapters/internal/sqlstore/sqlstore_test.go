package sqlstore

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/hyscribe/hyscribe/domain"
)

func TestDialects(t *testing.T) {
	cols := []string{"id", "name", "plan"}
	for _, c := range []struct {
		d              Dialect
		insert, update string
	}{
		{SQLite, "INSERT INTO t (id, name, plan) VALUES (?, ?, ?)", "UPDATE t SET name = ?, plan = ? WHERE id = ?"},
		{Postgres, "INSERT INTO t (id, name, plan) VALUES ($1, $2, $3)", "UPDATE t SET name = $1, plan = $2 WHERE id = $3"},
	} {
		if got := c.d.Insert("t", cols); got != c.insert {
			t.Errorf("insert: %q, want %q", got, c.insert)
		}
		if got := c.d.Update("t", cols); got != c.update {
			t.Errorf("update: %q, want %q", got, c.update)
		}
	}
	if got := KeyLast([]any{"k", 1, 2}); got[0] != 1 || got[2] != "k" {
		t.Errorf("KeyLast: %v", got)
	}
}

// Every row has a value per column, and every scan a destination.
func TestRowsMatchTheirColumns(t *testing.T) {
	var j JobScan
	var a AccountScan
	var k APIKeyScan
	for _, c := range []struct {
		name       string
		cols, vals int
	}{
		{"job scan", len(JobCols), len(j.Dest())},
		{"account", len(AccountCols), len(a.Dest())},
		{"api key", len(APIKeyCols), len(k.Dest())},
		{"tombstone", len(TombstoneCols), len(TombstoneRow(domain.Tombstone{}))},
	} {
		if c.cols != c.vals {
			t.Errorf("%s: %d columns, %d values", c.name, c.cols, c.vals)
		}
	}
}

// fill sets each scan destination to the value written in its place, as
// a database would read back what was written.
func fill(vals, dest []any) {
	if len(vals) != len(dest) {
		panic(fmt.Sprintf("%d values, %d destinations", len(vals), len(dest)))
	}
	for i, d := range dest {
		reflect.ValueOf(d).Elem().Set(reflect.ValueOf(vals[i]))
	}
}

// written is a row read back as it was written.
type written []any

func (w written) Scan(dest ...any) error {
	fill(w, dest)
	return nil
}
