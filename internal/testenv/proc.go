package testenv

import (
	"net"
	"os/exec"
	"testing"
)

// Background prepares cmd, a server a test starts, to die with the test
// process even when that process is killed before its cleanups run (a
// panic, go test's -timeout): on Linux the kernel sends it SIGKILL when
// its parent goes.
func Background(cmd *exec.Cmd) { dieWithParent(cmd) }

// FreePort returns a loopback TCP port free at the time of the call.
func FreePort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testenv: a free port: %v", err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}
