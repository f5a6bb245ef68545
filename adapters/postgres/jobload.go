package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// lockJob reads the job and its account in tx and locks both rows until tx
// ends (jobAndAccountForUpdate), for DeleteJob.
func lockJob(ctx context.Context, tx pgx.Tx, id domain.DocID) (domain.Job, domain.Account, error) {
	var r sqlstore.JobScan
	var ar sqlstore.AccountScan
	if err := tx.QueryRow(ctx, jobAndAccountForUpdate, string(id)).Scan(append(r.Dest(), ar.Dest()...)...); err != nil {
		return domain.Job{}, domain.Account{}, fmt.Errorf("job %s: %w", id, translate(err))
	}
	j, err := r.Job()
	if err != nil {
		return domain.Job{}, domain.Account{}, err
	}
	return j, ar.Account(), nil
}
