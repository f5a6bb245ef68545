package app

import (
	"context"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
)

// UploadURL signs the upload address of one of the account's jobs that
// still waits for its file — an upload cut short whose page was since
// reloaded, so the person picks the file again — valid until the job's
// upload window closes, as its first address was. Another account's or a
// missing job is domain.ErrNotFound; a job no longer waiting, or whose
// window closed, is domain.ErrConflict.
func (uc *CreateJob) UploadURL(ctx context.Context, account domain.AccountID, doc domain.DocID) (string, error) {
	j, err := ownedJob(ctx, uc.jobs, account, string(doc))
	if err != nil {
		return "", err
	}
	if j.Status != domain.StatusUploading || !uc.clock.Now().Before(j.UploadExpiresAt) {
		return "", fmt.Errorf("upload url of %s in %s: %w", doc, j.Status, domain.ErrConflict)
	}
	u, err := uc.signer.SignUpload(ctx, j.ID, j.UploadExpiresAt)
	if err != nil {
		return "", fmt.Errorf("upload url: %w", err)
	}
	return u, nil
}
