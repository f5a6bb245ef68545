package postgres

import (
	"context"
	"fmt"
	"time"
)

// TouchAPIKeys sets many keys' last-used times in one statement
// (ports.APIKeyToucher), never moving one back.
func (s *Store) TouchAPIKeys(ctx context.Context, at map[string]time.Time) error {
	ids := make([]string, 0, len(at))
	ms := make([]int64, 0, len(at))
	for id, t := range at {
		ids = append(ids, id)
		ms = append(ms, toMs(t))
	}
	_, err := s.pool.Exec(ctx, `UPDATE api_keys k SET last_used_at = v.at
		FROM unnest($1::text[], $2::bigint[]) AS v(id, at)
		WHERE k.id = v.id AND (k.last_used_at IS NULL OR k.last_used_at < v.at)`, ids, ms)
	if err != nil {
		return fmt.Errorf("postgres.TouchAPIKeys: %w", translate(err))
	}
	return nil
}
