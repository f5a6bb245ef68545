//go:build !linux

package mp3

// limitMemory does nothing where prlimit(2) does not exist: the service
// runs on Linux (the Dockerfile's image); other systems are developers'.
func limitMemory(pid int, bytes uint64) {}
