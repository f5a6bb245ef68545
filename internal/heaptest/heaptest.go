// Package heaptest measures a test's or benchmark's peak heap: the
// long-recording tests of app and adapters/mp3 and the diarizer's 30-minute
// benchmark share it. Test code only: nothing else imports it.
package heaptest

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// SamplePeak records in peak the largest HeapInuse seen, every 20 ms,
// until stop is called.
func SamplePeak(peak *atomic.Uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	return func() { close(done); wg.Wait() }
}
