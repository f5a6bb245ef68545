package web

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// liveChecklist is the history's checklist column in the live-status
// answer: State "ok" (Text is "yes/of · score", Name the checklist),
// "failed" (Text says the analysis failed) or "none" (the job failed
// before any analysis: the column is empty).
type liveChecklist struct {
	State string `json:"state"`
	Text  string `json:"text"`
	Name  string `json:"name,omitempty"`
}

// liveAnalyses reads the analyses of those jobs that may have one.
func (w *Web) liveAnalyses(c *fiber.Ctx, account domain.AccountID, jobs map[domain.DocID]domain.Job) (map[domain.DocID]app.LiveAnalysis, error) {
	var docs []domain.DocID
	for id, j := range jobs {
		if j.ChecklistID != "" && j.Status == domain.StatusTranscribed {
			docs = append(docs, id)
		}
	}
	if len(docs) == 0 {
		return nil, nil
	}
	return w.queries.LiveAnalyses.Handle(c.UserContext(), account, docs)
}

// checklistCell is what the history's checklist column of j shows now;
// nil while its analysis is awaited (or it has no checklist).
func checklistCell(lang Lang, j domain.Job, analyses map[domain.DocID]app.LiveAnalysis) *liveChecklist {
	if j.ChecklistID == "" {
		return nil
	}
	if a, ok := analyses[j.ID]; ok {
		if a.Analysis.Status != domain.AnalysisOK {
			return &liveChecklist{State: "failed", Text: text(lang, "one.analysis.failed")}
		}
		return &liveChecklist{State: "ok", Text: scoreText(lang, a.Score), Name: inert(a.Analysis.ChecklistName)}
	}
	if j.Status == domain.StatusFailed {
		return &liveChecklist{State: "none"}
	}
	return nil
}

// scoreText writes a call's checklist total as every page shows it:
// "1/3 · 0.25" (questions answered yes of those answered yes or no, then
// the weighted score), "· 2 unclear" when some answers are unclear, and
// "Not scored" for a call with no answered question (domain.Score), never
// "0/5 · 0.00"; "needs speaker names" when naming them would answer some.
func scoreText(l Lang, s domain.Score) string {
	out := text(l, "score.notscored")
	if s.Scored() {
		out = fmt.Sprintf("%d/%d · %s", s.Yes, s.Of, strconv.FormatFloat(math.Round(s.Value*100)/100, 'f', 2, 64))
		if s.Unclear > 0 {
			out += " · " + tf(l, "score.unclear", s.Unclear)
		}
	}
	if s.NeedsNames {
		out += " · " + text(l, "score.needsnames")
	}
	return out
}
