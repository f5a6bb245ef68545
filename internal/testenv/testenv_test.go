package testenv_test

import (
	"errors"
	"fmt"
	"os"
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

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// A server is the variable's when it is set, the local one when that
// answers, else one started once for the whole process.
func TestServerIsTheVariablesTheLocalOrOneStartedOnce(t *testing.T) {
	starts := 0
	newServer := func(localAnswers bool) *testenv.Server {
		return &testenv.Server{
			Env:   "HYSCRIBE_TESTENV_SERVER",
			Local: "local://",
			Answers: func(u string) error {
				if u == "local://" && localAnswers {
					return nil
				}
				return errors.New("refused")
			},
			Start: func(testing.TB) (string, func(), error) { starts++; return "own://", func() {}, nil },
		}
	}
	t.Setenv("HYSCRIBE_TESTENV_SERVER", "given://")
	if got := newServer(false).URL(t); got != "given://" || starts != 0 {
		t.Fatalf("with the variable set: %q, %d starts", got, starts)
	}
	t.Setenv("HYSCRIBE_TESTENV_SERVER", "")
	if got := newServer(true).URL(t); got != "local://" || starts != 0 {
		t.Fatalf("with the local server answering: %q, %d starts", got, starts)
	}
	s := newServer(false)
	for range 3 {
		if got := s.URL(t); got != "own://" {
			t.Fatalf("with nothing answering: %q", got)
		}
	}
	if starts != 1 {
		t.Fatalf("%d starts for three tests, want one", starts)
	}
}
