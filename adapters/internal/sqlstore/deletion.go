package sqlstore

import (
	"strings"

	"github.com/hyscribe/hyscribe/domain"
)

// Deletion: tombstones and retention.

// tombstoneRow is a tombstone as stored (see jobRow).
type tombstoneRow struct {
	DocID     string `db:"doc_id"`
	AccountID string `db:"account_id"`
	Type      string `db:"type"`
	Status    string `db:"status"`
	CreatedAt int64  `db:"created_at"`
	UpdatedAt int64  `db:"updated_at"`
	DeletedAt int64  `db:"deleted_at"`
	Reason    string `db:"reason"`
}

// TombstoneCols are a tombstone's columns (tombstoneRow's).
var TombstoneCols = Columns[tombstoneRow]()

// TombstoneRow lists t's values in TombstoneCols order.
func TombstoneRow(t domain.Tombstone) []any {
	return Values(&tombstoneRow{DocID: string(t.DocID), AccountID: string(t.AccountID), Type: string(t.Type),
		Status: string(t.Status), CreatedAt: ToMs(t.CreatedAt), UpdatedAt: ToMs(t.UpdatedAt),
		DeletedAt: ToMs(t.DeletedAt), Reason: t.Reason})
}

// ScanTombstone reads one tombstone row (TombstoneCols).
func ScanTombstone(sc Scanner) (domain.Tombstone, error) {
	var r tombstoneRow
	if err := sc.Scan(Pointers(&r)...); err != nil {
		return domain.Tombstone{}, err
	}
	return domain.Tombstone{DocID: domain.DocID(r.DocID), AccountID: domain.AccountID(r.AccountID),
		Type: domain.JobType(r.Type), Status: domain.Status(r.Status), CreatedAt: FromMs(r.CreatedAt),
		UpdatedAt: FromMs(r.UpdatedAt), DeletedAt: FromMs(r.DeletedAt), Reason: r.Reason}, nil
}

// DeletionSQL are the statements of ports.DeletionStore.
type DeletionSQL struct {
	// InsertTombstone writes a TombstoneRow.
	InsertTombstone string
	// GetTombstone reads the tombstone of a job ($1).
	GetTombstone string
	// DeleteJob removes a job ($1, the one parameter of each) and
	// everything written about it, in this order.
	DeleteJob []string
	// AccountExists selects 1 for an account ($1) that exists.
	AccountExists string
	// SetRetention sets an account's ($1) retention days ($2);
	// DeleteRetention removes it; Retention reads the days.
	SetRetention, DeleteRetention, Retention string
	// ExpiredJobs lists jobs (JobCols) created before their account's
	// retention counted back from $1 (ms), oldest first, at most $2.
	ExpiredJobs string
}

// Deletion is the deletion statements in d.
func (d Dialect) Deletion() DeletionSQL {
	p1, p2 := d.Param(1), d.Param(2)
	days := "(SELECT days FROM account_retention r WHERE r.account_id = jobs.account_id)"
	if d == Postgres {
		days += "::bigint" // an integer times a day's ms overflows int4
	}
	return DeletionSQL{
		InsertTombstone: d.Insert("job_tombstones", TombstoneCols),
		GetTombstone:    Select("job_tombstones", TombstoneCols) + " WHERE doc_id = " + p1,
		DeleteJob: []string{
			"DELETE FROM analyses WHERE doc_id = " + p1,
			"DELETE FROM deliveries WHERE doc_id = " + p1,
			"DELETE FROM outbox WHERE doc_id = " + p1,
			"DELETE FROM job_history WHERE doc_id = " + p1,
			"DELETE FROM jobs WHERE id = " + p1,
		},
		AccountExists:   "SELECT 1 FROM accounts WHERE id = " + p1,
		SetRetention:    "INSERT INTO account_retention (account_id, days) VALUES (" + p1 + ", " + p2 + ") ON CONFLICT (account_id) DO UPDATE SET days = excluded.days",
		DeleteRetention: "DELETE FROM account_retention WHERE account_id = " + p1,
		Retention:       "SELECT days FROM account_retention WHERE account_id = " + p1,
		ExpiredJobs:     d.expiredJobs(days),
	}
}

// expiredJobs is ExpiredJobs's statement, driven by the retention rules so
// that its cost is that of the expired jobs, not of the store. SQLite
// plans the IN list as one search of jobs_account_created per rule.
// Postgres does not: it estimated the (usually empty, never analysed)
// account_retention at 1,270 rows, and scanned every job, evaluating the
// rule's subquery once per row (2.9 s at a million jobs, at each worker's
// start and every RetentionInterval; docs/performance.md, Store growth).
// There a LATERAL join reads each rule's account's oldest jobs on
// jobs_account_created_id, up to the limit each.
func (d Dialect) expiredJobs(days string) string {
	p1, p2 := d.Param(1), d.Param(2)
	if d == Postgres {
		return "SELECT e." + strings.Join(JobCols, ", e.") + ` FROM account_retention r CROSS JOIN LATERAL (` +
			Select("jobs", JobCols) + `
			WHERE jobs.account_id = r.account_id AND jobs.created_at < ` + p1 + ` - r.days::bigint * 86400000
			ORDER BY jobs.created_at, jobs.id
			LIMIT ` + p2 + `) e
		ORDER BY e.created_at, e.id
		LIMIT ` + p2
	}
	return Select("jobs", JobCols) + `
		WHERE account_id IN (SELECT account_id FROM account_retention)
		  AND created_at < ` + p1 + " - " + days + ` * 86400000
		ORDER BY created_at, id
		LIMIT ` + p2
}
