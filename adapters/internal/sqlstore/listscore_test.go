package sqlstore

import (
	"testing"

	"github.com/hyscribe/hyscribe/domain"
)

// TestBackfillListScores: an analysis made before list_score existed gets
// the score its pages show, under its checklist version's weights.
func TestBackfillListScores(t *testing.T) {
	res := map[string]domain.QuestionResult{"a": {Answer: domain.AnswerYes, Score: 1}, "b": {Answer: domain.AnswerNo, Score: 0}}
	an := func(doc domain.DocID, version int) domain.Analysis {
		return domain.Analysis{DocID: doc, AccountID: "acc", ChecklistID: "cl", ChecklistVersion: version, Status: domain.AnalysisOK, Results: res}
	}
	cl := domain.Checklist{ID: "cl", AccountID: "acc", Version: 2, Questions: []domain.Question{{ID: "a", Weight: 3}, {ID: "b", Weight: 1}}}
	got := BackfillListScores([]domain.Analysis{an("weighted", 2), an("gone", 1)}, []domain.Checklist{cl})
	if got["weighted"] != 0.75 || got["gone"] != 0.5 {
		t.Fatalf("scores %v, want weighted 0.75 (3:1) and gone 0.5 (weights 1)", got)
	}
}
