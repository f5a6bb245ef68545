package ports

import (
	"context"
	"time"
)

// LeftoverRemover removes what a crash left half-written, such as the
// partial file of an upload cut off by kill -9.
type LeftoverRemover interface {
	// RemoveLeftovers removes leftovers last written before olderThan and
	// returns how many it removed. Work still in progress writes more often
	// than that, so it is never touched.
	RemoveLeftovers(ctx context.Context, olderThan time.Time) (int, error)
}
