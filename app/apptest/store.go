// Package apptest holds in-memory fakes of the ports for the use cases' unit
// tests. The fakes pass the same contract suite (ports/porttest) as the real
// adapters, so a use case that works against them works against a database.
package apptest

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/leasedoutbox"
	"github.com/hyscribe/hyscribe/ports"
)

// Store is an in-memory implementation of every store port (ports.Stores):
// jobs, accounts, checklists, analyses, rate counters, the outbox,
// deliveries, and the web application's users, sessions and listings.
//
// One mutex guards everything, which makes each method atomic and serialises
// UpdateJob and UpdateAccount exactly as a database transaction would. Values
// are deep-copied in and out, so neither a caller nor an update function can
// change stored state except through the store.
//
// Like the SQLite store, it refuses a job, key or checklist whose account
// does not exist (domain.ErrNotFound), so a test that forgets to create the
// account fails here rather than in production.
type Store struct {
	mu         sync.Mutex
	jobs       map[domain.DocID]domain.Job
	accounts   map[domain.AccountID]domain.Account
	keys       []domain.APIKey               // in insertion order
	checklists map[string][]domain.Checklist // every version, oldest first
	analyses   map[domain.DocID]domain.Analysis
	rates      map[rateKey]int
	lastWindow time.Time
	outbox     []outboxRow // in seq order
	nextSeq    int64
	deliveries []domain.Delivery    // in insertion order
	leases     map[string]time.Time // delivery ID → lease end (leases.go)
	users      map[string]domain.User
	sessions   map[string]domain.Session
	written    chan struct{}
	// idempotency is CreateJobOnce's records (idempotency.go), made on first use.
	idempotency map[idempotencyKey]domain.Idempotency
	// Deleted jobs and retention rules (deletion.go); nil until first used.
	tombstones map[domain.DocID]domain.Tombstone
	retention  map[domain.AccountID]int
	// pieces are the recognitions kept per job and piece (pieces.go).
	pieces map[domain.DocID]map[string]domain.Recognition
	// reviews are the calls' latest reviews (review.go); nil until first used.
	reviews map[domain.DocID]domain.Review
}

type rateKey struct {
	key    string
	window int64 // unix nanoseconds: time.Time values with other locations compare equal
}

// outboxRow keeps what the SQLite outbox keeps, the encoded envelope, so
// claimed events come back exactly as a real relay would see them.
type outboxRow struct {
	seq         int64
	topic       string
	doc         domain.DocID
	payload     []byte
	leasedUntil time.Time // zero: never leased
}

// rateRetention is how long past windows are kept before Hit drops them.
const rateRetention = 5 * time.Minute

var _ ports.Stores = (*Store)(nil)

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{
		jobs:       map[domain.DocID]domain.Job{},
		accounts:   map[domain.AccountID]domain.Account{},
		checklists: map[string][]domain.Checklist{},
		analyses:   map[domain.DocID]domain.Analysis{},
		rates:      map[rateKey]int{},
		users:      map[string]domain.User{},
		sessions:   map[string]domain.Session{},
		written:    make(chan struct{}, 1),
	}
}

// CreateJob saves a new job and its events.
func (s *Store) CreateJob(_ context.Context, j domain.Job, events []domain.Event) error {
	if err := domain.ValidateEvents(events); err != nil {
		return fmt.Errorf("apptest.CreateJob: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.jobs[j.ID]; ok {
		return fmt.Errorf("apptest.CreateJob: job %s: %w", j.ID, domain.ErrConflict)
	}
	if _, ok := s.accounts[j.AccountID]; !ok {
		return fmt.Errorf("apptest.CreateJob: account %s: %w", j.AccountID, domain.ErrNotFound)
	}
	s.jobs[j.ID] = copyJob(j)
	s.appendOutbox(events)
	return nil
}

// GetJob returns a job or domain.ErrNotFound.
func (s *Store) GetJob(_ context.Context, id domain.DocID) (domain.Job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[id]
	if !ok {
		return domain.Job{}, fmt.Errorf("apptest.GetJob: job %s: %w", id, domain.ErrNotFound)
	}
	return copyJob(j), nil
}

// GetJobAndAccount reads the job, then its account (ports.ReadJobAndAccount).
func (s *Store) GetJobAndAccount(ctx context.Context, id domain.DocID) (domain.Job, domain.Account, error) {
	return ports.ReadJobAndAccount(ctx, s, s, id)
}

// UpdateJob applies fn to copies of the job and its account under the lock,
// and keeps them only if fn succeeds. fn must not call the store.
func (s *Store) UpdateJob(_ context.Context, id domain.DocID, fn func(*domain.Job, *domain.Account) ([]domain.Event, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	stored, ok := s.jobs[id]
	if !ok {
		return fmt.Errorf("apptest.UpdateJob: job %s: %w", id, domain.ErrNotFound)
	}
	acct, ok := s.accounts[stored.AccountID]
	if !ok {
		return fmt.Errorf("apptest.UpdateJob: account %s: %w", stored.AccountID, domain.ErrNotFound)
	}
	j := copyJob(stored)
	events, err := fn(&j, &acct)
	if err != nil {
		return err // unchanged, as the contract says
	}
	if err := domain.ValidateEvents(events); err != nil {
		return fmt.Errorf("apptest.UpdateJob: %w", err)
	}
	// The row keeps its key whatever fn did to the IDs, as a database would.
	j.ID, j.AccountID, acct.ID = stored.ID, stored.AccountID, stored.AccountID
	s.jobs[id] = copyJob(j)
	s.accounts[acct.ID] = acct
	s.appendOutbox(events)
	return nil
}

// StaleJobs lists jobs whose upload window closed at or before now, and
// processing or converting jobs last updated before stuckBefore, oldest
// (created) first.
func (s *Store) StaleJobs(_ context.Context, now, stuckBefore time.Time, limit int) ([]domain.Job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []domain.Job
	for _, j := range s.jobs {
		expired := j.Status == domain.StatusUploading && !j.UploadExpiresAt.After(now)
		stuck := (j.Status == domain.StatusProcessing || j.Status == domain.StatusConverting) && j.UpdatedAt.Before(stuckBefore)
		if expired || stuck {
			out = append(out, copyJob(j))
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if !out[a].CreatedAt.Equal(out[b].CreatedAt) {
			return out[a].CreatedAt.Before(out[b].CreatedAt)
		}
		return out[a].ID < out[b].ID
	})
	if limit >= 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// CreateAccount saves a new account.
func (s *Store) CreateAccount(_ context.Context, a domain.Account) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.accounts[a.ID]; ok {
		return fmt.Errorf("apptest.CreateAccount: account %s: %w", a.ID, domain.ErrConflict)
	}
	s.accounts[a.ID] = a
	return nil
}

// GetAccount returns an account or domain.ErrNotFound.
func (s *Store) GetAccount(_ context.Context, id domain.AccountID) (domain.Account, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.accounts[id]
	if !ok {
		return domain.Account{}, fmt.Errorf("apptest.GetAccount: account %s: %w", id, domain.ErrNotFound)
	}
	return a, nil
}

// UpdateAccount applies fn to a copy of the account under the lock and keeps
// it only if fn succeeds, returning fn's error unchanged. fn must not call
// the store.
func (s *Store) UpdateAccount(_ context.Context, id domain.AccountID, fn func(*domain.Account) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.accounts[id]
	if !ok {
		return fmt.Errorf("apptest.UpdateAccount: account %s: %w", id, domain.ErrNotFound)
	}
	if err := fn(&a); err != nil {
		return err
	}
	a.ID = id
	s.accounts[id] = a
	return nil
}

// AddAPIKey saves a key. domain.ErrConflict if its ID or hash is taken.
func (s *Store) AddAPIKey(_ context.Context, k domain.APIKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.accounts[k.AccountID]; !ok {
		return fmt.Errorf("apptest.AddAPIKey: account %s: %w", k.AccountID, domain.ErrNotFound)
	}
	for _, e := range s.keys {
		if e.ID == k.ID || e.Hash == k.Hash {
			return fmt.Errorf("apptest.AddAPIKey: key %s: %w", k.ID, domain.ErrConflict)
		}
	}
	s.keys = append(s.keys, copyKey(k))
	return nil
}

// APIKeyByHash returns the key with that hash, revoked or not, and its account.
func (s *Store) APIKeyByHash(_ context.Context, hash string) (domain.APIKey, domain.Account, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range s.keys {
		if k.Hash == hash {
			a, ok := s.accounts[k.AccountID]
			if !ok {
				break
			}
			return copyKey(k), a, nil
		}
	}
	return domain.APIKey{}, domain.Account{}, fmt.Errorf("apptest.APIKeyByHash: %w", domain.ErrNotFound)
}

// TouchAPIKey sets the key's last-used time. It never moves it back (two
// processes' clocks may disagree) and ignores an unknown key: last-used is
// informative only.
func (s *Store) TouchAPIKey(_ context.Context, id string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, k := range s.keys {
		if k.ID == id && (k.LastUsedAt == nil || k.LastUsedAt.Before(at)) {
			s.keys[i].LastUsedAt = &at
		}
	}
	return nil
}

// ListAPIKeys returns the account's keys, newest first; keys created at the
// same instant come last-added first.
func (s *Store) ListAPIKeys(_ context.Context, account domain.AccountID) ([]domain.APIKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []domain.APIKey
	for i := len(s.keys) - 1; i >= 0; i-- {
		if s.keys[i].AccountID == account {
			out = append(out, copyKey(s.keys[i]))
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].CreatedAt.After(out[b].CreatedAt) })
	return out, nil
}

// RevokeAPIKey revokes one of the account's keys. Revoking a revoked key
// keeps the first revocation time.
func (s *Store) RevokeAPIKey(_ context.Context, account domain.AccountID, id string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, k := range s.keys {
		if k.ID == id && k.AccountID == account {
			if k.RevokedAt == nil {
				s.keys[i].RevokedAt = &at
			}
			return nil
		}
	}
	return fmt.Errorf("apptest.RevokeAPIKey: key %s of account %s: %w", id, account, domain.ErrNotFound)
}

// CreateChecklist saves a checklist. domain.ErrConflict if the ID exists in
// any account.
func (s *Store) CreateChecklist(_ context.Context, c domain.Checklist) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.checklists[c.ID]; ok {
		return fmt.Errorf("apptest.CreateChecklist: checklist %s: %w", c.ID, domain.ErrConflict)
	}
	if _, ok := s.accounts[c.AccountID]; !ok {
		return fmt.Errorf("apptest.CreateChecklist: account %s: %w", c.AccountID, domain.ErrNotFound)
	}
	s.checklists[c.ID] = []domain.Checklist{copyChecklist(c)}
	return nil
}

// versions returns the account's checklist versions; nil if none.
func (s *Store) versions(account domain.AccountID, id string) []domain.Checklist {
	vs := s.checklists[id]
	if len(vs) == 0 || vs[0].AccountID != account {
		return nil
	}
	return vs
}

// GetChecklist returns the latest version of the account's checklist;
// another account's is domain.ErrNotFound.
func (s *Store) GetChecklist(_ context.Context, account domain.AccountID, id string) (domain.Checklist, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	vs := s.versions(account, id)
	if vs == nil {
		return domain.Checklist{}, fmt.Errorf("apptest.GetChecklist: checklist %s: %w", id, domain.ErrNotFound)
	}
	return copyChecklist(vs[len(vs)-1]), nil
}

// GetChecklistVersion returns one version of the account's checklist.
func (s *Store) GetChecklistVersion(_ context.Context, account domain.AccountID, id string, version int) (domain.Checklist, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.versions(account, id) {
		if c.Version == version {
			return copyChecklist(c), nil
		}
	}
	return domain.Checklist{}, fmt.Errorf("apptest.GetChecklistVersion: checklist %s v%d: %w", id, version, domain.ErrNotFound)
}

// AddChecklistVersion saves c as the next version of an existing checklist.
func (s *Store) AddChecklistVersion(_ context.Context, c domain.Checklist) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	vs := s.versions(c.AccountID, c.ID)
	if vs == nil {
		return fmt.Errorf("apptest.AddChecklistVersion: checklist %s: %w", c.ID, domain.ErrNotFound)
	}
	if latest := vs[len(vs)-1].Version; c.Version != latest+1 {
		return fmt.Errorf("apptest.AddChecklistVersion: checklist %s: version %d after %d: %w", c.ID, c.Version, latest, domain.ErrConflict)
	}
	s.checklists[c.ID] = append(vs, copyChecklist(c))
	return nil
}

// ListChecklists returns the latest version of each of the account's
// checklists, ordered by ID.
func (s *Store) ListChecklists(_ context.Context, account domain.AccountID) ([]domain.Checklist, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []domain.Checklist{}
	for id := range s.checklists {
		if vs := s.versions(account, id); vs != nil {
			out = append(out, copyChecklist(vs[len(vs)-1]))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// ArchiveChecklist marks every version archived.
func (s *Store) ArchiveChecklist(_ context.Context, account domain.AccountID, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	vs := s.versions(account, id)
	if vs == nil {
		return fmt.Errorf("apptest.ArchiveChecklist: checklist %s: %w", id, domain.ErrNotFound)
	}
	for i := range vs {
		vs[i].Archived = true
	}
	return nil
}

// SaveAnalysis saves the analysis and its events; a second analysis of one
// job is domain.ErrConflict.
func (s *Store) SaveAnalysis(_ context.Context, a domain.Analysis, events []domain.Event) error {
	if err := domain.ValidateEvents(events); err != nil {
		return fmt.Errorf("apptest.SaveAnalysis: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.analyses[a.DocID]; ok {
		return fmt.Errorf("apptest.SaveAnalysis: analysis of %s: %w", a.DocID, domain.ErrConflict)
	}
	if _, gone := s.tombstones[a.DocID]; gone {
		return fmt.Errorf("apptest.SaveAnalysis: job %s deleted: %w", a.DocID, domain.ErrNotFound)
	}
	for _, b := range s.analyses {
		if b.ID == a.ID {
			return fmt.Errorf("apptest.SaveAnalysis: analysis %s: %w", a.ID, domain.ErrConflict)
		}
	}
	if _, ok := s.accounts[a.AccountID]; !ok {
		return fmt.Errorf("apptest.SaveAnalysis: account %s: %w", a.AccountID, domain.ErrNotFound)
	}
	s.analyses[a.DocID] = copyAnalysis(a)
	s.appendOutbox(events)
	return nil
}

// ReplaceAnalysis overwrites the job's analysis a.ID with a and appends
// its events (ports.AnalysisReplacer).
func (s *Store) ReplaceAnalysis(_ context.Context, a domain.Analysis, events []domain.Event) error {
	if err := domain.ValidateEvents(events); err != nil {
		return fmt.Errorf("apptest.ReplaceAnalysis: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, ok := s.analyses[a.DocID]; !ok || cur.ID != a.ID {
		return fmt.Errorf("apptest.ReplaceAnalysis: no analysis %s of %s: %w", a.ID, a.DocID, domain.ErrNotFound)
	}
	s.analyses[a.DocID] = copyAnalysis(a)
	if r, ok := s.reviews[a.DocID]; ok {
		r.Stale = true
		s.reviews[a.DocID] = r
	}
	s.appendOutbox(events)
	return nil
}

// GetAnalysis returns an analysis by ID.
func (s *Store) GetAnalysis(_ context.Context, id string) (domain.Analysis, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.analyses {
		if a.ID == id {
			return copyAnalysis(a), nil
		}
	}
	return domain.Analysis{}, fmt.Errorf("apptest.GetAnalysis: %s: %w", id, domain.ErrNotFound)
}

// AnalysisByDoc returns the job's analysis.
func (s *Store) AnalysisByDoc(_ context.Context, doc domain.DocID) (domain.Analysis, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.analyses[doc]
	if !ok {
		return domain.Analysis{}, fmt.Errorf("apptest.AnalysisByDoc: %s: %w", doc, domain.ErrNotFound)
	}
	return copyAnalysis(a), nil
}

// Hit counts one request for key in window. When a new window appears,
// windows older than rateRetention before it are dropped, as the SQLite
// store does, so a long test run does not grow the map without bound.
func (s *Store) Hit(_ context.Context, key string, window time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if window.After(s.lastWindow) {
		s.lastWindow = window
		cutoff := window.Add(-rateRetention).UnixNano()
		for k := range s.rates {
			if k.window < cutoff {
				delete(s.rates, k)
			}
		}
	}
	k := rateKey{key: key, window: window.UnixNano()}
	s.rates[k]++
	return s.rates[k], nil
}

// ClaimOutbox leases up to limit unsent records in seq order. A record is
// skipped while an earlier record of its doc is leased (there is no claimer
// identity, so any live lease blocks); the skipped ones keep their order for
// the next claim.
func (s *Store) ClaimOutbox(_ context.Context, now time.Time, lease time.Duration, limit int) ([]ports.OutboxRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ports.OutboxRecord
	blocked := map[domain.DocID]bool{}
	until := now.Add(lease)
	for i := range s.outbox {
		if len(out) >= limit {
			break
		}
		r := &s.outbox[i]
		if r.leasedUntil.After(now) {
			blocked[r.doc] = true
			continue
		}
		if blocked[r.doc] {
			continue
		}
		ev, err := domain.ParseEvent(r.topic, r.payload)
		if err != nil {
			return nil, fmt.Errorf("apptest.ClaimOutbox: record %d: %w", r.seq, err)
		}
		out = append(out, ports.OutboxRecord{Seq: r.seq, Event: ev})
	}
	for _, rec := range out {
		i, _ := slices.BinarySearchFunc(s.outbox, rec.Seq, func(r outboxRow, seq int64) int { return cmp.Compare(r.seq, seq) })
		s.outbox[i].leasedUntil = until
	}
	return out, nil
}

// MarkSent removes published records; unknown seqs are ignored.
func (s *Store) MarkSent(_ context.Context, seqs []int64) error {
	if len(seqs) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outbox = slices.DeleteFunc(s.outbox, func(r outboxRow) bool { return slices.Contains(seqs, r.seq) })
	return nil
}

// PublishOutbox leases, as SQLite does (leasedoutbox.Publish).
func (s *Store) PublishOutbox(ctx context.Context, now time.Time, lease time.Duration, limit int, publish func(context.Context, []ports.OutboxRecord) error) (int, error) {
	return leasedoutbox.Publish(ctx, s, now, lease, limit, publish)
}

// OutboxWritten is signalled after every write that added events.
func (s *Store) OutboxWritten() <-chan struct{} { return s.written }

// BeginDelivery saves d as pending, or returns false when its event already
// has a delivery.
func (s *Store) BeginDelivery(_ context.Context, d domain.Delivery) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.deliveries {
		if e.EventID == d.EventID {
			return false, nil
		}
	}
	if _, gone := s.tombstones[d.DocID]; gone {
		return false, nil
	}
	for _, e := range s.deliveries {
		if e.ID == d.ID {
			return false, fmt.Errorf("apptest.BeginDelivery: delivery %s: %w", d.ID, domain.ErrConflict)
		}
	}
	d = copyDelivery(d)
	d.Status = domain.DeliveryPending
	s.deliveries = append(s.deliveries, d)
	return true, nil
}

// FinishDelivery saves the outcome (status, HTTP status, latency, error,
// attempt time) of the delivery with d.ID.
func (s *Store) FinishDelivery(_ context.Context, d domain.Delivery) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.deliveries {
		if e := &s.deliveries[i]; e.ID == d.ID {
			e.Status, e.HTTPStatus, e.LatencyMs, e.Error = d.Status, d.HTTPStatus, d.LatencyMs, d.Error
			e.AttemptedAt = copyTime(d.AttemptedAt)
			return nil
		}
	}
	return fmt.Errorf("apptest.FinishDelivery: delivery %s: %w", d.ID, domain.ErrNotFound)
}

// Deliveries lists a job's deliveries, oldest first.
func (s *Store) Deliveries(_ context.Context, doc domain.DocID) ([]domain.Delivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []domain.Delivery
	for _, d := range s.deliveries {
		if d.DocID == doc {
			out = append(out, copyDelivery(d))
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].CreatedAt.Before(out[b].CreatedAt) })
	return out, nil
}

// appendOutbox adds events in order and signals the relay. Callers hold mu.
func (s *Store) appendOutbox(events []domain.Event) {
	for _, e := range events {
		s.nextSeq++
		s.outbox = append(s.outbox, outboxRow{seq: s.nextSeq, topic: e.Topic, doc: e.DocID, payload: e.Marshal()})
	}
	if len(events) > 0 {
		select {
		case s.written <- struct{}{}:
		default:
		}
	}
}

func copyJob(j domain.Job) domain.Job {
	j.Metadata = slices.Clone(j.Metadata)
	j.Segments = slices.Clone(j.Segments)
	j.Speakers = maps.Clone(j.Speakers)
	if j.Audio != nil {
		a := *j.Audio
		j.Audio = &a
	}
	return j
}

func copyKey(k domain.APIKey) domain.APIKey {
	k.LastUsedAt, k.RevokedAt = copyTime(k.LastUsedAt), copyTime(k.RevokedAt)
	return k
}

func copyChecklist(c domain.Checklist) domain.Checklist {
	c.Questions = slices.Clone(c.Questions)
	for i := range c.Questions {
		c.Questions[i].Expect = slices.Clone(c.Questions[i].Expect)
	}
	return c
}

func copyAnalysis(a domain.Analysis) domain.Analysis {
	results := make(map[string]domain.QuestionResult, len(a.Results))
	for k, r := range a.Results {
		r.Evidence = slices.Clone(r.Evidence)
		for i, e := range r.Evidence {
			if e.Speaker != nil {
				v := *e.Speaker
				r.Evidence[i].Speaker = &v
			}
			if e.Start != nil {
				v := *e.Start
				r.Evidence[i].Start = &v
			}
		}
		results[k] = r
	}
	a.Results = results
	return a
}

func copyDelivery(d domain.Delivery) domain.Delivery {
	d.Payload = slices.Clone(d.Payload)
	d.AttemptedAt = copyTime(d.AttemptedAt)
	return d
}

func copyTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := *t
	return &v
}
