package app

import (
	"context"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// weightBook finds the question weights of the checklist versions an
// account's analyses were made with, reading each version once.
type weightBook struct {
	checklists ports.ChecklistStore
	account    domain.AccountID
	seen       map[string]map[string]float64
}

func newWeightBook(checklists ports.ChecklistStore, account domain.AccountID) *weightBook {
	return &weightBook{checklists: checklists, account: account, seen: map[string]map[string]float64{}}
}

// score is a's total (domain.ScoreOf) under its version's weights; a
// version that is gone weighs every question 1.
func (b *weightBook) score(ctx context.Context, a domain.Analysis) domain.Score {
	key := fmt.Sprintf("%s\x00%d", a.ChecklistID, a.ChecklistVersion)
	w, ok := b.seen[key]
	if !ok {
		if c, err := b.checklists.GetChecklistVersion(ctx, b.account, a.ChecklistID, a.ChecklistVersion); err == nil {
			w = domain.ChecklistWeights(c)
		}
		b.seen[key] = w
	}
	return domain.ScoreOf(a, w)
}

// LiveAnalysis is what the history's checklist column shows of a job.
type LiveAnalysis struct {
	Analysis domain.Analysis
	Score    domain.Score
}

// LiveAnalyses returns the analyses (with their scores) of the account's jobs
// named, for the history's live checklist column; jobs without one yet
// are left out.
type LiveAnalyses struct {
	lister     ports.JobLister
	checklists ports.ChecklistStore
}

// NewLiveAnalyses builds the use case.
func NewLiveAnalyses(lister ports.JobLister, checklists ports.ChecklistStore) *LiveAnalyses {
	need("lister", lister)
	need("checklists", checklists)
	return &LiveAnalyses{lister: lister, checklists: checklists}
}

// Handle runs the use case (LiveAnalyses).
func (uc *LiveAnalyses) Handle(ctx context.Context, account domain.AccountID, docs []domain.DocID) (map[domain.DocID]LiveAnalysis, error) {
	an, err := uc.lister.AnalysesByDocs(ctx, account, docs)
	if err != nil {
		return nil, fmt.Errorf("live analyses: %w", err)
	}
	book := newWeightBook(uc.checklists, account)
	out := make(map[domain.DocID]LiveAnalysis, len(an))
	for doc, a := range an {
		out[doc] = LiveAnalysis{Analysis: a, Score: book.score(ctx, a)}
	}
	return out, nil
}
