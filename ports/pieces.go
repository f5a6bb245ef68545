package ports

import (
	"context"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// RecognizedPieces keeps what the speech engine answered for the pieces of
// a recording while its job is converting, so that a job recognised again
// (its worker killed mid-recognition, or a piece failed and the stage
// retries) re-sends only the pieces that had not come back. A piece's key
// names it within its job (its file and its span in the recording): the
// same recording cut the same way has the same keys.
type RecognizedPieces interface {
	// SavePiece keeps rec as the recognition of the job's piece key, at
	// now; saving a key again replaces it. For a job that no longer exists
	// nothing is kept, and that is not an error.
	SavePiece(ctx context.Context, id domain.DocID, key string, rec domain.Recognition, now time.Time) error
	// RecognizedPieces returns the job's kept recognitions by key; none is
	// an empty map, not an error.
	RecognizedPieces(ctx context.Context, id domain.DocID) (map[string]domain.Recognition, error)
	// DropPieces forgets the job's kept recognitions (deleting a job
	// forgets them too).
	DropPieces(ctx context.Context, id domain.DocID) error
}
