package apptest

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

var (
	_ ports.JobDeleter     = (*Store)(nil)
	_ ports.RetentionStore = (*Store)(nil)
)

// DeleteJob removes the job and everything kept of it under the lock,
// keeping fn's tombstone.
func (s *Store) DeleteJob(_ context.Context, id domain.DocID, fn func(*domain.Job, *domain.Account) (domain.Tombstone, []domain.Event, error)) (domain.Job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stored, ok := s.jobs[id]
	if !ok {
		return domain.Job{}, fmt.Errorf("apptest.DeleteJob: job %s: %w", id, domain.ErrNotFound)
	}
	acct, ok := s.accounts[stored.AccountID]
	if !ok {
		return domain.Job{}, fmt.Errorf("apptest.DeleteJob: account %s: %w", stored.AccountID, domain.ErrNotFound)
	}
	j := copyJob(stored)
	tomb, events, err := fn(&j, &acct)
	if err != nil {
		return domain.Job{}, err
	}
	if err := domain.ValidateEvents(events); err != nil {
		return domain.Job{}, fmt.Errorf("apptest.DeleteJob: %w", err)
	}
	acct.ID = stored.AccountID
	s.accounts[acct.ID] = acct
	if s.tombstones == nil {
		s.tombstones = map[domain.DocID]domain.Tombstone{}
	}
	tomb.DocID, tomb.AccountID = stored.ID, stored.AccountID
	s.tombstones[id] = tomb
	delete(s.jobs, id)
	delete(s.analyses, id)
	delete(s.reviews, id)
	delete(s.pieces, id)
	kept := s.deliveries[:0]
	for _, d := range s.deliveries {
		if d.DocID != id {
			kept = append(kept, d)
		}
	}
	s.deliveries = kept
	rows := s.outbox[:0]
	for _, r := range s.outbox {
		if r.doc != id {
			rows = append(rows, r)
		}
	}
	s.outbox = rows
	s.appendOutbox(events)
	return copyJob(stored), nil
}

// GetTombstone returns a deleted job's tombstone.
func (s *Store) GetTombstone(_ context.Context, id domain.DocID) (domain.Tombstone, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tombstones[id]
	if !ok {
		return domain.Tombstone{}, fmt.Errorf("apptest.GetTombstone: %s: %w", id, domain.ErrNotFound)
	}
	return t, nil
}

// SetRetentionDays sets the account's rule; 0 removes it.
func (s *Store) SetRetentionDays(_ context.Context, account domain.AccountID, days int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.accounts[account]; !ok {
		return fmt.Errorf("apptest.SetRetentionDays: account %s: %w", account, domain.ErrNotFound)
	}
	if s.retention == nil {
		s.retention = map[domain.AccountID]int{}
	}
	if days <= 0 {
		delete(s.retention, account)
	} else {
		s.retention[account] = days
	}
	return nil
}

// RetentionDays returns the account's rule, 0 when none is set.
func (s *Store) RetentionDays(_ context.Context, account domain.AccountID) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retention[account], nil
}

// ExpiredJobs lists jobs older than their account's retention, oldest first.
func (s *Store) ExpiredJobs(_ context.Context, now time.Time, limit int) ([]domain.Job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []domain.Job
	for _, j := range s.jobs {
		cutoff, ok := domain.RetentionCutoff(now, s.retention[j.AccountID])
		if ok && j.CreatedAt.Truncate(time.Millisecond).Before(cutoff.Truncate(time.Millisecond)) {
			out = append(out, copyJob(j))
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if !out[a].CreatedAt.Equal(out[b].CreatedAt) {
			return out[a].CreatedAt.Before(out[b].CreatedAt)
		}
		return out[a].ID < out[b].ID
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
