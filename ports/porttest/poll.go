package porttest

import (
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/ports"
)

// KeyTouches checks ports.APIKeyToucher: one call sets every key's
// last-used time, never moves one back, and skips unknown keys.
func KeyTouches(t *testing.T, s interface {
	Stores
	ports.APIKeyToucher
}) {
	a := newAccount(t, s, "acc", 1000)
	k1, k2 := newKey("key-1", a.ID, t0), newKey("key-2", a.ID, t0)
	noErr(t, s.AddAPIKey(ctxOf(t), k1))
	noErr(t, s.AddAPIKey(ctxOf(t), k2))
	late, early := t0.Add(time.Hour), t0.Add(time.Minute)
	noErr(t, s.TouchAPIKeys(ctxOf(t), map[string]time.Time{k1.ID: late, k2.ID: early, "no-such-key": late}))
	noErr(t, s.TouchAPIKeys(ctxOf(t), map[string]time.Time{k1.ID: early})) // older: ignored
	for _, c := range []struct {
		hash string
		want time.Time
	}{{k1.Hash, late}, {k2.Hash, early}} {
		got, _, err := s.APIKeyByHash(ctxOf(t), c.hash)
		noErr(t, err)
		if got.LastUsedAt == nil || !sameTime(*got.LastUsedAt, c.want) {
			t.Fatalf("key %s last used %v, want %v", got.ID, got.LastUsedAt, c.want)
		}
	}
}
