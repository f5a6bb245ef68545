package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// ListJobs lists an account's jobs for both doors: the API's GET
// /api/listTranscriptions (an API key; keyset pages of the newest-first
// order, no total) and the web application's history, its "select all
// matching" (Matching) and a recording's neighbours (Neighbours). Every
// rule is here once: who may read (Actor.mayRead: a key needs a Business
// plan, a person of the account any role), the account (always the
// actor's: a job of another account is never listed), the page's bounds
// and the cursor's check (docs/decisions.md, One use case for listing
// jobs). With Resend it is what an API client needs to find what it
// missed while its receiver was down (events are sent once).
type ListJobs struct {
	lister     ports.JobLister
	pager      ports.JobPager
	checklists ports.ChecklistStore
	accounts   ports.AccountStore
	reviews    ports.ReviewStore
}

// NewListJobs builds the use case. The API's pages come from pager
// (PageJobs), which counts nothing: the API shows no total, and counting
// an account's jobs made every page cost as much as all of them
// (docs/performance.md, Store growth); the history's from lister, with
// its total.
func NewListJobs(lister ports.JobLister, pager ports.JobPager, checklists ports.ChecklistStore, accounts ports.AccountStore, reviews ports.ReviewStore) *ListJobs {
	need("lister", lister)
	need("pager", pager)
	need("checklists", checklists)
	need("accounts", accounts)
	need("reviews", reviews)
	return &ListJobs{lister: lister, pager: pager, checklists: checklists, accounts: accounts, reviews: reviews}
}

// ListCommand is what to list: the filter both doors share (status,
// creation period, page size, cursor) and the history's extras, which the
// API's page (History false) ignores.
type ListCommand struct {
	Status   domain.Status
	From, To time.Time // created in [From, To); zero: no bound
	// Limit is the page's size: for the API 1 to domain.MaxListLimit (0:
	// domain.DefaultListLimit); for the history 1 to MaxHistoryPage (any
	// other: HistoryPageSize).
	Limit int
	// Cursor is where the page starts: the API's nextCursor
	// (domain.ListCursor), or the history's ListPage Next or Prev
	// (domain.HistoryCursor); "" is the first page.
	Cursor string
	// History asks for the web application's page: in Sort's order, with
	// the total, the extras below, analyses and (reviewed) scores.
	History bool

	Sort                           domain.HistorySort
	Type                           domain.JobType
	ChecklistID, Search, Agent     string
	ScoreFrom, ScoreUnder          *float64
	NeedsReview, NeedsSpeakerNames bool
}

// query is the store's query of c on account, without its page (Limit,
// After, Back). The API's has only the shared filter.
func (c ListCommand) query(account domain.AccountID) ports.JobQuery {
	q := ports.JobQuery{Account: account, Status: c.Status, From: c.From, To: c.To}
	if c.History {
		q.Sort, q.Type, q.ChecklistID, q.Search, q.Agent = c.Sort, c.Type, c.ChecklistID, c.Search, c.Agent
		q.ScoreFrom, q.ScoreUnder, q.NeedsReview, q.NeedsSpeakerNames = c.ScoreFrom, c.ScoreUnder, c.NeedsReview, c.NeedsSpeakerNames
	}
	return q
}

// ListPage is one page of ListJobs.
type ListPage struct {
	Jobs []ports.ListedJob
	// Next and Prev are the cursors of the pages after and before this
	// one ("": none), for ListCommand.Cursor. The API's page has no Prev,
	// and a Next whenever it is full: the next page may be empty.
	Next, Prev string

	// The history's only (ListCommand.History):
	Analyses map[domain.DocID]domain.Analysis
	// Scores are each analysis's total (domain.ScoreOf): the reviewed
	// score (on a.Reviewed) where the call's review is current, Reviewed
	// then true, else the machine's.
	Scores   map[domain.DocID]domain.Score
	Reviewed map[domain.DocID]bool
	// Total is how many calls the filter keeps, on every page.
	Total int
}

// HistoryPageSize is the history's page when a request names none, and
// MaxHistoryPage the most a request may name.
const (
	HistoryPageSize = 25
	MaxHistoryPage  = 100
)

// Handle returns one page of the actor's account's jobs matching c. The
// command is checked before the actor (a bad cursor is a
// domain.ValidationError whoever asks, as the API has always answered);
// an actor who may not read gets domain.ErrForbidden.
func (uc *ListJobs) Handle(ctx context.Context, a Actor, c ListCommand) (ListPage, error) {
	if !c.History {
		return uc.apiPage(ctx, a, c)
	}
	q := c.query(a.Account.ID)
	q.Limit = c.Limit
	if q.Limit <= 0 || q.Limit > MaxHistoryPage {
		q.Limit = HistoryPageSize
	}
	if c.Cursor != "" {
		cur, err := domain.ParseHistoryCursor(c.Cursor, q.Sort)
		if err != nil {
			return ListPage{}, err
		}
		q.After, q.Back = cur.Key, cur.Back
	}
	if err := a.mayRead(); err != nil {
		return ListPage{}, err
	}
	return uc.history(ctx, q)
}

// apiPage is the API's page: newest first, no total, no scores.
func (uc *ListJobs) apiPage(ctx context.Context, a Actor, c ListCommand) (ListPage, error) {
	q := c.query(a.Account.ID)
	q.Limit = c.Limit
	if q.Limit == 0 {
		q.Limit = domain.DefaultListLimit
	}
	if q.Limit < 1 || q.Limit > domain.MaxListLimit {
		return ListPage{}, domain.Invalid("invalid_limit", "limit must be a whole number from 1 to %d; got %q", domain.MaxListLimit, fmt.Sprint(c.Limit))
	}
	if c.Cursor != "" {
		cur, err := domain.ParseListCursor(c.Cursor)
		if err != nil {
			return ListPage{}, err
		}
		q.After = cur.Key()
	}
	if err := a.mayRead(); err != nil {
		return ListPage{}, err
	}
	jobs, err := uc.pager.PageJobs(ctx, q)
	if err != nil {
		return ListPage{}, fmt.Errorf("list jobs: %w", err)
	}
	page := ListPage{Jobs: jobs}
	if len(jobs) == q.Limit {
		last := jobs[len(jobs)-1]
		page.Next = domain.CursorAfter(last.CreatedAt, last.ID).String()
	}
	return page, nil
}

// history is one page of q in q.Sort's order from q.After. Pages are
// keyset pages (never an offset), so any page costs what the first does.
// An agent filter (q.Agent) reads the account's agent key
// (domain.Account.AgentKey); an account that names none is a
// domain.ValidationError.
func (uc *ListJobs) history(ctx context.Context, q ports.JobQuery) (ListPage, error) {
	account := q.Account
	if err := uc.agentKey(ctx, &q); err != nil {
		return ListPage{}, err
	}
	limit := q.Limit
	q.Limit++ // one more tells whether another page follows
	jobs, total, err := uc.lister.ListJobs(ctx, q)
	if err != nil {
		return ListPage{}, fmt.Errorf("history: %w", err)
	}
	more := len(jobs) > limit
	if more && q.Back {
		jobs = jobs[1:] // the extra row is the farthest back
	} else if more {
		jobs = jobs[:limit]
	}
	page := ListPage{Jobs: jobs, Total: total}
	if len(jobs) > 0 {
		first, last := jobs[0], jobs[len(jobs)-1]
		if q.Back && more || !q.Back && !q.After.IsZero() {
			page.Prev = domain.HistoryCursor{Sort: q.Sort, Key: ListedKey(q.Sort, first), Back: true}.String()
		}
		if !q.Back && more || q.Back {
			page.Next = domain.HistoryCursor{Sort: q.Sort, Key: ListedKey(q.Sort, last)}.String()
		}
	}
	for i := range jobs {
		if jobs[i].Status != domain.StatusTranscribed { // domain.Job.TranscriptShown
			jobs[i].Title, jobs[i].Excerpt = "", ""
		}
	}
	var docs []domain.DocID
	for _, j := range jobs {
		if j.ChecklistID != "" {
			docs = append(docs, j.ID)
		}
	}
	an, err := uc.lister.AnalysesByDocs(ctx, account, docs)
	if err != nil {
		return ListPage{}, fmt.Errorf("history analyses: %w", err)
	}
	book := newWeightBook(uc.checklists, account)
	scores := make(map[domain.DocID]domain.Score, len(an))
	reviewed := map[domain.DocID]bool{}
	for doc, a := range an {
		// A current review's score is the call's, as the store sorts and
		// filters by it (ports.ReviewStore). One point read per analysed
		// row: a page is at most MaxHistoryPage rows (HistoryPageSize
		// unless the request names fewer or more).
		if a.Status == domain.AnalysisOK {
			rv, err := uc.reviews.ReviewOf(ctx, doc)
			if err != nil && !errors.Is(err, domain.ErrNotFound) {
				return ListPage{}, fmt.Errorf("history review of %s: %w", doc, err)
			}
			if err == nil && rv.Current(a) {
				a, reviewed[doc] = a.Reviewed(rv), true
			}
		}
		scores[doc] = book.score(ctx, a)
	}
	page.Analyses, page.Scores, page.Reviewed = an, scores, reviewed
	return page, nil
}
