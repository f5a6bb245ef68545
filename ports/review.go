package ports

import (
	"context"

	"github.com/hyscribe/hyscribe/domain"
)

// ReviewStore keeps people's reviews of analyses (issue 36): the latest
// review of each call, beside its analysis.
type ReviewStore interface {
	// ReviewAnalysis reads the job's analysis and its latest review (nil
	// when none), applies fn and saves the review fn returns with fn's
	// events (the outbox), in one transaction that excludes a concurrent
	// ReviewAnalysis or ReplaceAnalysis of the same call. fn returning a
	// nil review saves nothing. fn's error is returned unchanged, saving
	// nothing; domain.ErrNotFound when the job has no analysis. A saved
	// review that is current (domain.Review.Current) makes its ListScore
	// the call's list score (the analysis's ListScore and ListedJob.Score,
	// nil: none), in the same transaction, until ReplaceAnalysis writes
	// the machine's again; ReviewOf does not return it.
	ReviewAnalysis(ctx context.Context, doc domain.DocID, fn func(a domain.Analysis, prev *domain.Review) (*domain.Review, []domain.Event, error)) error
	// ReviewOf returns the job's latest review, Stale when the call was
	// analysed again after it (ReplaceAnalysis), or domain.ErrNotFound.
	ReviewOf(ctx context.Context, doc domain.DocID) (domain.Review, error)
}
