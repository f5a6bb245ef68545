package sqlstore

import (
	"encoding/json"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
)

// PiecesSQL is the statements of ports.RecognizedPieces.
type PiecesSQL struct {
	// Save keeps ($1 doc, $2 key, $3 recognition, $4 ms) while the job ($5,
	// the doc again: SQLite's ? cannot be repeated) exists, replacing the
	// key's earlier one.
	Save string
	// List reads a job's ($1) keys and recognitions.
	List string
	// Drop forgets a job's ($1).
	Drop string
}

// Pieces is the recognized-pieces statements in d.
func (d Dialect) Pieces() PiecesSQL {
	p := d.Param
	return PiecesSQL{
		Save: `INSERT INTO recognized_pieces (doc_id, piece, recognition, created_at)
		SELECT ` + p(1) + `, ` + p(2) + `, ` + p(3) + `, ` + p(4) + ` WHERE EXISTS (SELECT 1 FROM jobs WHERE id = ` + p(5) + `)
		ON CONFLICT (doc_id, piece) DO UPDATE SET recognition = excluded.recognition, created_at = excluded.created_at`,
		List: "SELECT piece, recognition FROM recognized_pieces WHERE doc_id = " + p(1),
		Drop: "DELETE FROM recognized_pieces WHERE doc_id = " + p(1),
	}
}

// EncodeRecognition is a recognition as stored: JSON.
func EncodeRecognition(r domain.Recognition) (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("encode recognition: %w", err)
	}
	return string(b), nil
}

// Piece is one row of PiecesSQL.List.
type Piece struct {
	Key string
	Rec domain.Recognition
}

// ScanPiece reads one row of PiecesSQL.List.
func ScanPiece(row Scanner) (Piece, error) {
	var key, text string
	if err := row.Scan(&key, &text); err != nil {
		return Piece{}, err
	}
	var r domain.Recognition
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		return Piece{}, fmt.Errorf("piece %s: %w", key, err)
	}
	return Piece{key, r}, nil
}

// PieceMap is the rows by key, as ports.RecognizedPieces returns them.
func PieceMap(rows []Piece) map[string]domain.Recognition {
	out := make(map[string]domain.Recognition, len(rows))
	for _, p := range rows {
		out[p.Key] = p.Rec
	}
	return out
}
