//go:build !linux

package cli

// freeSpace is not measured here: readiness does not report space.
func freeSpace(string) (uint64, bool) { return 0, false }
