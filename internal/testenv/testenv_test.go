package testenv_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/internal/testenv"
)

// recorder is a testing.TB that notes whether it was failed or skipped.
type recorder struct {
	testing.TB
	failed, skipped string
}

func (r *recorder) Helper()                        {}
func (r *recorder) Fatalf(format string, a ...any) { r.failed = fmt.Sprintf(format, a...) }
func (r *recorder) Skipf(format string, a ...any)  { r.skipped = fmt.Sprintf(format, a...) }

func TestMissingFailsUnderCIAndSkipsElsewhere(t *testing.T) {
	for ci, wantFail := range map[string]bool{"true": true, "1": true, "": false, "false": false} {
		t.Setenv("CI", ci)
		r := &recorder{TB: t}
		testenv.Missing(r, "no %s (apt-get install it)", "widget")
		got := r.skipped
		if wantFail {
			got = r.failed
		}
		if got == "" || (r.failed != "") != wantFail || (r.skipped != "") == wantFail {
			t.Errorf("CI=%q: failed %q, skipped %q; want it to fail: %v", ci, r.failed, r.skipped, wantFail)
		}
		if want := "no widget (apt-get install it)"; !strings.Contains(got, want) {
			t.Errorf("CI=%q: message %q does not say %q", ci, got, want)
		}
	}
}
