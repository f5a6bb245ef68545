package apptest

import (
	"context"

	"github.com/hyscribe/hyscribe/ports"
)

// PageJobs is ListJobs without the total (ports.JobPager).
func (s *Store) PageJobs(ctx context.Context, q ports.JobQuery) ([]ports.ListedJob, error) {
	q.Search, q.Offset = "", 0
	jobs, _, err := s.ListJobs(ctx, q)
	return jobs, err
}
