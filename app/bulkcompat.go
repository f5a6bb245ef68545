package app

import (
	"context"

	"github.com/hyscribe/hyscribe/domain"
)

// ExportRecording and GetRecording are the account-only signatures the
// web application's bulk actions (adapters/web/bulk.go, reworked on
// another branch) still call. They hold no rule of their own: each
// forwards to the one use case as a person of the account (PersonActor
// without a role, which may read). Delete this file once bulk.go calls
// ExportJob and GetJob with the visitor's actor.
type ExportRecording struct{ export *ExportJob }

// NewExportRecording forwards to export.
func NewExportRecording(export *ExportJob) *ExportRecording {
	need("export", export)
	return &ExportRecording{export: export}
}

// Handle is ExportJob.Handle for a person of account.
func (uc *ExportRecording) Handle(ctx context.Context, account domain.AccountID, doc domain.DocID, format string) (Export, error) {
	return uc.export.Handle(ctx, Actor{Account: domain.Account{ID: account}}, ExportCommand{DocID: doc, Format: format})
}

// GetRecording forwards to GetJob for bulk.go (see ExportRecording).
type GetRecording struct{ get *GetJob }

// NewGetRecording forwards to get.
func NewGetRecording(get *GetJob) *GetRecording {
	need("get", get)
	return &GetRecording{get: get}
}

// Handle is GetJob.Handle of the recording's page for a person of account.
func (uc *GetRecording) Handle(ctx context.Context, account domain.AccountID, doc domain.DocID) (Recording, error) {
	return uc.get.Handle(ctx, Actor{Account: domain.Account{ID: account}}, GetCommand{DocID: doc, Page: true})
}
