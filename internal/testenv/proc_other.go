//go:build !linux

package testenv

import "os/exec"

// dieWithParent has no portable equivalent: elsewhere the server is
// stopped by the test's cleanup only.
func dieWithParent(*exec.Cmd) {}
