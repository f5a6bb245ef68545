package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// SavePiece implements ports.RecognizedPieces.
func (s *Store) SavePiece(ctx context.Context, id domain.DocID, key string, rec domain.Recognition, now time.Time) error {
	text, err := sqlstore.EncodeRecognition(rec)
	if err != nil {
		return fmt.Errorf("postgres.SavePiece: %w", err)
	}
	if _, err := s.pool.Exec(ctx, shared.Pieces.Save, string(id), key, text, toMs(now), string(id)); err != nil {
		return fmt.Errorf("postgres.SavePiece: %w", translate(err))
	}
	return nil
}

// DropPieces implements ports.RecognizedPieces.
func (s *Store) DropPieces(ctx context.Context, id domain.DocID) error {
	if _, err := s.pool.Exec(ctx, shared.Pieces.Drop, string(id)); err != nil {
		return fmt.Errorf("postgres.DropPieces: %w", translate(err))
	}
	return nil
}
