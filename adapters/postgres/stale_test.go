package postgres

import (
	"testing"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports/porttest"
)

func TestStaleJobsListsAnUnreadableRow(t *testing.T) {
	s := openTest(t)
	porttest.UnreadableStaleJob(t, s, func(t *testing.T, id domain.DocID) {
		if _, err := s.pool.Exec(t.Context(), `UPDATE jobs SET audio = 'not json' WHERE id = $1`, string(id)); err != nil {
			t.Fatal(err)
		}
	})
}
