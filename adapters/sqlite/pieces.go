package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

var piecesSQL = sqlstore.SQLite.Pieces()

// SavePiece implements ports.RecognizedPieces.
func (s *Store) SavePiece(ctx context.Context, id domain.DocID, key string, rec domain.Recognition, now time.Time) error {
	text, err := sqlstore.EncodeRecognition(rec)
	if err != nil {
		return fmt.Errorf("sqlite.SavePiece: %w", err)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, piecesSQL.Save, string(id), key, text, toMs(now), string(id))
		return translate(err)
	})
	if err != nil {
		return fmt.Errorf("sqlite.SavePiece: %w", err)
	}
	return nil
}

// RecognizedPieces implements ports.RecognizedPieces.
func (s *Store) RecognizedPieces(ctx context.Context, id domain.DocID) (map[string]domain.Recognition, error) {
	rows, err := queryAll(ctx, s.db, scanPiece, piecesSQL.List, string(id))
	if err != nil {
		return nil, fmt.Errorf("sqlite.RecognizedPieces: %w", err)
	}
	out := make(map[string]domain.Recognition, len(rows))
	for _, p := range rows {
		out[p.key] = p.rec
	}
	return out, nil
}

// DropPieces implements ports.RecognizedPieces.
func (s *Store) DropPieces(ctx context.Context, id domain.DocID) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, piecesSQL.Drop, string(id))
		return translate(err)
	})
	if err != nil {
		return fmt.Errorf("sqlite.DropPieces: %w", err)
	}
	return nil
}

type pieceRow struct {
	key string
	rec domain.Recognition
}

func scanPiece(row sqlstore.Scanner) (pieceRow, error) {
	k, r, err := sqlstore.ScanPiece(row)
	return pieceRow{k, r}, err
}
