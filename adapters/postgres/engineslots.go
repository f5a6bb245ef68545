package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// EngineSlots leases the slots of one speech engine to the processes that
// share this database (asr.SlotLeases), so that every worker together
// sends the engine at most its number of requests at once: with two
// workers of 4 requests each, a 4-slot engine no longer gets 8.
//
// A slot is a row of engine_slots (migration 18), leased by a conditional
// update of a free or expired row (FOR UPDATE SKIP LOCKED: concurrent
// takers get different rows). A lease lasts TTL and is renewed every TTL/3
// while its request runs; a process killed mid-request stops renewing, so
// its slots are free again within TTL. Times are the database's clock, the
// one clock every process shares.
type EngineSlots struct {
	s      *Store
	engine string
	slots  int
	ttl    time.Duration
	holder string // this process's leases

	mu   sync.Mutex
	held map[int]bool

	stop chan struct{}
	done chan struct{}
}

// dbNowMs is the database's clock in unix milliseconds.
const dbNowMs = `(extract(epoch from clock_timestamp()) * 1000)::bigint`

// EngineSlots makes sure the engine's slots exist and starts renewing this
// process's leases until Close. engine names the engine (its host), slots
// is its number of requests at once, ttl how long a lease outlives a
// process that stopped renewing it.
func (s *Store) EngineSlots(ctx context.Context, engine string, slots int, ttl time.Duration) (*EngineSlots, error) {
	if slots <= 0 || ttl <= 0 {
		return nil, fmt.Errorf("postgres.EngineSlots: slots and ttl must be positive")
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO engine_slots (engine, slot)
		SELECT $1, n FROM generate_series(0, $2 - 1) AS n ON CONFLICT DO NOTHING`, engine, slots); err != nil {
		return nil, fmt.Errorf("postgres.EngineSlots: %w", translate(err))
	}
	b := make([]byte, 8)
	rand.Read(b)
	e := &EngineSlots{s: s, engine: engine, slots: slots, ttl: ttl, holder: hex.EncodeToString(b),
		held: map[int]bool{}, stop: make(chan struct{}), done: make(chan struct{})}
	go e.renew()
	return e, nil
}

// TryAcquire implements asr.SlotLeases: it leases a free slot, if any.
func (e *EngineSlots) TryAcquire(ctx context.Context) (func(), bool, error) {
	var slot int
	err := e.s.pool.QueryRow(ctx, `UPDATE engine_slots SET holder = $3, lease_until = `+dbNowMs+` + $4
		WHERE engine = $1 AND slot = (
			SELECT slot FROM engine_slots
			WHERE engine = $1 AND slot < $2 AND (holder = '' OR lease_until <= `+dbNowMs+`)
			ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING slot`, e.engine, e.slots, e.holder, e.ttl.Milliseconds()).Scan(&slot)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("postgres.EngineSlots.TryAcquire: %w", translate(err))
	}
	e.mu.Lock()
	e.held[slot] = true
	e.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { e.release(slot) }) }, true, nil
}

// release frees the slot; if that fails, the lease runs out within TTL (it
// is no longer renewed).
func (e *EngineSlots) release(slot int) {
	e.mu.Lock()
	delete(e.held, slot)
	e.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := e.s.pool.Exec(ctx, `UPDATE engine_slots SET holder = '', lease_until = 0
		WHERE engine = $1 AND slot = $2 AND holder = $3`, e.engine, slot, e.holder); err != nil {
		e.s.logger.Warn("release a speech engine slot; its lease runs out instead", "engine", e.engine, "slot", slot, "err", err)
	}
}

func (e *EngineSlots) renew() {
	defer close(e.done)
	t := time.NewTicker(e.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
		}
		e.mu.Lock()
		held := make([]int32, 0, len(e.held))
		for s := range e.held {
			held = append(held, int32(s))
		}
		e.mu.Unlock()
		if len(held) == 0 {
			continue
		}
		slices.Sort(held)
		ctx, cancel := context.WithTimeout(context.Background(), e.ttl/3)
		_, err := e.s.pool.Exec(ctx, `UPDATE engine_slots SET lease_until = `+dbNowMs+` + $3
			WHERE engine = $1 AND holder = $2 AND slot = ANY($4)`, e.engine, e.holder, e.ttl.Milliseconds(), held)
		cancel()
		if err != nil {
			e.s.logger.Warn("renew the speech engine's slot leases", "engine", e.engine, "err", err)
		}
	}
}

// InUse counts the engine's slots leased now, by every process.
func (e *EngineSlots) InUse(ctx context.Context) (int, error) {
	var n int
	err := e.s.pool.QueryRow(ctx, `SELECT count(*) FROM engine_slots
		WHERE engine = $1 AND slot < $2 AND holder <> '' AND lease_until > `+dbNowMs, e.engine, e.slots).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("postgres.EngineSlots.InUse: %w", translate(err))
	}
	return n, nil
}

// Close stops renewing and frees the slots still held (their requests are
// over: Close comes after the stage stopped).
func (e *EngineSlots) Close() {
	close(e.stop)
	<-e.done
	e.mu.Lock()
	held := make([]int, 0, len(e.held))
	for s := range e.held {
		held = append(held, s)
	}
	e.mu.Unlock()
	for _, s := range held {
		e.release(s)
	}
}
