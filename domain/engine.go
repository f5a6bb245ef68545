package domain

import (
	"fmt"
	"time"
)

// PieceTooLargeError is a speech engine's refusal of one piece of audio as
// too large (HTTP 413). The transcribe stage cuts the recording into
// smaller pieces and sends them again, down to MinPieceBytes.
// errors.Is(err, ErrTooLarge) holds for it.
type PieceTooLargeError struct {
	Bytes int64  // the refused file's size; -1 when unknown
	Msg   string // the engine's answer, "413 Request Entity Too Large: …"
}

func (e *PieceTooLargeError) Error() string {
	if e.Bytes > 0 {
		return fmt.Sprintf("speech engine refused a piece of %s as too large: %s", Bytes(e.Bytes), e.Msg)
	}
	return "speech engine refused a piece as too large: " + e.Msg
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *PieceTooLargeError) Is(target error) bool { return target == ErrTooLarge }

// MinPieceBytes is the smallest piece the transcribe stage cuts a
// recording into after an engine refused larger ones (413): below it the
// job fails with PieceTooSmall's message.
const MinPieceBytes = 1 << 20

// PieceTooSmall is the failure of a job whose engine refused pieces even
// at the floor.
func PieceTooSmall(last error) error {
	return Permanent(fmt.Errorf("%v; the recording cannot be cut into pieces smaller than %s (lower the engine's limit or raise its body size limit)", last, Bytes(MinPieceBytes)))
}

// Bytes words a size for people: "1.5 MiB", "900 KiB", "12 B".
func Bytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// BudgetExceeded is the failure of a job whose speech recognition went on
// past its budget (HYSCRIBE_ASR_JOB_BUDGET) since it began converting.
func BudgetExceeded(budget time.Duration) error {
	return Permanent(fmt.Errorf("speech recognition did not finish within the job's budget of %s (the speech engine is too slow or kept failing)", budget))
}
