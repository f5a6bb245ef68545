package cli_test

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// runBinary runs the built hyscribe with args in an empty data dir and
// returns its exit code and output.
func runBinary(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(hyscribeBinary(t), args...)
	dir := t.TempDir()
	// A database URL nothing listens on: a command that wrongly starts
	// work fails on it instead of succeeding.
	cmd.Env = []string{"HYSCRIBE_DATA_DIR=" + dir, "DATABASE_URL=postgres://nobody@127.0.0.1:1/none?connect_timeout=1", "HYSCRIBE_HTTP_ADDR=127.0.0.1:0"}
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// --help on any command prints that command's help and exits 0, without
// running it (serve --help once started the service, migrate --help ran
// migrations).
func TestEveryCommandHasHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // a line of that command's help
	}{
		{[]string{"--help"}, "hyscribe serve "},
		{[]string{"-h"}, "hyscribe worker --stages"},
		{[]string{"help"}, "hyscribe migrate"},
		{[]string{"serve", "--help"}, "hyscribe serve "},
		{[]string{"serve", "-h"}, "hyscribe serve "},
		{[]string{"api", "-h"}, "hyscribe api "},
		{[]string{"worker", "--help"}, "hyscribe worker --stages"},
		{[]string{"kafka", "--help"}, "joins no consumer group"},
		{[]string{"help"}, "hyscribe kafka "},
		{[]string{"migrate", "--help"}, "hyscribe migrate"},
		{[]string{"account", "--help"}, "hyscribe account update"},
		{[]string{"account", "create", "-h"}, "hyscribe account create --name"},
		{[]string{"checklist", "show", "--help"}, "hyscribe checklist show"},
		{[]string{"user", "invite", "-h"}, "hyscribe user invite"},
		{[]string{"report", "checklist", "--help"}, "hyscribe report checklist"},
		{[]string{"report", "checklist", "-h"}, "--to is exclusive: the days from --from up to but not including --to"},
		{[]string{"report", "reviews", "-h"}, "agreement per question, machine and reviewed scores"},
		{[]string{"job", "show", "--help"}, "hyscribe job show --doc"},
		{[]string{"version", "--help"}, "hyscribe version"},
	} {
		code, out, errOut := runBinary(t, tc.args...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("hyscribe %v: exit %d, stdout %q, stderr %q; want exit 0 and %q", tc.args, code, out, errOut, tc.want)
		}
		if len(tc.args) > 1 && tc.args[0] != "help" && strings.Contains(out, "hyscribe user create") && tc.args[0] != "user" {
			t.Errorf("hyscribe %v printed every command's help, not its own:\n%s", tc.args, out)
		}
	}
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "version"} {
		code, out, errOut := runBinary(t, arg)
		if code != 0 {
			t.Fatalf("hyscribe %s: exit %d: %s", arg, code, errOut)
		}
		if !regexp.MustCompile(`(?m)^hyscribe \S+\ncommit: ([0-9a-f]{40}|unknown)( \(modified\))?\ngo: go\d`).MatchString(out) {
			t.Errorf("hyscribe %s printed %q", arg, out)
		}
		if !strings.Contains(out, "go: "+runtime.Version()) {
			t.Errorf("hyscribe %s: %q does not name the Go version %s", arg, out, runtime.Version())
		}
	}
}

// A release build without .git (the Dockerfile's) sets the version and
// commit at link time; go build in a work tree with VCS stamping on records
// the commit itself (GOFLAGS=-buildvcs=false turns that off).
func TestVersionNamesTheCommit(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	// The flags are the Makefile's own (make -n prints its build line),
	// so a build target that stopped stamping the version fails here.
	dry, err := exec.Command("make", "-s", "-n", "-C", "../../..", "build", "VERSION=v9.8.7", "COMMIT="+rev).Output()
	if err != nil {
		t.Fatalf("make -n build: %v", err)
	}
	m := regexp.MustCompile(`-ldflags="([^"]*)"`).FindSubmatch(dry)
	if m == nil {
		t.Fatalf("make build passes no -ldflags: %s", dry)
	}
	bin := filepath.Join(t.TempDir(), "hyscribe")
	build := exec.Command("go", "build", "-ldflags", string(m[1]), "-o", bin, "github.com/hyscribe/hyscribe/cmd/hyscribe")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "hyscribe v9.8.7\ncommit: " + rev + "\ngo: " + runtime.Version() + "\n"; string(out) != want {
		t.Errorf("hyscribe version printed %q, want %q", out, want)
	}
}
