package sqlstore

import (
	"errors"
	"strconv"
	"strings"

	"github.com/hyscribe/hyscribe/domain"
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
// checklist, time range, score range, agent and review. The keyset
// condition of a page is HistoryOrder's; search is left to the engine.
func (d Dialect) JobFilter(q ports.JobQuery, a *Args) ([]string, error) {
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
	if q.ScoreFrom != nil || q.ScoreUnder != nil {
		where = append(where, "list_score >= 0")
	}
	if q.ScoreFrom != nil {
		where = append(where, "list_score >= "+a.Add(*q.ScoreFrom))
	}
	if q.ScoreUnder != nil && *q.ScoreUnder < 1 {
		where = append(where, "list_score < "+a.Add(*q.ScoreUnder))
	}
	if q.AgentKey != "" {
		if d == Postgres {
			where = append(where, "(metadata::jsonb ->> "+a.Add(q.AgentKey)+") = "+a.Add(q.Agent))
		} else {
			// Keys are letters, digits, _ - and . (domain.ValidMetadataKey):
			// quoted, one is a single step of the path.
			where = append(where, "CAST(json_extract(metadata, "+a.Add(`$."`+q.AgentKey+`"`)+") AS TEXT) = "+a.Add(q.Agent))
		}
	}
	if q.NeedsReview {
		where = append(where, NeedsReview)
	}
	return where, nil
}

// NeedsReview is the condition of a call that "needs review": it has a
// checklist analysis (ok) that nobody has reviewed. Reviews are another
// change's (issue 36, item 3): where analyses record one, its condition
// joins this one's EXISTS, and both stores and the history follow.
const NeedsReview = "EXISTS (SELECT 1 FROM analyses an WHERE an.doc_id = jobs.id AND an.status = 'ok' AND an.reviewed_at IS NULL)"

// HistoryOrder is the ORDER BY of q (its Sort; reversed with Back, whose
// rows the caller then reverses) and the keyset condition of its page
// after (or, with Back, before) q.After: "" on the first page. Every
// order reads an index (account_id, value, created_at, id) in order
// (migrations 1 and 28).
func HistoryOrder(q ports.JobQuery, a *Args) (cond, order string) {
	cols := []string{"created_at", "id"}
	switch q.Sort.Field() {
	case domain.FieldScore:
		cols = []string{"list_score", "created_at", "id"}
	case domain.FieldDuration:
		cols = []string{"list_duration", "created_at", "id"}
	}
	asc := q.Sort.Ascending() != q.Back
	dir, op := " DESC", " < "
	if asc {
		dir, op = " ASC", " > "
	}
	ords := make([]string, len(cols))
	for i, c := range cols {
		ords[i] = c + dir
	}
	order = " ORDER BY " + strings.Join(ords, ", ")
	if q.After.IsZero() {
		return "", order
	}
	vals := []string{a.Add(q.After.CreatedAt.UnixMilli()), a.Add(string(q.After.ID))}
	if len(cols) == 3 {
		vals = append([]string{a.Add(q.After.Value)}, vals...)
	}
	return "(" + strings.Join(cols, ", ") + ")" + op + "(" + strings.Join(vals, ", ") + ")", order
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

// ListScoreMarker, in a migration's SQL, asks the store to recompute
// every job's list_score from its analysis (BackfillListScores), which
// the checklist's weights make a Go computation, not SQL's.
const ListScoreMarker = "-- go: recompute list_score"

// The statements of a list_score backfill: every analysis and every
// checklist version (their weights), read once.
var (
	BackfillAnalyses   = Select("analyses", AnalysisCols) + " WHERE status = 'ok'"
	BackfillChecklists = Select("checklists", ChecklistCols)
)

// BackfillListScores are the list_score of each analysed job: the
// analysis's total under its checklist version's weights (the version
// gone: every question weighs 1, as the pages score it).
func BackfillListScores(analyses []domain.Analysis, checklists []domain.Checklist) map[domain.DocID]float64 {
	type version struct {
		account domain.AccountID
		id      string
		v       int
	}
	weights := make(map[version]map[string]float64, len(checklists))
	for _, c := range checklists {
		weights[version{c.AccountID, c.ID, c.Version}] = domain.ChecklistWeights(c)
	}
	out := make(map[domain.DocID]float64, len(analyses))
	for _, a := range analyses {
		out[a.DocID] = ListScore(a.WithListScore(weights[version{a.AccountID, a.ChecklistID, a.ChecklistVersion}]))
	}
	return out
}
