package sqlite

import (
	"testing"

	"github.com/hyscribe/hyscribe/ports/porttest"
)

// TestListScoreBackfill: migration 29's backfill of list_score on SQLite.
func TestListScoreBackfill(t *testing.T) {
	s := openTemp(t)
	porttest.ListScoreBackfill(t, s, func() {
		tx, err := s.db.BeginTx(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := backfillListScores(t.Context(), tx); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	})
}
