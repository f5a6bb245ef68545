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

// AllowPreview counts one checklist Preview of a person.
type AllowPreview struct {
	limit *RateLimit
}

// NewAllowPreview builds the use case.
func NewAllowPreview(limit *RateLimit) *AllowPreview {
	need("limit", limit)
	return &AllowPreview{limit: limit}
}

// Handle runs the use case (AllowPreview) for the person (a user ID):
// domain.ErrRateLimited past PreviewsPerPerson this minute.
func (uc *AllowPreview) Handle(ctx context.Context, userID string) error {
	return uc.limit.Allow(ctx, scopePreview, userID, PreviewsPerPerson)
}

const scopeWebCreate = "create-user"

// AllowCreate counts one job created by a person from the web
// application's upload form.
type AllowCreate struct {
	limit *RateLimit
}

// NewAllowCreate builds the use case.
func NewAllowCreate(limit *RateLimit) *AllowCreate {
	need("limit", limit)
	return &AllowCreate{limit: limit}
}

// Handle runs the use case (AllowCreate) for the person (a user ID):
// domain.ErrRateLimited past limit this minute, the API's
// createTranscription limit per key (docs/decisions.md, API), so the form is no way
// around it.
func (uc *AllowCreate) Handle(ctx context.Context, userID string, limit int) error {
	return uc.limit.Allow(ctx, scopeWebCreate, userID, limit)
}
