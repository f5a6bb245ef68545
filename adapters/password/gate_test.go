package password

import (
	"errors"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

func TestGateSlotsFollowTheMemoryBudget(t *testing.T) {
	for _, c := range []struct {
		p      Params
		budget int64
		want   int
	}{
		{Params{}, DefaultMemoryBudget, 4}, // the default 64 MiB
		{Default, 64 << 20, 1},
		{Default, 10 << 20, 1}, // never none
		{Params{Memory: 1024, Time: 1, Threads: 1}, 8 << 20, 8},
	} {
		if got := Slots(c.p, c.budget); got != c.want {
			t.Errorf("Slots(%+v, %d MiB) = %d, want %d", c.p, c.budget>>20, got, c.want)
		}
	}
}

func TestGateRefusesWhenFullAndServesWhenFreed(t *testing.T) {
	g := NewGate(Hasher{Params: Params{Memory: 1024, Time: 1, Threads: 1}}, 1024<<10, 50*time.Millisecond)
	hash, err := g.Hash("a long enough password")
	if err != nil {
		t.Fatal(err)
	}
	g.slots <- struct{}{} // the one slot is taken
	if _, err := g.Hash("x"); !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("Hash with no slot: %v, want domain.ErrUnavailable", err)
	}
	if _, err := g.Verify(hash, "x"); !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("Verify with no slot: %v, want domain.ErrUnavailable", err)
	}
	g.wait = time.Minute // the bound of this wait, not its length
	freed := time.AfterFunc(10*time.Millisecond, g.release)
	defer freed.Stop()
	if ok, err := g.Verify(hash, "a long enough password"); !ok || err != nil {
		t.Fatalf("Verify once a slot was freed within the wait: %v, %v", ok, err)
	}
}
