package app

import (
	"context"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
)

// weightBook finds the question weights of the checklist versions an
// account's analyses were made with, reading each version once.
type weightBook struct {
	uc      *Recordings
	account domain.AccountID
	seen    map[string]map[string]float64
}

func (uc *Recordings) weights(account domain.AccountID) *weightBook {
	return &weightBook{uc: uc, account: account, seen: map[string]map[string]float64{}}
}

// score is a's total (domain.ScoreOf) under its version's weights; a
// version that is gone weighs every question 1.
func (b *weightBook) score(ctx context.Context, a domain.Analysis) domain.Score {
	key := fmt.Sprintf("%s\x00%d", a.ChecklistID, a.ChecklistVersion)
	w, ok := b.seen[key]
	if !ok {
		if c, err := b.uc.checklists.GetChecklistVersion(ctx, b.account, a.ChecklistID, a.ChecklistVersion); err == nil {
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

// Analyses returns the analyses (with their scores) of the account's jobs
// named, for the history's live checklist column; jobs without one yet
// are left out.
func (uc *Recordings) Analyses(ctx context.Context, account domain.AccountID, docs []domain.DocID) (map[domain.DocID]LiveAnalysis, error) {
	an, err := uc.lister.AnalysesByDocs(ctx, account, docs)
	if err != nil {
		return nil, fmt.Errorf("live analyses: %w", err)
	}
	book := uc.weights(account)
	out := make(map[domain.DocID]LiveAnalysis, len(an))
	for doc, a := range an {
		out[doc] = LiveAnalysis{Analysis: a, Score: book.score(ctx, a)}
	}
	return out, nil
}
