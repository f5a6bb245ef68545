package app

import (
	"context"
)

// PreviewsPerPerson is how many checklist Previews one person may run a
// minute (docs/security.md): each analyses a whole transcript.
const (
	PreviewsPerPerson = 20
	scopePreview      = "preview-user"
)

// AllowPreview counts one checklist Preview of the person (a user ID):
// domain.ErrRateLimited past PreviewsPerPerson this minute.
func (uc *People) AllowPreview(ctx context.Context, userID string) error {
	return uc.limit.Allow(ctx, scopePreview, userID, PreviewsPerPerson)
}
