// Package eventually waits in tests for a condition that other goroutines,
// processes or servers make true, polling it until a deadline: what a test
// uses instead of sleeping for a time that "should be enough".
package eventually

import (
	"testing"
	"time"
)

// Interval is how often a condition is checked again.
const Interval = 10 * time.Millisecond

// True waits until cond returns true, checking it every Interval, and fails
// the test with what when within passes first.
func True(tb testing.TB, within time.Duration, what string, cond func() bool) {
	tb.Helper()
	Holds(tb, within, what, func() (bool, string) { return cond(), "" })
}

// Holds is True for a condition that also says what it saw, which the
// failure reports (the last answer before the deadline).
func Holds(tb testing.TB, within time.Duration, what string, cond func() (bool, string)) {
	tb.Helper()
	Every(tb, Interval, within, what, cond)
}

// Every is Holds checking every interval: slower for a condition that costs
// a request to a rate-limited API or a process's log to read.
func Every(tb testing.TB, interval, within time.Duration, what string, cond func() (bool, string)) {
	tb.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		ok, saw := cond()
		if ok {
			return
		}
		select {
		case <-deadline.C:
			if saw != "" {
				tb.Fatalf("timed out after %v waiting for %s; last saw: %s", within, what, saw)
			}
			tb.Fatalf("timed out after %v waiting for %s", within, what)
		case <-tick.C:
		}
	}
}
