package postgres

import (
	"context"
	"fmt"
	"time"
)

// rateRetention is how long a window's counts are kept. The limiter only
// asks about the current window; a few minutes cover clock skew between
// API replicas.
const rateRetention = 5 * time.Minute

// Hit counts one request for key in window and returns the count including
// it: one upsert, one round trip, atomic across every process sharing the
// database.
func (s *Store) Hit(ctx context.Context, key string, window time.Time) (int, error) {
	w := toMs(window)
	s.pruneRates(ctx, w)
	var n int
	err := s.pool.QueryRow(ctx, `INSERT INTO rate_counters AS r (key, window_start, count) VALUES ($1, $2, 1)
		ON CONFLICT (key, window_start) DO UPDATE SET count = r.count + 1
		RETURNING count`, key, w).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("postgres.Hit: %w", translate(err))
	}
	return n, nil
}

// pruneRates drops the old windows once per new window (about once a
// minute per process), so the table holds a few minutes of keys however
// long the service runs. Housekeeping: if it fails the request is still
// counted, and the next hit tries again.
func (s *Store) pruneRates(ctx context.Context, w int64) {
	if last := s.lastWindow.Load(); w > last && s.lastWindow.CompareAndSwap(last, w) {
		if _, err := s.pool.Exec(ctx, `DELETE FROM rate_counters WHERE window_start < $1`, w-rateRetention.Milliseconds()); err != nil {
			s.lastWindow.CompareAndSwap(w, last)
		}
	}
}
