package postgres

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/ports/porttest"
)

// TestListScoreBackfill: migration 29's backfill of list_score on Postgres.
func TestListScoreBackfill(t *testing.T) {
	s := openTest(t)
	porttest.ListScoreBackfill(t, s, func() {
		err := pgx.BeginFunc(t.Context(), s.pool, func(tx pgx.Tx) error { return backfillListScores(t.Context(), tx) })
		if err != nil {
			t.Fatal(err)
		}
	})
}
