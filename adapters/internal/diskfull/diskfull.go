// Package diskfull tells a write that failed for want of space (ENOSPC,
// or a quota: EDQUOT) from other I/O failures, for the adapters that
// write files (the local blob store, the decoder's scratch audio, SQLite),
// so that each answers domain.ErrStorageFull: a 503 for a request, a wait
// without a spent attempt for a pipeline stage.
package diskfull

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/hyscribe/hyscribe/domain"
)

// Is reports whether err says the disk (or the user's quota) is full.
func Is(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// Translate wraps err in domain.ErrStorageFull when the disk is full,
// keeping err in the chain for the log; any other err (nil included) is
// returned as it is.
func Translate(err error) error {
	if err == nil || errors.Is(err, domain.ErrStorageFull) || !Is(err) {
		return err
	}
	return fmt.Errorf("%w: %w", domain.ErrStorageFull, err)
}
