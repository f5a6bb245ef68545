package asr

import (
	"context"
	"sync"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// Scheduler hands a speech engine's slots to the requests waiting for one,
// fairly: when a slot frees, the account with the fewest requests at the
// engine goes next (of equal ones, the one served least recently); within
// it, its job with the fewest; within the job, its longest piece. So one
// account's hour-long recording cannot hold every slot while another
// account's one-minute calls queue behind it, two jobs of one account share
// its part, and the pieces of one recording go longest first (its last
// piece to finish is a short one).
//
// One slot may be held back for a moment: the last free slot does not go
// to an account already at its fair share (slots over the accounts active
// now or within ReserveFor) while another recently active account holds
// less than its share and waits for nothing, until ReserveFor has passed
// since that account was last seen. Non-preemptive slots otherwise make a
// call that arrives while one account's pieces fill the engine wait for
// the first of them to end (up to a piece's time: half its own, for a
// one-minute call behind 30 s pieces); held back, the slot is there when
// the call comes. An account alone, or several with work waiting, use
// every slot.
//
// The slots are the engine's: Slots bounds the requests in flight from this
// process, and Leases, when set, bounds them across every process that
// sends to the engine (a lease is taken before a slot is granted, so the
// choice of who goes next is made when the engine can take the request).
type Scheduler struct {
	slots      int
	leases     SlotLeases
	now        func() time.Time
	reserveFor time.Duration

	mu       sync.Mutex
	inFlight int
	waiting  int
	seq      uint64 // grants and arrivals, in order
	accounts map[domain.AccountID]*accountQueue
	leasing  bool                           // a goroutine is taking a lease for the next grant
	seen     map[domain.AccountID]time.Time // when each account last asked or gave back
	wakeAt   time.Time                      // a dispatch is due then (a held-back slot's end)
	// stopLease cancels the leasing goroutine's wait for a lease, when no request
	// is left to take one for; nil when none runs or it was stopped.
	stopLease context.CancelFunc

	// Busy accounting (see Stats).
	last          time.Time
	slotSeconds   float64 // slot-seconds in use
	waitSeconds   float64 // wall seconds during which a request waited
	busyWhileWait float64 // slot-seconds in use while a request waited
	granted       uint64
	ratioMark     [2]float64 // Waited and BusyWhileWaiting at the last BusyRatio
}

// SlotLeases bounds the requests in flight to one engine across every
// process that shares it (adapters that keep leases in a shared store).
type SlotLeases interface {
	// TryAcquire takes a free slot of the engine, if one is free now. The
	// lease lasts until released, or until its holder stops renewing it (a
	// process killed with its requests in flight gives its slots back).
	TryAcquire(ctx context.Context) (release func(), ok bool, err error)
}

// leaseRetry is how often a process whose every lease attempt found the
// engine's slots taken by other processes tries again.
const leaseRetry = 25 * time.Millisecond

type accountQueue struct {
	inFlight  int
	lastGrant uint64
	waiting   int
	jobs      map[domain.DocID]*jobQueue
}

type jobQueue struct {
	inFlight  int
	lastGrant uint64
	waiters   []*waiter
}

type waiter struct {
	seconds float64
	seq     uint64
	ready   chan struct{} // closed when granted
	release func()        // the lease, when Leases is set
}

// DefaultReserveFor is how long a slot is held back for an account seen
// recently (see Scheduler): longer than the gap between one account's
// calls that arrive every few seconds.
const DefaultReserveFor = 3 * time.Second

// NewScheduler schedules slots requests at once; leases may be nil;
// reserveFor ≤ 0 holds no slot back.
func NewScheduler(slots int, leases SlotLeases, reserveFor time.Duration) *Scheduler {
	return &Scheduler{slots: max(slots, 1), leases: leases, now: time.Now, reserveFor: reserveFor,
		accounts: map[domain.AccountID]*accountQueue{}, seen: map[domain.AccountID]time.Time{}}
}

// Acquire waits for a slot for one request of job of account whose audio
// is seconds long, and returns the function that gives the slot back. It
// fails only when ctx ends first.
func (s *Scheduler) Acquire(ctx context.Context, account domain.AccountID, job domain.DocID, seconds float64) (func(), error) {
	s.mu.Lock()
	s.tick()
	s.seen[account] = s.now()
	s.seq++
	w := &waiter{seconds: seconds, seq: s.seq, ready: make(chan struct{})}
	a := s.accounts[account]
	if a == nil {
		a = &accountQueue{jobs: map[domain.DocID]*jobQueue{}}
		s.accounts[account] = a
	}
	j := a.jobs[job]
	if j == nil {
		j = &jobQueue{}
		a.jobs[job] = j
	}
	j.waiters = append(j.waiters, w)
	a.waiting++
	s.waiting++
	s.dispatch()
	s.mu.Unlock()

	select {
	case <-w.ready:
		return func() { s.release(account, job, w) }, nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	select {
	case <-w.ready: // granted meanwhile: give it back
		s.mu.Unlock()
		s.release(account, job, w)
	default:
		s.tick()
		for i, x := range j.waiters {
			if x == w {
				j.waiters = append(j.waiters[:i], j.waiters[i+1:]...)
				break
			}
		}
		a.waiting--
		s.waiting--
		s.forget(account, job)
		if s.waiting == 0 && s.stopLease != nil {
			s.stopLease() // nobody left to take a lease for
			s.stopLease = nil
		}
		s.mu.Unlock()
	}
	return nil, ctx.Err()
}

func (s *Scheduler) release(account domain.AccountID, job domain.DocID, w *waiter) {
	if w.release != nil {
		w.release()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick()
	now := s.now()
	s.seen[account] = now
	if len(s.seen) > 256 { // accounts gone quiet: forgotten now and then
		for k, at := range s.seen {
			if s.accounts[k] == nil && now.Sub(at) >= s.reserveFor {
				delete(s.seen, k)
			}
		}
	}
	s.inFlight--
	a := s.accounts[account]
	a.inFlight--
	a.jobs[job].inFlight--
	s.forget(account, job)
	s.dispatch()
}

// forget drops the queues of a job and an account with nothing left.
func (s *Scheduler) forget(account domain.AccountID, job domain.DocID) {
	a := s.accounts[account]
	if j := a.jobs[job]; j.inFlight == 0 && len(j.waiters) == 0 {
		delete(a.jobs, job)
	}
	if len(a.jobs) == 0 {
		delete(s.accounts, account)
	}
}

// dispatch grants free slots to waiting requests. Called with s.mu held.
func (s *Scheduler) dispatch() {
	for s.waiting > 0 && s.inFlight < s.slots {
		if s.holdBack() {
			return
		}
		if s.leases == nil {
			s.grant(nil)
			continue
		}
		if !s.leasing {
			s.leasing = true
			ctx, cancel := context.WithCancel(context.Background())
			s.stopLease = cancel
			go s.lease(ctx, cancel)
		}
		return
	}
}

// lease takes a lease of the shared engine for the next grant, trying again
// every leaseRetry while other processes hold every slot, and grants it to
// whoever is next when it is taken. ctx ends when the last waiting request
// gave up: the wait between tries, or a try in flight, stops at once.
func (s *Scheduler) lease(ctx context.Context, cancel context.CancelFunc) {
	defer cancel()
	retry := time.NewTimer(leaseRetry)
	defer retry.Stop()
	for {
		s.mu.Lock()
		if s.waiting == 0 || s.inFlight >= s.slots || ctx.Err() != nil {
			s.leasing = false
			if ctx.Err() != nil {
				// A request may have come after the stop: a new
				// goroutine takes the lease for it.
				s.dispatch()
			}
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		release, ok, err := s.leases.TryAcquire(ctx)
		if err != nil || !ok {
			retry.Reset(leaseRetry)
			select {
			case <-retry.C:
			case <-ctx.Done():
			}
			continue
		}
		s.mu.Lock()
		if s.waiting == 0 || s.inFlight >= s.slots || s.holdBack() {
			s.leasing = false
			s.mu.Unlock()
			release()
			return
		}
		s.grant(release)
		s.mu.Unlock()
	}
}

// nextAccount is the account whose request goes next. Called with s.mu
// held and a request waiting.
func (s *Scheduler) nextAccount() (domain.AccountID, *accountQueue) {
	var id domain.AccountID
	var a *accountQueue
	for k, x := range s.accounts {
		if x.waiting > 0 && (a == nil || x.inFlight < a.inFlight || x.inFlight == a.inFlight && x.lastGrant < a.lastGrant) {
			id, a = k, x
		}
	}
	return id, a
}

// holdBack reports whether the last free slot is kept for a recently
// active account (see Scheduler), and arranges a dispatch for when it is
// no longer. Called with s.mu held and a request waiting.
func (s *Scheduler) holdBack() bool {
	if s.reserveFor <= 0 || s.slots-s.inFlight != 1 || s.slots < 2 {
		return false
	}
	now := s.now()
	active := 0
	for k, at := range s.seen {
		if s.accounts[k] == nil && now.Sub(at) >= s.reserveFor {
			delete(s.seen, k) // idle for long: no longer active
			continue
		}
		active++
	}
	if active < 2 {
		return false
	}
	share := float64(s.slots) / float64(active)
	next, a := s.nextAccount()
	if float64(a.inFlight+1) <= share {
		return false
	}
	var until time.Time
	for k, at := range s.seen {
		b := s.accounts[k]
		if k == next || b != nil && (b.waiting > 0 || float64(b.inFlight) >= share) {
			continue
		}
		if end := at.Add(s.reserveFor); end.After(now) && end.After(until) {
			until = end
		}
	}
	if until.IsZero() {
		return false
	}
	if s.wakeAt.Before(now) || until.Before(s.wakeAt) {
		s.wakeAt = until
		time.AfterFunc(until.Sub(now), func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.tick()
			s.dispatch()
		})
	}
	return true
}

// grant gives a slot to the next request in fair order. Called with s.mu
// held and a request waiting.
func (s *Scheduler) grant(release func()) {
	_, a := s.nextAccount()
	var j *jobQueue
	for _, x := range a.jobs {
		if len(x.waiters) == 0 {
			continue
		}
		if j == nil || x.inFlight < j.inFlight || x.inFlight == j.inFlight && (x.lastGrant < j.lastGrant || x.lastGrant == j.lastGrant && x.waiters[0].seq < j.waiters[0].seq) {
			j = x
		}
	}
	k := 0
	for i, w := range j.waiters {
		if w.seconds > j.waiters[k].seconds {
			k = i
		}
	}
	w := j.waiters[k]
	j.waiters = append(j.waiters[:k], j.waiters[k+1:]...)
	s.seq++
	a.lastGrant, j.lastGrant = s.seq, s.seq
	a.waiting--
	s.waiting--
	a.inFlight++
	j.inFlight++
	s.inFlight++
	s.granted++
	w.release = release
	close(w.ready)
}

// tick adds the time since the last change to the busy accounting. Called
// with s.mu held, before any change of inFlight or waiting.
func (s *Scheduler) tick() {
	now := s.now()
	if !s.last.IsZero() {
		d := now.Sub(s.last).Seconds()
		s.slotSeconds += d * float64(s.inFlight)
		if s.waiting > 0 {
			s.waitSeconds += d
			s.busyWhileWait += d * float64(s.inFlight)
		}
	}
	s.last = now
}

// SchedulerStats is what a Scheduler did since it started.
type SchedulerStats struct {
	Slots    int     // requests at once
	InFlight int     // requests at the engine now
	Queued   int     // requests waiting for a slot now
	Granted  uint64  // slots granted
	Busy     float64 // slot-seconds in use
	// Waited is the wall seconds during which some request waited for a
	// slot, and BusyWhileWaiting the slot-seconds in use meanwhile: their
	// ratio (BusyWhileWaiting / (Slots × Waited)) is how busy the engine
	// was kept while work waited, 1 when no slot ever stood idle then.
	Waited           float64
	BusyWhileWaiting float64
}

// Stats reports the scheduler's figures.
func (s *Scheduler) Stats() SchedulerStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick()
	return SchedulerStats{Slots: s.slots, InFlight: s.inFlight, Queued: s.waiting, Granted: s.granted,
		Busy: s.slotSeconds, Waited: s.waitSeconds, BusyWhileWaiting: s.busyWhileWait}
}

// BusyRatio is how busy the engine's slots were kept while requests waited
// for one, since the previous call: 1 when no slot stood idle while work
// waited (or when nothing waited). It is the figure a scrape of /metrics
// reads; over a longer span, the totals of Stats give it.
func (s *Scheduler) BusyRatio() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick()
	waited, busy := s.waitSeconds-s.ratioMark[0], s.busyWhileWait-s.ratioMark[1]
	s.ratioMark = [2]float64{s.waitSeconds, s.busyWhileWait}
	if waited <= 0 {
		return 1
	}
	return min(busy/(waited*float64(s.slots)), 1)
}
