// Package testenv is the one rule a test follows when something it needs
// from outside Go is missing — a server (Postgres, ClickHouse, MinIO), a
// tool (ffmpeg, lame, promtool, kcat), a browser, an npm package: under CI
// (the CI variable set, as .ci/run runs) the test fails, naming what is
// missing and how to install it; on a developer's machine it is skipped
// with the same message. Under CI a test skips only for -short.
//
// It also keeps the servers one test process shares (a throwaway Postgres
// cluster, a ClickHouse server) alive until the package's tests end: such a
// package runs its tests through Main. Test code only: nothing else
// imports it.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// CI reports whether the tests run under CI: the CI variable is set to
// anything but "" or "false" (.ci/run and every CI service set CI=true).
func CI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "false" && v != "0"
}

// Missing stops t for want of a prerequisite: t fails under CI and is
// skipped elsewhere. The message says what is missing and how to get it.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if CI() {
		t.Fatalf("missing prerequisite (CI is set, so this fails rather than skips): %s", msg)
		return
	}
	t.Skipf("missing prerequisite (skipped outside CI, fails under CI=true): %s", msg)
}

// LookPath returns the path of the program name, or stops t through
// Missing with install, how to get it.
func LookPath(t testing.TB, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, "%s is not installed (%s): %v", name, install, err)
	}
	return p
}

// ToolCache is where .ci/deps.sh keeps the tools and npm packages it
// builds outside the work tree: $HYSCRIBE_TOOL_CACHE, else
// $XDG_CACHE_HOME/hyscribe, else ~/.cache/hyscribe.
func ToolCache() string {
	if d := os.Getenv("HYSCRIBE_TOOL_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "hyscribe")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "hyscribe")
}

// Setting returns the value of the variable env (the Makefile sets the
// HYSCRIBE_TEST_* ones), else def: a test run by plain go test finds what
// .ci/deps.sh installed where it installs it.
func Setting(env, def string) string {
	if v := os.Getenv(env); v != "" {
		return v
	}
	return def
}

// RepoRoot is the directory of the module's go.mod, found from the
// working directory (go test runs a package's tests in its directory).
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		// G304: d walks up from the test's own working directory to the module root.
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && isMainModule(b) { //nolint:gosec
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("testenv: no go.mod of the hyscribe module above %s", dir)
		}
	}
}

func isMainModule(gomod []byte) bool {
	const want = "module github.com/hyscribe/hyscribe\n"
	return len(gomod) >= len(want) && string(gomod[:len(want)]) == want
}

var (
	mu     sync.Mutex
	inMain bool
	atExit []func()
)

// Main runs the package's tests and then stops the servers they shared
// (AtExit); a package whose tests may start one has
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
func Main(m *testing.M) int {
	mu.Lock()
	inMain = true
	mu.Unlock()
	code := m.Run()
	mu.Lock()
	fs := atExit
	atExit = nil
	mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
	return code
}

// AtExit has Main call stop once the package's tests have ended. It fails
// t when the package does not run its tests through Main: a server started
// for the whole process would otherwise outlive it.
func AtExit(t testing.TB, stop func()) {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if !inMain {
		t.Fatal("testenv: this package starts a server its tests share; it needs func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }")
	}
	atExit = append(atExit, stop)
}

// NPMModules returns the node_modules directory that holds the npm
// package pkg among those .ci/deps.sh installs for the tests (run with
// Debian's node): in HYSCRIBE_TEST_NPM, else in the tool cache's npm. A
// package that is not there stops t through Missing.
func NPMModules(t testing.TB, pkg string) string {
	t.Helper()
	modules := filepath.Join(Setting("HYSCRIBE_TEST_NPM", filepath.Join(ToolCache(), "npm")), "node_modules")
	if _, err := os.Stat(filepath.Join(modules, pkg, "package.json")); err != nil {
		Missing(t, "npm package %s is not installed in %s (.ci/deps.sh installs it, with Debian's node and npm): %v", pkg, modules, err)
	}
	return modules
}

// Server is a server the tests of one process share: the one the variable
// Env names (one that does not answer then fails the test where it is
// used), else Local when it answers (what .ci/deps.sh starts), else one
// Start starts for the process, stopped by Main.
type Server struct {
	Env, Local string
	Answers    func(url string) error
	// Start starts a server and returns its URL and how to stop it; it
	// may stop t through Missing when what it runs is not installed.
	Start func(t testing.TB) (url string, stop func(), err error)

	mu  sync.Mutex
	url string
	err error
}

// URL returns the server's URL, starting it on first use if need be.
func (s *Server) URL(t testing.TB) string {
	t.Helper()
	if u := os.Getenv(s.Env); u != "" {
		return u
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.url != "" {
		return s.url
	}
	if s.err != nil {
		t.Fatal(s.err) // it would not start for an earlier test
	}
	if s.Answers(s.Local) == nil {
		s.url = s.Local
		return s.url
	}
	u, stop, err := s.Start(t)
	if err != nil {
		s.err = fmt.Errorf("testenv: %s unset, nothing answers at %s, and a server of the tests' own: %w", s.Env, s.Local, err)
		t.Fatal(s.err)
	}
	AtExit(t, stop)
	s.url = u
	return u
}
