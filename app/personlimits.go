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

const scopeWebCreate = "create-user"

// AllowCreate counts one job created by the person from the web
// application's upload form: domain.ErrRateLimited past limit this minute,
// the API's createTranscription limit per key (DESIGN §2), so the form is
// no way around it.
func (uc *People) AllowCreate(ctx context.Context, userID string, limit int) error {
	return uc.limit.Allow(ctx, scopeWebCreate, userID, limit)
}
