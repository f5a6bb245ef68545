package sqlstore

import (
	"github.com/hyscribe/hyscribe/adapters/internal/webquery"
	"github.com/hyscribe/hyscribe/domain"
)

// Rows are a query's rows: *sql.Rows, pgx.Rows.
type Rows interface {
	Scanner
	Next() bool
	Err() error
}

// Collect reads every row with scan, in order, and returns them (an empty
// slice, not nil, when there are none). It stops at the first error. It
// does not close rows: the store does, as its driver wants.
func Collect[T any](rows Rows, scan func(Scanner) (T, error)) ([]T, error) {
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// TeamSQL are the statements of ports.TeamStore and ports.UsageReader.
type TeamSQL struct {
	// ListUsers lists an account's users ($1), oldest first.
	ListUsers string
	// DeleteUserSessions and DeleteUser remove a user ($1) of an account
	// ($2) and their sessions.
	DeleteUserSessions, DeleteUser string
	// DeleteOtherSessions removes a user's ($1) sessions but one ($2).
	DeleteOtherSessions string
	// JobUsage lists an account's ($1) jobs created since $2 (ms), light
	// (webquery.UsageSelect), oldest first, on the index
	// jobs_account_created (jobs_account_created_id on Postgres). Scan them
	// with ScanUsage.
	JobUsage string
}

// Team is the team statements in d.
func (d Dialect) Team() TeamSQL {
	p1, p2 := d.Param(1), d.Param(2)
	return TeamSQL{
		ListUsers:           Select("users", UserCols) + " WHERE account_id = " + p1 + " ORDER BY created_at, id",
		DeleteUserSessions:  "DELETE FROM sessions WHERE user_id = " + p1 + " AND account_id = " + p2,
		DeleteUser:          "DELETE FROM users WHERE id = " + p1 + " AND account_id = " + p2,
		DeleteOtherSessions: "DELETE FROM sessions WHERE user_id = " + p1 + " AND id <> " + p2,
		JobUsage:            webquery.UsageSelect + " WHERE account_id = " + p1 + " AND created_at >= " + p2 + " ORDER BY created_at, id",
	}
}

// ScanUsage reads rows of TeamSQL.JobUsage, jobs of account.
func ScanUsage(account domain.AccountID) func(Scanner) (domain.Job, error) {
	return func(sc Scanner) (domain.Job, error) {
		var r webquery.UsageRow
		if err := sc.Scan(r.Dest()...); err != nil {
			return domain.Job{}, err
		}
		return r.Job(account)
	}
}
