package mp3

import "golang.org/x/sys/unix"

// limitMemory bounds the address space of process pid. It is set just
// after the process starts and before any byte of the recording is written
// to it, so the bound holds for all of the decoding. A failure leaves the
// process unbounded but working, so it is not an error.
func limitMemory(pid int, bytes uint64) {
	_ = unix.Prlimit(pid, unix.RLIMIT_AS, &unix.Rlimit{Cur: bytes, Max: bytes}, nil)
}
