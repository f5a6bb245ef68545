package apptest

import (
	"context"
	"fmt"
	"maps"

	"github.com/hyscribe/hyscribe/domain"
)

// ReviewAnalysis applies fn to the job's analysis and review and saves the
// review and fn's events (ports.ReviewStore); the store's one lock makes it
// atomic.
func (s *Store) ReviewAnalysis(_ context.Context, doc domain.DocID, fn func(domain.Analysis, *domain.Review) (*domain.Review, []domain.Event, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.analyses[doc]
	if !ok {
		return fmt.Errorf("apptest.ReviewAnalysis: no analysis of %s: %w", doc, domain.ErrNotFound)
	}
	var prev *domain.Review
	if r, ok := s.reviews[doc]; ok {
		r = copyReview(r)
		prev = &r
	}
	r, events, err := fn(copyAnalysis(a), prev)
	if err != nil || r == nil {
		return err
	}
	if err := domain.ValidateEvents(events); err != nil {
		return fmt.Errorf("apptest.ReviewAnalysis: %w", err)
	}
	if s.reviews == nil {
		s.reviews = map[domain.DocID]domain.Review{}
	}
	kept := copyReview(*r)
	kept.DocID, kept.AccountID = doc, a.AccountID
	kept.ListScore = nil // not part of the stored review (sqlstore's reviewBody)
	s.reviews[doc] = kept
	if r.Current(a) {
		// A current review's score is the call's in the history, as the
		// SQL stores write list_score (sqlstore.ModifyReview); a
		// re-analysis (ReplaceAnalysis) brings the machine's back.
		a = copyAnalysis(a)
		a.ListScore = nil
		if r.ListScore != nil {
			v := *r.ListScore
			a.ListScore = &v
		}
		s.analyses[doc] = a
	}
	s.appendOutbox(events)
	return nil
}

// ReviewOf returns the job's latest review (ports.ReviewStore).
func (s *Store) ReviewOf(_ context.Context, doc domain.DocID) (domain.Review, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.reviews[doc]
	if !ok {
		return domain.Review{}, fmt.Errorf("apptest.ReviewOf: no review of %s: %w", doc, domain.ErrNotFound)
	}
	return copyReview(r), nil
}

func copyReview(r domain.Review) domain.Review {
	r.Answers = maps.Clone(r.Answers)
	return r
}

// reviewCurrent reports whether the call's latest review reviews a as it
// is (not gone stale by a re-analysis); s.mu is held.
func (s *Store) reviewCurrent(doc domain.DocID, a domain.Analysis) bool {
	r, ok := s.reviews[doc]
	return ok && r.Current(a)
}
