package apptest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// SavePiece keeps rec for the job's piece key while the job exists. It goes
// through JSON, as the SQL stores keep it.
func (s *Store) SavePiece(_ context.Context, id domain.DocID, key string, rec domain.Recognition, _ time.Time) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("apptest.SavePiece: %w", err)
	}
	var kept domain.Recognition
	if err := json.Unmarshal(b, &kept); err != nil {
		return fmt.Errorf("apptest.SavePiece: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.jobs[id]; !ok {
		return nil
	}
	if s.pieces == nil {
		s.pieces = map[domain.DocID]map[string]domain.Recognition{}
	}
	if s.pieces[id] == nil {
		s.pieces[id] = map[string]domain.Recognition{}
	}
	s.pieces[id][key] = kept
	return nil
}

// RecognizedPieces returns the job's kept recognitions by key.
func (s *Store) RecognizedPieces(_ context.Context, id domain.DocID) (map[string]domain.Recognition, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]domain.Recognition{}
	maps.Copy(out, s.pieces[id])
	return out, nil
}

// DropPieces forgets the job's kept recognitions.
func (s *Store) DropPieces(_ context.Context, id domain.DocID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pieces, id)
	return nil
}
