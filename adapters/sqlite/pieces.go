package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// SavePiece implements ports.RecognizedPieces.
func (s *Store) SavePiece(ctx context.Context, id domain.DocID, key string, rec domain.Recognition, now time.Time) error {
	text, err := sqlstore.EncodeRecognition(rec)
	if err != nil {
		return fmt.Errorf("sqlite.SavePiece: %w", err)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, shared.Pieces.Save, string(id), key, text, toMs(now), string(id))
		return translate(err)
	})
	if err != nil {
		return fmt.Errorf("sqlite.SavePiece: %w", err)
	}
	return nil
}

// DropPieces implements ports.RecognizedPieces.
func (s *Store) DropPieces(ctx context.Context, id domain.DocID) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, shared.Pieces.Drop, string(id))
		return translate(err)
	})
	if err != nil {
		return fmt.Errorf("sqlite.DropPieces: %w", err)
	}
	return nil
}
