package apptest

import (
	"bytes"
	"context"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
)

type idempotencyKey struct {
	account domain.AccountID
	key     string
}

// CreateJobOnce saves j, its events and rec unless the account's key is
// held by a live record, which it returns instead; all under the one lock.
func (s *Store) CreateJobOnce(_ context.Context, rec domain.Idempotency, j domain.Job, events []domain.Event) (domain.Idempotency, bool, error) {
	if err := domain.ValidateEvents(events); err != nil {
		return domain.Idempotency{}, false, fmt.Errorf("apptest.CreateJobOnce: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := idempotencyKey{rec.AccountID, rec.Key}
	if first, ok := s.idempotency[k]; ok && first.Live(rec.CreatedAt) {
		first.Response = bytes.Clone(first.Response)
		return first, false, nil
	}
	if _, ok := s.jobs[j.ID]; ok {
		return domain.Idempotency{}, false, fmt.Errorf("apptest.CreateJobOnce: job %s: %w", j.ID, domain.ErrConflict)
	}
	if _, ok := s.accounts[j.AccountID]; !ok {
		return domain.Idempotency{}, false, fmt.Errorf("apptest.CreateJobOnce: account %s: %w", j.AccountID, domain.ErrNotFound)
	}
	if s.idempotency == nil {
		s.idempotency = map[idempotencyKey]domain.Idempotency{}
	}
	s.jobs[j.ID] = copyJob(j)
	s.appendOutbox(events)
	rec.Response = bytes.Clone(rec.Response)
	s.idempotency[k] = rec
	return rec, true, nil
}
