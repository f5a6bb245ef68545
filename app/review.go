package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// ReviewCall records a person's review of a call's analysis (issue 36):
// each answer accepted or overridden with a reason, a comment, the call
// marked reviewed. The review is saved beside the analysis with its
// hyscribe.analysis.reviewed.v1 event in one transaction; stage notify
// sends the receiver analysis_reviewed and stage analytics writes it to
// ClickHouse. The web application calls it; the API has no endpoint for it.
type ReviewCall struct {
	jobs       ports.JobStore
	analyses   ports.AnalysisStore
	reviews    ports.ReviewStore
	checklists ports.ChecklistStore
	clock      ports.Clock
}

// NewReviewCall builds the use case.
func NewReviewCall(jobs ports.JobStore, analyses ports.AnalysisStore, reviews ports.ReviewStore, checklists ports.ChecklistStore, clock ports.Clock) *ReviewCall {
	need("jobs", jobs)
	need("analyses", analyses)
	need("reviews", reviews)
	need("checklists", checklists)
	need("clock", clock)
	return &ReviewCall{jobs: jobs, analyses: analyses, reviews: reviews, checklists: checklists, clock: clock}
}

// Handle reviews call doc of account as user. Only a role that may review
// (domain.Role.MayReview) may; others get domain.ErrForbidden. A review
// that says what the call's current review says changes nothing and sends
// nothing: it reports false with that review. Bad input is a
// domain.ValidationError (domain.NewReview); a call without an analysis
// is domain.ErrNotFound.
func (uc *ReviewCall) Handle(ctx context.Context, account domain.AccountID, user domain.User, doc domain.DocID, in domain.ReviewInput) (domain.Review, bool, error) {
	if !user.Role.MayReview() {
		return domain.Review{}, false, fmt.Errorf("review: only an owner or a QA analyst may review a call: %w", domain.ErrForbidden)
	}
	if user.AccountID != account {
		return domain.Review{}, false, fmt.Errorf("review: %w", domain.ErrForbidden)
	}
	j, err := shownJob(ctx, uc.jobs, account, doc)
	if err != nil {
		return domain.Review{}, false, err
	}
	// The weights are read before the review's transaction: a call is
	// analysed again against the same checklist version, so they hold.
	an, err := uc.analyses.AnalysisByDoc(ctx, doc)
	if err != nil {
		return domain.Review{}, false, fmt.Errorf("review: %w", err)
	}
	weights, err := uc.weights(ctx, an)
	if err != nil {
		return domain.Review{}, false, fmt.Errorf("review: %w", err)
	}
	var out domain.Review
	var changed bool
	err = uc.reviews.ReviewAnalysis(ctx, doc, func(a domain.Analysis, prev *domain.Review) (*domain.Review, []domain.Event, error) {
		if a.AccountID != account || a.ChecklistVersion != an.ChecklistVersion || a.ChecklistID != an.ChecklistID {
			return nil, nil, fmt.Errorf("review: %w", domain.ErrNotFound)
		}
		r, ch, err := domain.NewReview(a, prev, in, domain.Reviewer{ID: user.ID, Email: user.Email}, uc.clock.Now())
		if err != nil {
			return nil, nil, err
		}
		out, changed = r, ch
		if !ch {
			return nil, nil, nil
		}
		// The history sorts and filters by the reviewed score while the
		// review is current: the one rule of the score, on the reviewed answers.
		r.ListScore = a.Reviewed(r).WithListScore(weights).ListScore
		out = r
		return &r, []domain.Event{domain.NewAnalysisReviewedEvent(a, r, weights, j.Metadata)}, nil
	})
	if err != nil {
		return domain.Review{}, false, fmt.Errorf("review: %w", err)
	}
	return out, changed, nil
}

// weights are the question weights of the checklist version a analysed
// (nil when that version is gone: every question weighs 1).
func (uc *ReviewCall) weights(ctx context.Context, a domain.Analysis) (map[string]float64, error) {
	c, err := uc.checklists.GetChecklistVersion(ctx, a.AccountID, a.ChecklistID, a.ChecklistVersion)
	if errors.Is(err, domain.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return domain.ChecklistWeights(c), nil
}
