package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// TouchAPIKeys sets many keys' last-used times in one write transaction
// (ports.APIKeyToucher), never moving one back.
func (s *Store) TouchAPIKeys(ctx context.Context, at map[string]time.Time) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `UPDATE api_keys SET last_used_at = ?1
			WHERE id = ?2 AND (last_used_at IS NULL OR last_used_at < ?1)`)
		if err != nil {
			return translate(err)
		}
		defer st.Close()
		for id, t := range at {
			if _, err := st.ExecContext(ctx, toMs(t), id); err != nil {
				return translate(err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite.TouchAPIKeys: %w", err)
	}
	return nil
}
