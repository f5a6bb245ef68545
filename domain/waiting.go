package domain

import "fmt"

// MaxWaitingUploads is how many jobs an account may hold waiting for their
// upload (status uploading) at once (docs/security.md). Each expires after
// the upload window; without a cap, 700 form posts in 2 s left 700 of
// them.
const MaxWaitingUploads = 1000

// CheckWaitingUploads refuses a new job when the account already holds
// waiting of them: domain.ErrConflict with a message saying what to do.
func CheckWaitingUploads(waiting int) error {
	if waiting >= MaxWaitingUploads {
		return fmt.Errorf("the account has %d jobs waiting for their upload; at most %d may wait at once: upload their audio or let them expire (after %s): %w",
			waiting, MaxWaitingUploads, UploadWindow, ErrConflict)
	}
	return nil
}
