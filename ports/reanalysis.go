package ports

import (
	"context"

	"github.com/hyscribe/hyscribe/domain"
)

// AnalysisReplacer replaces a job's analysis when it is made again (its
// call's speakers were given other roles).
type AnalysisReplacer interface {
	// ReplaceAnalysis overwrites the stored analysis whose ID is a.ID (of
	// job a.DocID) with a, and saves events (the outbox), in one
	// transaction. The call's review, if any, is kept and becomes stale
	// (ReviewStore.ReviewOf). domain.ErrNotFound, saving nothing, when there is no
	// such analysis or its job was deleted.
	ReplaceAnalysis(ctx context.Context, a domain.Analysis, events []domain.Event) error
}
