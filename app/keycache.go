package app

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// The key cache and the batched last-used writes of Authenticate: with them
// a poll by a known key asks the store nothing about the key.
//
// A cached key is trusted for KeyTTL after it was read. Revocation through
// this process (Forget) takes effect at once; revocation through any other
// process, within KeyTTL. Unknown keys are not cached: each asks the store.

// maxCachedKeys bounds the cache; past it the cache starts again empty.
const maxCachedKeys = 50_000

// TouchInterval is how often Run writes the collected last-used times.
const TouchInterval = 5 * time.Second

type cachedKey struct {
	key  domain.APIKey
	acct domain.Account
	at   time.Time // when it was read from the store
}

type keyCache struct {
	m sync.Map // key hash → cachedKey
	n atomic.Int64
}

// lookup returns the key with that hash from the cache while it is fresh,
// else from the store.
func (uc *Authenticate) lookup(ctx context.Context, hash string) (domain.APIKey, domain.Account, error) {
	if uc.KeyTTL <= 0 {
		return uc.accounts.APIKeyByHash(ctx, hash)
	}
	now := uc.clock.Now()
	if v, ok := uc.cache.m.Load(hash); ok {
		c := v.(cachedKey)
		if age := now.Sub(c.at); age >= 0 && age < uc.KeyTTL {
			return c.key, c.acct, nil
		}
	}
	key, acct, err := uc.accounts.APIKeyByHash(ctx, hash)
	if err != nil {
		return key, acct, err
	}
	if uc.cache.n.Add(1) > maxCachedKeys {
		uc.cache.m.Clear()
		uc.cache.n.Store(1)
	}
	uc.cache.m.Store(hash, cachedKey{key: key, acct: acct, at: now})
	return key, acct, nil
}

// Forget drops a key from this process's cache: a key revoked here stops
// working here from the next request.
func (uc *Authenticate) Forget(keyID string) {
	uc.cache.m.Range(func(h, v any) bool {
		if v.(cachedKey).key.ID == keyID {
			uc.cache.m.Delete(h)
		}
		return true
	})
}

// touchBatch collects last-used times while Run is running.
type touchBatch struct {
	mu      sync.Mutex
	running bool
	pending map[string]time.Time
}

// add keeps the time for the next write; false when no Run is collecting.
func (b *touchBatch) add(id string, at time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.running {
		return false
	}
	if b.pending == nil {
		b.pending = map[string]time.Time{}
	}
	if at.After(b.pending[id]) {
		b.pending[id] = at
	}
	return true
}

func (b *touchBatch) take() map[string]time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.pending
	b.pending = nil
	return p
}

// Run writes the keys' last-used times in batches, every TouchInterval and
// once more when ctx ends, off the requests' path. Without Run each touch
// is written by the request that makes it.
func (uc *Authenticate) Run(ctx context.Context) error {
	uc.batch.mu.Lock()
	uc.batch.running = true
	uc.batch.mu.Unlock()
	tick := time.NewTicker(TouchInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			uc.batch.mu.Lock()
			uc.batch.running = false
			uc.batch.mu.Unlock()
			flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			uc.Flush(flush)
			cancel()
			return nil
		case <-tick.C:
			uc.Flush(ctx)
		}
	}
}

// Flush writes the collected last-used times now. A failure drops them:
// last-used is informative.
func (uc *Authenticate) Flush(ctx context.Context) {
	p := uc.batch.take()
	if len(p) == 0 {
		return
	}
	if uc.touches != nil {
		_ = uc.touches.TouchAPIKeys(ctx, p)
		return
	}
	for id, at := range p {
		_ = uc.accounts.TouchAPIKey(ctx, id, at)
	}
}
