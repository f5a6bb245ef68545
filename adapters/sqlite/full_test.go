package sqlite

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hyscribe/hyscribe/domain"
)

// TestFullDatabaseIsStorageFull fills the database to its page limit
// (max_page_count, SQLite's own "database or disk is full", as a full
// disk gives): the write that does not fit fails with
// domain.ErrStorageFull, which is also domain.ErrUnavailable (a 503) and
// domain.ErrBackOff (a stage waits), not with an untranslated driver error.
func TestFullDatabaseIsStorageFull(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	// One connection, so that the limit set on it holds for the writes.
	s.db.SetMaxOpenConns(1)
	var pages int
	if err := s.db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, pages+2)); err != nil {
		t.Fatal(err)
	}
	var err error
	for i := 0; i < 1000 && err == nil; i++ {
		err = s.CreateAccount(ctx, domain.Account{ID: domain.AccountID(fmt.Sprintf("acct-%04d", i)),
			Name: fmt.Sprintf("account %d with a name long enough to fill pages quickly %0100d", i, i), Plan: domain.PlanFree, CreatedAt: t0})
	}
	if err == nil {
		t.Fatal("1000 accounts fitted in two more pages: the limit did not hold")
	}
	for _, target := range []error{domain.ErrStorageFull, domain.ErrUnavailable, domain.ErrBackOff} {
		if !errors.Is(err, target) {
			t.Errorf("a write to a full database: %v, want it to be %v", err, target)
		}
	}
}
