package sqlite

import (
	"testing"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports/porttest"
)

func TestStaleJobsListsAnUnreadableRow(t *testing.T) {
	s := openTemp(t)
	porttest.UnreadableStaleJob(t, s, func(t *testing.T, id domain.DocID) {
		if _, err := s.db.ExecContext(t.Context(), `UPDATE jobs SET audio = 'not json' WHERE id = ?`, string(id)); err != nil {
			t.Fatal(err)
		}
	})
}
