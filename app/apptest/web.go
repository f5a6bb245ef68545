package apptest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
	"github.com/hyscribe/hyscribe/ports/porttest"
)

// Page sizes of ListJobs, as in the SQL stores.
const (
	defaultPageSize = 50
	maxPageSize     = 500
)

// ListJobs returns one page of the account's jobs matching q in q.Sort's
// order (ties by creation time, then ID), and how many match in all.
// Search compares the folded title, transcription, metadata values and
// file name (domain.SearchText), as the SQL stores do.
func (s *Store) ListJobs(_ context.Context, q ports.JobQuery) ([]ports.ListedJob, int, error) {
	if q.Account == "" {
		return nil, 0, errors.New("apptest.ListJobs: no account")
	}
	search := domain.FoldSearch(q.Search)
	s.mu.Lock()
	defer s.mu.Unlock()
	type row struct {
		j     domain.Job
		score float64
		key   domain.HistoryKey
	}
	var matched []row
	total := 0 // without the keyset's bound: every page tells the same total
	for _, j := range s.jobs {
		score := float64(domain.NoValue)
		a, analysed := s.analyses[j.ID]
		if analysed && a.ListScore != nil {
			score = *a.ListScore
		}
		value := score
		if q.Sort.Field() == domain.FieldDuration {
			value = domain.NoValue
			if d := j.Duration(); d != nil {
				value = *d
			}
		}
		key := domain.KeyOf(q.Sort, value, j.CreatedAt, j.ID)
		listed := q.After.IsZero() || q.Sort.Before(q.After, key)
		if q.Back {
			listed = q.After.IsZero() || q.Sort.Before(key, q.After)
		}
		switch {
		case j.AccountID != q.Account,
			q.Status != "" && j.Status != q.Status,
			q.Type != "" && j.Type != q.Type,
			q.ChecklistID != "" && j.ChecklistID != q.ChecklistID,
			!q.From.IsZero() && j.CreatedAt.Before(q.From),
			!q.To.IsZero() && !j.CreatedAt.Before(q.To),
			q.ScoreFrom != nil && (score < 0 || score < *q.ScoreFrom),
			q.ScoreUnder != nil && (score < 0 || score >= *q.ScoreUnder && *q.ScoreUnder < 1),
			q.AgentKey != "" && domain.MetadataValue(j.Metadata, q.AgentKey) != q.Agent,
			q.NeedsReview && !(analysed && a.Status == domain.AnalysisOK && !s.reviewCurrent(j.ID, a)),
			q.NeedsSpeakerNames && !domain.NeedsSpeakerNames(s.analyses[j.ID].Results),
			search != "" && !strings.Contains(shownSearchText(j), search):
			continue
		}
		total++
		if listed {
			matched = append(matched, row{j, score, key})
		}
	}
	sort.Slice(matched, func(a, b int) bool { return q.Sort.Before(matched[a].key, matched[b].key) })
	limit := q.Limit
	if limit <= 0 {
		limit = defaultPageSize
	}
	limit = min(limit, maxPageSize)
	from := min(max(q.Offset, 0), len(matched))
	page := matched[from:min(from+limit, len(matched))]
	if q.Back {
		page = matched[max(len(matched)-limit, 0):]
	}
	out := make([]ports.ListedJob, len(page))
	for i, r := range page {
		out[i] = porttest.Listing(r.j, q.Search)
		out[i].Score = r.score
	}
	return out, total, nil
}

// AnalysesByDocs returns the analyses of those of docs that are the
// account's and have one.
func (s *Store) AnalysesByDocs(_ context.Context, account domain.AccountID, docs []domain.DocID) (map[domain.DocID]domain.Analysis, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[domain.DocID]domain.Analysis, len(docs))
	for _, doc := range docs {
		if a, ok := s.analyses[doc]; ok && a.AccountID == account {
			out[doc] = copyAnalysis(a)
		}
	}
	return out, nil
}

// ListAnalyses returns the account's analyses of the checklist of calls
// made (jobs created) in [from, to), oldest call first (ties by ID).
func (s *Store) ListAnalyses(_ context.Context, account domain.AccountID, checklistID string, from, to time.Time) ([]domain.CallAnalysis, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []domain.CallAnalysis{}
	for _, a := range s.analyses {
		j, ok := s.jobs[a.DocID]
		if ok && a.AccountID == account && a.ChecklistID == checklistID && !j.CreatedAt.Before(from) && j.CreatedAt.Before(to) {
			out = append(out, domain.CallAnalysis{Analysis: copyAnalysis(a), CallAt: j.CreatedAt, Agent: j.AgentName()})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CallAt.Equal(out[j].CallAt) {
			return out[i].CallAt.Before(out[j].CallAt)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// SignUp saves a new account and its first user, or neither.
func (s *Store) SignUp(_ context.Context, a domain.Account, owner domain.User) error {
	if owner.AccountID != a.ID {
		return fmt.Errorf("apptest.SignUp: user %s names account %q, not the new %s", owner.ID, owner.AccountID, a.ID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.accounts[a.ID]; ok {
		return fmt.Errorf("apptest.SignUp: account %s: %w", a.ID, domain.ErrConflict)
	}
	if err := s.userTaken(owner); err != nil {
		return fmt.Errorf("apptest.SignUp: %w", err)
	}
	s.accounts[a.ID] = a
	s.users[owner.ID] = owner
	return nil
}

// CreateUser saves a user of an existing account.
func (s *Store) CreateUser(_ context.Context, u domain.User) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.userTaken(u); err != nil {
		return fmt.Errorf("apptest.CreateUser: %w", err)
	}
	if _, ok := s.accounts[u.AccountID]; !ok {
		return fmt.Errorf("apptest.CreateUser: account %s: %w", u.AccountID, domain.ErrNotFound)
	}
	s.users[u.ID] = u
	return nil
}

// userTaken is domain.ErrConflict when another user has u's ID, email or
// (non-empty) invitation hash: the unique keys of the SQL stores' table.
// Callers hold mu.
func (s *Store) userTaken(u domain.User) error {
	if _, ok := s.users[u.ID]; ok {
		return fmt.Errorf("user %s: %w", u.ID, domain.ErrConflict)
	}
	return s.uniqueTaken(u)
}

// uniqueTaken checks u's email and invitation hash against every other user.
func (s *Store) uniqueTaken(u domain.User) error {
	for _, e := range s.users {
		if e.ID == u.ID {
			continue
		}
		// As migration 11: a signed-up person holds the address everywhere;
		// invitations hold it only within their account.
		if e.Email == u.Email && (e.AccountID == u.AccountID || (!e.Invited() && !u.Invited())) {
			return fmt.Errorf("email %s: %w", u.Email, domain.ErrConflict)
		}
		if u.InviteHash != "" && e.InviteHash == u.InviteHash {
			return fmt.Errorf("invitation of user %s: %w", u.ID, domain.ErrConflict)
		}
	}
	return nil
}

// FindUser returns the user named by exactly one field of by. A key with no
// field set, or several, is the caller's bug: a plain error, never a match.
func (s *Store) FindUser(_ context.Context, by ports.UserKey) (domain.User, error) {
	set := 0
	for _, v := range []string{by.ID, by.Email, by.InviteHash} {
		if v != "" {
			set++
		}
	}
	if set != 1 {
		return domain.User{}, fmt.Errorf("apptest.FindUser: %d of ID, email and invitation set, want exactly one", set)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var found *domain.User
	for _, u := range s.users {
		if (by.ID != "" && u.ID == by.ID) || (by.Email != "" && u.Email == by.Email) ||
			(by.InviteHash != "" && u.InviteHash == by.InviteHash) {
			// By email, as the SQL stores: the signed-up person first, then
			// the newest invitation.
			if found == nil || (found.Invited() && !u.Invited()) ||
				(found.Invited() == u.Invited() && u.CreatedAt.After(found.CreatedAt)) {
				found = &u
			}
		}
	}
	if found != nil {
		return *found, nil
	}
	return domain.User{}, fmt.Errorf("apptest.FindUser: %w", domain.ErrNotFound)
}

// UpdateUser applies fn to a copy of the user under the lock and keeps it
// only if fn succeeds, returning fn's error unchanged. The user keeps its
// ID and account whatever fn does. fn must not call the store.
func (s *Store) UpdateUser(_ context.Context, id string, fn func(*domain.User) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	stored, ok := s.users[id]
	if !ok {
		return fmt.Errorf("apptest.UpdateUser: user %s: %w", id, domain.ErrNotFound)
	}
	u := stored
	if err := fn(&u); err != nil {
		return err
	}
	u.ID, u.AccountID = stored.ID, stored.AccountID
	if err := s.uniqueTaken(u); err != nil {
		return fmt.Errorf("apptest.UpdateUser: %w", err)
	}
	s.users[id] = u
	return nil
}

// CreateSession saves a session; domain.ErrConflict if its ID exists.
func (s *Store) CreateSession(_ context.Context, sess domain.Session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sessions[sess.ID]; ok {
		return fmt.Errorf("apptest.CreateSession: %w", domain.ErrConflict)
	}
	s.sessions[sess.ID] = sess
	return nil
}

// GetSession returns a session, expired or not.
func (s *Store) GetSession(_ context.Context, id string) (domain.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[id]
	if !ok {
		return domain.Session{}, fmt.Errorf("apptest.GetSession: %w", domain.ErrNotFound)
	}
	return sess, nil
}

// DeleteSession removes a session; an absent one is no error.
func (s *Store) DeleteSession(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, id)
	return nil
}

// ExtendSession sets a session's end; an absent one is no error.
func (s *Store) ExtendSession(_ context.Context, id string, expiresAt time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.sessions[id]; ok {
		sess.ExpiresAt = expiresAt
		s.sessions[id] = sess
	}
	return nil
}

// DeleteExpiredSessions removes sessions that expired at or before now.
func (s *Store) DeleteExpiredSessions(_ context.Context, now time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, sess := range s.sessions {
		if !sess.ExpiresAt.After(now) {
			delete(s.sessions, id)
			n++
		}
	}
	return n, nil
}

// shownSearchText is what the SQL stores' search_text holds: the text
// people may see of the job (domain.Job.Shown).
func shownSearchText(j domain.Job) string {
	j = j.Shown()
	return domain.SearchText(j.Title, j.Transcription, j.Metadata, j.Filename)
}

// ListUsers returns the account's users, oldest first (ties by ID).
func (s *Store) ListUsers(_ context.Context, account domain.AccountID) ([]domain.User, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var us []domain.User
	for _, u := range s.users {
		if u.AccountID == account {
			us = append(us, u)
		}
	}
	sort.Slice(us, func(i, j int) bool {
		if !us[i].CreatedAt.Equal(us[j].CreatedAt) {
			return us[i].CreatedAt.Before(us[j].CreatedAt)
		}
		return us[i].ID < us[j].ID
	})
	return us, nil
}

// DeleteUser removes one of the account's users and their sessions.
func (s *Store) DeleteUser(_ context.Context, account domain.AccountID, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u, ok := s.users[id]; !ok || u.AccountID != account {
		return fmt.Errorf("apptest.DeleteUser %s: %w", id, domain.ErrNotFound)
	}
	delete(s.users, id)
	for k, sess := range s.sessions {
		if sess.UserID == id {
			delete(s.sessions, k)
		}
	}
	return nil
}

// DeleteUserSessions removes the user's sessions but keep.
func (s *Store) DeleteUserSessions(_ context.Context, userID, keep string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, sess := range s.sessions {
		if sess.UserID == userID && k != keep {
			delete(s.sessions, k)
			n++
		}
	}
	return n, nil
}
