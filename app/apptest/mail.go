package apptest

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// MailOutbox is an in-memory ports.MailOutbox.
type MailOutbox struct {
	mu      sync.Mutex
	letters map[string]domain.Letter
	leases  map[string]time.Time
}

// NewMailOutbox returns an empty mail outbox.
func NewMailOutbox() *MailOutbox {
	return &MailOutbox{letters: map[string]domain.Letter{}, leases: map[string]time.Time{}}
}

// AddLetter implements ports.MailOutbox.
func (m *MailOutbox) AddLetter(_ context.Context, l domain.Letter) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.letters[l.ID]; ok {
		return domain.ErrConflict
	}
	m.letters[l.ID] = l
	return nil
}

// LeaseLetters implements ports.MailOutbox.
func (m *MailOutbox) LeaseLetters(_ context.Context, now, until time.Time, limit int) ([]domain.Letter, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []domain.Letter
	for id, l := range m.letters {
		lease, leased := m.leases[id]
		if l.Status == domain.LetterPending && !l.NextAt.After(now) && (!leased || !lease.After(now)) {
			out = append(out, l)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	if len(out) > limit {
		out = out[:limit]
	}
	for _, l := range out {
		m.leases[l.ID] = until
	}
	return out, nil
}

// FinishLetter implements ports.MailOutbox.
func (m *MailOutbox) FinishLetter(_ context.Context, l domain.Letter, leasedUntil time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if lease, ok := m.leases[l.ID]; !ok || !lease.Equal(leasedUntil) {
		return false, nil
	}
	delete(m.leases, l.ID)
	m.letters[l.ID] = l
	return true, nil
}

// Letters returns every letter, for tests to inspect.
func (m *MailOutbox) Letters() []domain.Letter {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]domain.Letter, 0, len(m.letters))
	for _, l := range m.letters {
		out = append(out, l)
	}
	return out
}
