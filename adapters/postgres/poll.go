package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
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

// pollSelect counts the poll and reads the job in one statement: the
// upsert runs whether or not the job exists, and the job's columns are
// NULL when it does not (its id, never NULL in a row, tells which).
var pollSelect = `WITH hit AS (
		INSERT INTO rate_counters AS r (key, window_start, count) VALUES ($1, $2, 1)
		ON CONFLICT (key, window_start) DO UPDATE SET count = r.count + 1
		RETURNING count)
	SELECT hit.count, j.` + strings.Join(jobCols, ", j.") + `
	FROM hit LEFT JOIN jobs j ON j.id = $3`

// HitAndGetJob is Hit and GetJob in one round trip (ports.PollCounter).
func (s *Store) HitAndGetJob(ctx context.Context, key string, window time.Time, id domain.DocID) (int, domain.Job, error) {
	w := toMs(window)
	s.pruneRates(ctx, w)
	rows, err := s.pool.Query(ctx, pollSelect, key, w, string(id))
	if err != nil {
		return 0, domain.Job{}, fmt.Errorf("postgres.HitAndGetJob: %w", translate(err))
	}
	defer rows.Close()
	if !rows.Next() {
		err := rows.Err()
		if err == nil {
			err = errors.New("no row")
		}
		return 0, domain.Job{}, fmt.Errorf("postgres.HitAndGetJob: %w", translate(err))
	}
	// One scan: the count and the job's columns, or, when the job's id
	// is NULL (no such job), the count alone (a nil destination skips a
	// column).
	var n int
	var r sqlstore.JobScan
	found := rows.RawValues()[1] != nil
	dest := make([]any, 1, 1+len(jobCols))
	dest[0] = &n
	if found {
		dest = append(dest, r.Dest()...)
	} else {
		dest = dest[:1+len(jobCols)]
	}
	if err := rows.Scan(dest...); err != nil {
		return 0, domain.Job{}, fmt.Errorf("postgres.HitAndGetJob: %w", translate(err))
	}
	if !found {
		return n, domain.Job{}, fmt.Errorf("postgres.HitAndGetJob: job %s: %w", id, domain.ErrNotFound)
	}
	j, err := r.Job()
	if err != nil {
		return n, domain.Job{}, fmt.Errorf("postgres.HitAndGetJob: %w", err)
	}
	return n, j, nil
}
