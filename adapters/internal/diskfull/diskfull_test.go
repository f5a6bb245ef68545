package diskfull

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"github.com/hyscribe/hyscribe/domain"
)

func TestTranslate(t *testing.T) {
	full := &fs.PathError{Op: "write", Path: "/data/blobs/x", Err: syscall.ENOSPC}
	quota := fmt.Errorf("blob.Put: %w", &os.SyscallError{Syscall: "write", Err: syscall.EDQUOT})
	for _, err := range []error{full, quota} {
		got := Translate(err)
		if !errors.Is(got, domain.ErrStorageFull) || !errors.Is(got, domain.ErrUnavailable) || !errors.Is(got, domain.ErrBackOff) || !errors.Is(got, err) {
			t.Errorf("Translate(%v) = %v, want it storage full, unavailable, a back-off, and still the cause", err, got)
		}
		if again := Translate(got); again != got {
			t.Errorf("Translate twice wraps twice: %v", again)
		}
	}
	other := &fs.PathError{Op: "open", Path: "/data/x", Err: syscall.EACCES}
	if got := Translate(other); got != error(other) {
		t.Errorf("Translate(%v) = %v, want it unchanged", other, got)
	}
	if Translate(nil) != nil {
		t.Error("Translate(nil) is not nil")
	}
}
