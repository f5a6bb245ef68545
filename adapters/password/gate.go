package password

import (
	"context"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// Defaults of Gate (docs/security.md).
const (
	// DefaultMemoryBudget is the memory all hashes running at once may use:
	// four hashes at the default 64 MiB. Without a bound, 32 concurrent
	// sign-ups took a server from 182 MB to 4.1 GB.
	DefaultMemoryBudget = 256 << 20
	// DefaultGateWait is how long a hash waits for a slot before it is
	// refused; a hash takes about 130 ms, so this is several rounds.
	DefaultGateWait = 2 * time.Second
)

// Gate is a Hasher that runs at most as many hashes at once as fit in a
// memory budget. A hash that finds no slot within the wait is refused with
// an error wrapping domain.ErrUnavailable (the web answers 503 with
// Retry-After), so a flood of sign-ups or sign-ins costs waiting requests,
// never memory.
type Gate struct {
	h     Hasher
	slots chan struct{}
	wait  time.Duration
}

// NewGate bounds h's hashes to budget bytes (DefaultMemoryBudget when
// zero, at least one hash) and waits at most wait (DefaultGateWait when zero)
// for a slot.
func NewGate(h Hasher, budget int64, wait time.Duration) *Gate {
	if budget <= 0 {
		budget = DefaultMemoryBudget
	}
	if wait <= 0 {
		wait = DefaultGateWait
	}
	return &Gate{h: h, slots: make(chan struct{}, Slots(h.Params, budget)), wait: wait}
}

// Slots is how many hashes with p fit in budget bytes (at least one).
func Slots(p Params, budget int64) int {
	if p.Memory == 0 {
		p = Default
	}
	return max(1, int(budget/(int64(p.Memory)<<10)))
}

// Hash is Hasher.Hash inside the budget.
func (g *Gate) Hash(password string) (string, error) {
	if err := g.acquire(); err != nil {
		return "", err
	}
	defer g.release()
	return g.h.Hash(password)
}

// Verify is Hasher.Verify inside the budget.
func (g *Gate) Verify(hash, password string) (bool, error) {
	if err := g.acquire(); err != nil {
		return false, err
	}
	defer g.release()
	return g.h.Verify(hash, password)
}

// errBusy is the refusal of a hash that found no slot.
var errBusy = fmt.Errorf("password: too many passwords being checked at once: %w", domain.ErrUnavailable)

func (g *Gate) acquire() error {
	select {
	case g.slots <- struct{}{}:
		return nil
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.wait)
	defer cancel()
	select {
	case g.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return errBusy
	}
}

func (g *Gate) release() { <-g.slots }
