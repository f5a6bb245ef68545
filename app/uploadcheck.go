package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
)

// Check decides an upload from its address and declared length alone,
// before any of its body is read: the signature and expiry, the job's state
// and the size. Its errors are Handle's. The HTTP adapter calls it as soon
// as a PUT's headers arrive, so that a refused upload is answered at once
// and never holds a connection waiting for a body (docs/security.md).
func (uc *ReceiveUpload) Check(ctx context.Context, req UploadRequest) error {
	now := uc.clock.Now()
	if err := uc.signer.VerifyUpload(req.DocID, req.Expires, req.Signature, now); err != nil {
		return err
	}
	j, err := uc.jobs.GetJob(ctx, req.DocID)
	if errors.Is(err, domain.ErrNotFound) {
		return fmt.Errorf("upload address does not match any job: %w", domain.ErrForbidden)
	}
	if err != nil {
		return fmt.Errorf("receive upload: %w", err)
	}
	if err := uploadable(j, now); err != nil {
		return err
	}
	// A refused upload is recorded on the job, which keeps waiting for a
	// good one (refuse).
	if req.ContentLength == 0 {
		return uc.refuse(req.DocID, domain.Invalid("empty_body", "%s", domain.UploadEmpty))
	}
	if req.ContentLength > uc.maxBytes {
		return uc.refuse(req.DocID, tooLarge(uc.maxBytes))
	}
	return nil
}
