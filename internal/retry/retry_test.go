package retry_test

import (
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/internal/retry"
)

func TestWaitsDoubleWithJitterUnderTheCap(t *testing.T) {
	for n, full := range []time.Duration{100, 200, 400, 800, 1000, 1000, 1000} {
		full *= time.Millisecond
		seen := map[time.Duration]bool{}
		for range 200 {
			d := retry.Wait(100*time.Millisecond, time.Second, n+1)
			if d < full/2 || d > full {
				t.Fatalf("retry %d waited %v, want within [%v, %v]", n+1, d, full/2, full)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Errorf("retry %d: no jitter", n+1)
		}
	}
	if d := retry.Wait(time.Hour, 0, 80); d < time.Hour {
		t.Errorf("an uncapped wait overflowed to %v", d)
	}
	if d := retry.Wait(0, time.Second, 3); d != 0 {
		t.Errorf("zero base waited %v", d)
	}
	if d := retry.Wait(time.Minute, time.Second, 1); d < time.Second/2 || d > time.Second {
		t.Errorf("a base above the cap waited %v", d)
	}
}

// A Policy's waits grow along one run of retries and start again after Reset.
func TestPolicyResets(t *testing.T) {
	b := retry.Policy(100*time.Millisecond, 10*time.Second)
	for i, full := range []time.Duration{100, 200, 400} {
		full *= time.Millisecond
		if d := b.NextBackOff(); d < full/2 || d > full {
			t.Fatalf("retry %d waited %v, want within [%v, %v]", i+1, d, full/2, full)
		}
	}
	b.Reset()
	if d := b.NextBackOff(); d < 50*time.Millisecond || d > 100*time.Millisecond {
		t.Fatalf("after Reset waited %v", d)
	}
}
