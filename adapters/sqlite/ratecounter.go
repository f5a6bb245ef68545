package sqlite

import (
	"context"
	"fmt"
	"time"
)

// rateRetention is how long a window's counts are kept. The limiter only
// asks about the current window; a few minutes cover clock skew between
// processes sharing the file.
const rateRetention = 5 * time.Minute

// Hit counts one request for key in window and returns the count including
// it. The upsert is one statement, so concurrent callers, in this process or
// another, each get a distinct count.
func (s *Store) Hit(ctx context.Context, key string, window time.Time) (int, error) {
	if err := s.lockWrite(ctx); err != nil {
		return 0, fmt.Errorf("sqlite.Hit: %w", err)
	}
	defer s.unlockWrite()
	w := toMs(window)
	// Once per new window (about once a minute) drop the old ones, so the
	// table holds a few minutes of keys however long the service runs. This
	// is housekeeping: if it fails the request is still counted, and the
	// next Hit tries again.
	if last := s.lastWindow.Load(); w > last && s.lastWindow.CompareAndSwap(last, w) {
		if _, err := s.db.ExecContext(ctx, `DELETE FROM rate_counters WHERE window < ?`, w-rateRetention.Milliseconds()); err != nil {
			s.lastWindow.CompareAndSwap(w, last)
		}
	}
	var n int
	err := s.db.QueryRowContext(ctx, `INSERT INTO rate_counters (key, window, count) VALUES (?, ?, 1)
		ON CONFLICT (key, window) DO UPDATE SET count = count + 1
		RETURNING count`, key, w).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("sqlite.Hit: %w", translate(err))
	}
	return n, nil
}
