package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// DB is an engine's connection pool as the shared reads use it.
type DB interface {
	// QueryRow runs a query that returns at most one row.
	QueryRow(ctx context.Context, query string, args ...any) Scanner
	// Query runs a query and returns its rows and how to close them.
	Query(ctx context.Context, query string, args ...any) (Rows, func(), error)
}

// QueryAll runs a query on db and reads every row with scan (see Collect).
// Its errors are the driver's, for the store to translate.
func QueryAll[T any](ctx context.Context, db DB, scan func(Scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, done, err := db.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer done()
	return Collect(rows, scan)
}

// Reads are the port methods that are one plain read, alike in both
// engines, written once: a store embeds them (NewReads) over its pool. What
// the engines do differently (a write, a lock, a prepared statement, an
// order by insertion) stays in the store.
type Reads struct {
	db        DB
	d         Dialect
	name      string
	translate func(error) error
	stmt      Statements
}

// NewReads are the reads over db in d; name ("postgres", "sqlite") begins
// their errors and translate turns the driver's errors into domain ones.
func NewReads(d Dialect, db DB, name string, translate func(error) error) Reads {
	return Reads{db: db, d: d, name: name, translate: translate,
		stmt: d.Statements()}
}

// fail is err, already translated, as method's error.
func (r Reads) fail(method string, err error) error {
	return fmt.Errorf("%s.%s: %w", r.name, method, err)
}

// GetAccount returns an account or domain.ErrNotFound.
func (r Reads) GetAccount(ctx context.Context, id domain.AccountID) (domain.Account, error) {
	a, err := ScanAccount(r.db.QueryRow(ctx, r.stmt.Account.Select+" WHERE id = "+r.d.Param(1), string(id)))
	if err != nil {
		return domain.Account{}, r.fail("GetAccount", fmt.Errorf("account %s: %w", id, r.translate(err)))
	}
	return a, nil
}

// FindUser returns the user with the one ID, email or invitation hash set in by.
func (r Reads) FindUser(ctx context.Context, by ports.UserKey) (domain.User, error) {
	query, col, val, err := r.d.FindUserQuery(by)
	if err != nil {
		return domain.User{}, fmt.Errorf("%s.FindUser: %w", r.name, err)
	}
	u, err := ScanUser(r.db.QueryRow(ctx, query, val))
	if err != nil {
		return domain.User{}, r.fail("FindUser", fmt.Errorf("by %s: %w", col, r.translate(err)))
	}
	return u, nil
}

// ListUsers returns the account's users, oldest first.
func (r Reads) ListUsers(ctx context.Context, account domain.AccountID) ([]domain.User, error) {
	out, err := QueryAll(ctx, r.db, ScanUser, r.stmt.Team.ListUsers, string(account))
	if err != nil {
		return nil, r.fail("ListUsers", r.translate(err))
	}
	return out, nil
}

// JobUsage returns the account's jobs created since from, light, oldest
// first, on the account's index of jobs by creation (jobs_account_created;
// jobs_account_created_id on Postgres).
func (r Reads) JobUsage(ctx context.Context, account domain.AccountID, from time.Time) ([]domain.Job, error) {
	out, err := QueryAll(ctx, r.db, ScanUsage(account), r.stmt.Team.JobUsage, string(account), ToMs(from))
	if err != nil {
		return nil, r.fail("JobUsage", r.translate(err))
	}
	return out, nil
}

// GetTombstone returns a deleted job's tombstone.
func (r Reads) GetTombstone(ctx context.Context, id domain.DocID) (domain.Tombstone, error) {
	t, err := ScanTombstone(r.db.QueryRow(ctx, r.stmt.Deletion.GetTombstone, string(id)))
	if err != nil {
		return domain.Tombstone{}, r.fail("GetTombstone", fmt.Errorf("%s: %w", id, r.translate(err)))
	}
	return t, nil
}

// RetentionDays returns the account's retention rule, 0 when none is set.
func (r Reads) RetentionDays(ctx context.Context, account domain.AccountID) (int, error) {
	var days int
	err := r.translate(r.db.QueryRow(ctx, r.stmt.Deletion.Retention, string(account)).Scan(&days))
	if errors.Is(err, domain.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, r.fail("RetentionDays", err)
	}
	return days, nil
}

// ExpiredJobs lists jobs older than their account's retention, oldest first.
func (r Reads) ExpiredJobs(ctx context.Context, now time.Time, limit int) ([]domain.Job, error) {
	out, err := QueryAll(ctx, r.db, ScanJob, r.stmt.Deletion.ExpiredJobs, ToMs(now), limit)
	if err != nil {
		return nil, r.fail("ExpiredJobs", r.translate(err))
	}
	return out, nil
}

// RecognizedPieces implements ports.RecognizedPieces.
func (r Reads) RecognizedPieces(ctx context.Context, id domain.DocID) (map[string]domain.Recognition, error) {
	rows, err := QueryAll(ctx, r.db, ScanPiece, r.stmt.Pieces.List, string(id))
	if err != nil {
		return nil, r.fail("RecognizedPieces", r.translate(err))
	}
	return PieceMap(rows), nil
}

// GetAnalysis returns an analysis by ID.
func (r Reads) GetAnalysis(ctx context.Context, id string) (domain.Analysis, error) {
	a, err := ScanAnalysis(r.db.QueryRow(ctx, r.stmt.Analysis.Select+" WHERE id = "+r.d.Param(1), id))
	if err != nil {
		return domain.Analysis{}, r.fail("GetAnalysis", fmt.Errorf("%s: %w", id, r.translate(err)))
	}
	return a, nil
}

// AnalysisByDoc returns the job's analysis.
func (r Reads) AnalysisByDoc(ctx context.Context, doc domain.DocID) (domain.Analysis, error) {
	a, err := ScanAnalysis(r.db.QueryRow(ctx, r.stmt.Analysis.Select+" WHERE doc_id = "+r.d.Param(1), string(doc)))
	if err != nil {
		return domain.Analysis{}, r.fail("AnalysisByDoc", fmt.Errorf("%s: %w", doc, r.translate(err)))
	}
	return a, nil
}

// ListAnalyses returns the account's analyses of the checklist (every
// version) of calls made (jobs created) in [from, to), oldest call first
// (ties by analysis ID): a call analysed again stays on its own day.
func (r Reads) ListAnalyses(ctx context.Context, account domain.AccountID, checklistID string, from, to time.Time) ([]domain.CallAnalysis, error) {
	p := r.d.Param
	out, err := QueryAll(ctx, r.db, ScanCallAnalysis, CallAnalysisSelect+" WHERE a.account_id = "+p(1)+" AND a.checklist_id = "+p(2)+
		" AND j.created_at >= "+p(3)+" AND j.created_at < "+p(4)+" ORDER BY j.created_at, a.id",
		string(account), checklistID, ToMs(from), ToMs(to))
	if err != nil {
		return nil, r.fail("ListAnalyses", r.translate(err))
	}
	return out, nil
}

// GetChecklist returns the latest version of the account's checklist; one
// of another account is domain.ErrNotFound, exactly like a missing one.
func (r Reads) GetChecklist(ctx context.Context, account domain.AccountID, id string) (domain.Checklist, error) {
	c, err := ScanChecklist(r.db.QueryRow(ctx, Select("checklists", ChecklistCols)+" WHERE id = "+r.d.Param(1)+
		" AND account_id = "+r.d.Param(2)+" ORDER BY version DESC LIMIT 1", id, string(account)))
	if err != nil {
		return domain.Checklist{}, r.fail("GetChecklist", fmt.Errorf("checklist %s: %w", id, r.translate(err)))
	}
	return c, nil
}

// GetChecklistVersion returns one version of the account's checklist.
func (r Reads) GetChecklistVersion(ctx context.Context, account domain.AccountID, id string, version int) (domain.Checklist, error) {
	c, err := ScanChecklist(r.db.QueryRow(ctx, Select("checklists", ChecklistCols)+" WHERE id = "+r.d.Param(1)+
		" AND account_id = "+r.d.Param(2)+" AND version = "+r.d.Param(3), id, string(account), version))
	if err != nil {
		return domain.Checklist{}, r.fail("GetChecklistVersion", fmt.Errorf("checklist %s v%d: %w", id, version, r.translate(err)))
	}
	return c, nil
}

// GetSession returns the session with that ID, expired or not.
func (r Reads) GetSession(ctx context.Context, id string) (domain.Session, error) {
	var sess domain.Session
	var created, expires int64
	err := r.db.QueryRow(ctx, "SELECT id, user_id, account_id, csrf, created_at, expires_at FROM sessions WHERE id = "+r.d.Param(1), id).
		Scan(&sess.ID, &sess.UserID, &sess.AccountID, &sess.CSRF, &created, &expires)
	if err != nil {
		return domain.Session{}, r.fail("GetSession", r.translate(err))
	}
	sess.CreatedAt, sess.ExpiresAt = FromMs(created), FromMs(expires)
	return sess, nil
}
