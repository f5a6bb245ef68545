package app

import (
	"context"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
)

// MaxBulkSelection is how many calls one bulk action over a filter
// ("select all matching") may take: a filter keeping more must be
// narrowed first. Each call is then deleted or exported through its own
// use case (DeleteJob, ExportJob), each deletion its own short
// transaction, so one account's bulk action holds no lock that another
// account waits on for longer than one call's deletion.
const MaxBulkSelection = 500

// bulkPage is how many calls Matching reads a query at a time.
const bulkPage = 100

// Matching returns every call of the actor's account that cmd keeps (its
// filter; its order, page and cursor are ignored), newest first, reading them in keyset
// pages of bulkPage. More than MaxBulkSelection is a
// domain.ValidationError saying to narrow the filter, and nothing is
// returned: a bulk action takes all of a filter or none of it.
func (uc *ListJobs) Matching(ctx context.Context, a Actor, cmd ListCommand) ([]domain.DocID, error) {
	if err := a.mayRead(); err != nil {
		return nil, err
	}
	cmd.History = true
	q := cmd.query(a.Account.ID)
	q.Sort, q.Limit = domain.SortNewest, bulkPage
	if err := uc.agentKey(ctx, &q); err != nil {
		return nil, err
	}
	var out []domain.DocID
	for {
		jobs, total, err := uc.lister.ListJobs(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("bulk selection: %w", err)
		}
		if total > MaxBulkSelection {
			return nil, domain.Invalid("too_many_chosen", "the filter keeps %d recordings; a bulk action takes at most %d: narrow the filter", total, MaxBulkSelection)
		}
		for _, j := range jobs {
			out = append(out, j.ID)
		}
		if len(jobs) < bulkPage || len(out) >= MaxBulkSelection {
			return out, nil
		}
		q.After = ListedKey(q.Sort, jobs[len(jobs)-1])
	}
}
