package sqlstore

import (
	"errors"
	"strconv"

	"github.com/hyscribe/hyscribe/ports"
)

// Args are the arguments of a statement being built, each written where it
// is used in the dialect's numbered style ($n, ?n), so that one value may be
// named twice.
type Args struct {
	d Dialect
	// Values are the arguments so far, in order.
	Values []any
}

// NewArgs starts the arguments of a statement in d.
func (d Dialect) NewArgs() *Args { return &Args{d: d} }

// Add appends v and returns its placeholder.
func (a *Args) Add(v any) string {
	a.Values = append(a.Values, v)
	if a.d == Postgres {
		return "$" + strconv.Itoa(len(a.Values))
	}
	return "?" + strconv.Itoa(len(a.Values))
}

// JobFilter is the conditions (to be joined with AND) that keep the jobs of
// a list query q: its account (which it must name), status, type,
// checklist, time range and the keyset cursor (newest first, ties by ID).
// Search is left to the engine.
func JobFilter(q ports.JobQuery, a *Args) ([]string, error) {
	if q.Account == "" {
		return nil, errors.New("no account")
	}
	where := []string{"account_id = " + a.Add(string(q.Account))}
	if q.Status != "" {
		where = append(where, "status = "+a.Add(string(q.Status)))
	}
	if q.Type != "" {
		where = append(where, "type = "+a.Add(string(q.Type)))
	}
	if q.ChecklistID != "" {
		where = append(where, "checklist_id = "+a.Add(q.ChecklistID))
	}
	if !q.From.IsZero() {
		where = append(where, "created_at >= "+a.Add(ToMs(q.From)))
	}
	if !q.To.IsZero() {
		where = append(where, "created_at < "+a.Add(ToMs(q.To)))
	}
	if q.NeedsSpeakerNames {
		// The account's calls with answers waiting for speaker names
		// (domain.NeedsSpeakerNames, kept in analyses.needs_names).
		where = append(where, "id IN (SELECT doc_id FROM analyses WHERE account_id = "+a.Add(string(q.Account))+" AND needs_names = 1)")
	}
	if !q.After.IsZero() {
		ms := a.Add(q.After.CreatedAt.UnixMilli())
		where = append(where, "(created_at < "+ms+" OR created_at = "+ms+" AND id < "+a.Add(string(q.After.ID))+")")
	}
	return where, nil
}

// ScanListedTotal reads one row of a job list: a listed job (ListedCols),
// its excerpt and the total the row carries, kept in total.
func ScanListedTotal(total *int) func(Scanner) (ports.ListedJob, error) {
	return func(sc Scanner) (ports.ListedJob, error) {
		var r ListedScan
		if err := sc.Scan(append(r.Dest(), &r.Excerpt, total)...); err != nil {
			return ports.ListedJob{}, err
		}
		return r.Listed()
	}
}
