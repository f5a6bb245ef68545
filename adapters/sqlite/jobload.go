package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
)

// loadJob reads the job and its account in tx, for UpdateJob and
// DeleteJob. The write transaction holds the lock.
func loadJob(ctx context.Context, tx *sql.Tx, id domain.DocID) (domain.Job, domain.Account, error) {
	j, err := toDomainJob(tx.QueryRowContext(ctx, shared.Job.Select+" WHERE id = ?", string(id)))
	if err != nil {
		return domain.Job{}, domain.Account{}, fmt.Errorf("job %s: %w", id, err)
	}
	a, err := toDomainAccount(tx.QueryRowContext(ctx, shared.Account.Select+" WHERE id = ?", string(j.AccountID)))
	if err != nil {
		return domain.Job{}, domain.Account{}, fmt.Errorf("account %s: %w", j.AccountID, err)
	}
	return j, a, nil
}
