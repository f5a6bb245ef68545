package eventually_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/internal/eventually"
)

func TestTrueReturnsOnceTheConditionHolds(t *testing.T) {
	var calls atomic.Int32
	eventually.True(t, 5*time.Second, "the third check", func() bool { return calls.Add(1) == 3 })
	if n := calls.Load(); n != 3 {
		t.Fatalf("checked %d times, want 3", n)
	}
}

// recorder is a testing.TB whose Fatalf records the message and ends the
// goroutine, as testing's does.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = format
	for _, a := range args {
		r.msg += " " + toString(a)
	}
	panic(r)
}

func toString(a any) string {
	switch v := a.(type) {
	case string:
		return v
	case time.Duration:
		return v.String()
	}
	return "?"
}

func TestHoldsFailsWithWhatItLastSaw(t *testing.T) {
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != r {
				t.Fatalf("recovered %v, want the recorder's Fatalf", p)
			}
		}()
		eventually.Holds(r, 30*time.Millisecond, "a job transcribed", func() (bool, string) { return false, "processing" })
	}()
	if !strings.Contains(r.msg, "a job transcribed") || !strings.Contains(r.msg, "processing") {
		t.Fatalf("failure %q does not say what was awaited and what was seen", r.msg)
	}
}
