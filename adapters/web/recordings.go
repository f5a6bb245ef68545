package web

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// historyFilter is the history page's query string: the filter, the
// order and the page's cursor.
type historyFilter struct {
	Status, Type, Checklist, From, To, Q string
	Needs                                string // "names": only calls that need speaker names
	// Sort is a domain.HistorySort; ScoreFrom and ScoreUnder bound the
	// score as typed; Agent is a value of the account's agent key; Review
	// "1" keeps the calls that need review.
	Sort, ScoreFrom, ScoreUnder, Agent, Review string
	// At is the page's cursor (app.HistoryPage's Next or Prev).
	At string
}

// values are f's parameters, without the cursor.
func (f historyFilter) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"status": f.Status, "type": f.Type, "checklist": f.Checklist, "from": f.From, "to": f.To, "q": f.Q,
		"sort": f.Sort, "scoreFrom": f.ScoreFrom, "scoreUnder": f.ScoreUnder, "agent": f.Agent, "review": f.Review, "needs": f.Needs} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

// query is the history's address with f, at the page of cursor at.
func (f historyFilter) query(at string) string {
	v := f.values()
	if at != "" {
		v.Set("at", at)
	}
	if len(v) == 0 {
		return Prefix + "/recordings"
	}
	return Prefix + "/recordings?" + v.Encode()
}

// filtered reports whether f keeps fewer calls than the whole history.
func (f historyFilter) filtered() bool {
	return f.Status != "" || f.Type != "" || f.Checklist != "" || f.From != "" || f.To != "" || f.Q != "" ||
		f.ScoreFrom != "" || f.ScoreUnder != "" || f.Agent != "" || f.Review != "" || f.Needs != ""
}

type historyData struct {
	Filter     historyFilter
	Rows       []historyRow
	Total      int
	Prev, Next string
	First      string // the first page, when this is not it
	Statuses   []domain.Status
	Types      []domain.JobType
	Checklists []domain.Checklist
	Sorts      []domain.HistorySort
	Filtered   bool
	// Columns are the metadata keys the account shows as columns
	// (domain.Account.ListColumns, with its agent key first).
	Columns  []string
	AgentKey string
	// Triage is the quick filter "this week, under 0.5" over the current
	// one; NoAgent the current filter without its agent.
	Triage, NoAgent string
	// Query is the filter's query string, which a recording's link
	// carries so that its page can step to the next and previous call.
	Query string
	// Bulk says what "select all matching" may take (bulk.go).
	BulkMax int
}

type historyRow struct {
	Job      ports.ListedJob
	Duration *float64
	Analysis *domain.Analysis
	Score    domain.Score
	// Reviewed: Score is the reviewed score of a current review.
	Reviewed bool
	// With a search: the title with the match marked, and a piece of the
	// transcript or metadata around the match.
	TitleMatch, Snippet *domain.Snippet
	// Columns are the row's values of the account's metadata columns.
	Columns []columnCell
	// Href is the recording's page, carrying the list's filter and the
	// row's place in its order.
	Href string
}

// columnCell is one metadata column of a history row; Href, on the
// account's agent column, lists that agent's calls.
type columnCell struct {
	Key, Value, Href string
}

// historyFilterOf reads the history's query string.
func historyFilterOf(c *fiber.Ctx) historyFilter {
	return historyFilterOfValues(url.Values{
		"status": {c.Query("status")}, "type": {c.Query("type")}, "checklist": {c.Query("checklist")}, "from": {c.Query("from")},
		"to": {c.Query("to")}, "q": {c.Query("q")}, "sort": {c.Query("sort")}, "scoreFrom": {c.Query("scoreFrom")},
		"scoreUnder": {c.Query("scoreUnder")}, "agent": {c.Query("agent")}, "review": {c.Query("review")}, "needs": {c.Query("needs")}, "at": {c.Query("at")}})
}

// historyFilterOfValues reads the history's parameters from v (a query
// string, or the bulk form's filter).
func historyFilterOfValues(v url.Values) historyFilter {
	return historyFilter{Status: v.Get("status"), Type: v.Get("type"), Checklist: v.Get("checklist"),
		From: v.Get("from"), To: v.Get("to"), Q: strings.TrimSpace(v.Get("q")),
		Sort: v.Get("sort"), ScoreFrom: strings.TrimSpace(v.Get("scoreFrom")), ScoreUnder: strings.TrimSpace(v.Get("scoreUnder")),
		Agent: strings.TrimSpace(v.Get("agent")), Review: v.Get("review"), Needs: needsOf(v.Get("needs")), At: v.Get("at")}
}

// needsOf keeps the one "needs" value the history knows: "names", the
// calls that need speaker names.
func needsOf(s string) string {
	if s == "names" {
		return s
	}
	return ""
}

// historyQuery is the list command of f for visitor v (its page is f.At);
// a part of f that is not valid is dropped from f and described in the
// returned message.
func (w *Web) historyQuery(v *app.Visitor, lang Lang, f *historyFilter) (app.ListCommand, string) {
	q := app.ListCommand{History: true, Status: domain.Status(f.Status), Type: domain.JobType(f.Type), ChecklistID: f.Checklist, Search: f.Q,
		Agent: f.Agent, NeedsReview: f.Review == "1", NeedsSpeakerNames: f.Needs == "names", Limit: app.HistoryPageSize}
	var problem string
	if d, err := time.ParseInLocation(time.DateOnly, f.From, w.zoneOf(v)); err == nil {
		q.From = d
	} else if f.From != "" {
		problem, f.From = fmt.Sprintf(text(lang, "filter.baddate"), text(lang, "filter.from"), f.From), ""
	}
	if d, err := time.ParseInLocation(time.DateOnly, f.To, w.zoneOf(v)); err == nil {
		q.To = d.AddDate(0, 0, 1) // the "to" day is included
	} else if f.To != "" {
		problem, f.To = fmt.Sprintf(text(lang, "filter.baddate"), text(lang, "filter.to"), f.To), ""
	}
	if !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To) {
		problem = tf(lang, "filter.badrange", f.From, f.To)
	}
	if s, err := domain.ParseHistorySort(f.Sort); err == nil {
		q.Sort = s
	} else {
		problem, f.Sort, f.At = text(lang, "find.badsort"), "", ""
	}
	var err error
	if q.ScoreFrom, err = domain.ParseScoreBound("scoreFrom", f.ScoreFrom); err != nil {
		problem, f.ScoreFrom = tf(lang, "find.badscore", f.ScoreFrom), ""
	}
	if q.ScoreUnder, err = domain.ParseScoreBound("scoreUnder", f.ScoreUnder); err != nil {
		problem, f.ScoreUnder = tf(lang, "find.badscore", f.ScoreUnder), ""
	}
	q.Cursor = f.At
	return q, problem
}

func (w *Web) history(c *fiber.Ctx) error {
	v := visitorOf(c)
	f := historyFilterOf(c)
	vw := w.newView(c, v, "rec.title", "recordings")
	vw.Flash = deletedFlash(vw.Lang, c.Query("deleted"))
	q, problem := w.historyQuery(v, vw.Lang, &f)
	vw.Error = problem
	page, err := w.queries.ListJobs.Handle(c.UserContext(), app.PersonActor(v), q)
	if ve, ok := errors.AsType[*domain.ValidationError](err); ok {
		// A stale link's cursor, or an agent with no agent key: the
		// first page, saying why.
		vw.Error, f.At, q.Cursor = invalidText(vw.Lang, ve), "", ""
		if ve.Code == "no_agent_key" {
			f.Agent, q.Agent = "", ""
		}
		page, err = w.queries.ListJobs.Handle(c.UserContext(), app.PersonActor(v), q)
	}
	if err != nil {
		return err
	}
	cls, err := w.queries.ListChecklists.Handle(c.UserContext(), v.Account.ID)
	if err != nil {
		return err
	}
	d := historyData{Filter: f, Total: page.Total, Checklists: cls, Sorts: domain.HistorySorts,
		Statuses: []domain.Status{domain.StatusUploading, domain.StatusProcessing, domain.StatusConverting, domain.StatusTranscribed, domain.StatusFailed},
		Types:    []domain.JobType{domain.TypeSingleVoice, domain.TypePhoneCall},
		Columns:  historyColumns(v.Account), AgentKey: v.Account.AgentKey,
		Filtered: f.filtered(), Query: f.values().Encode(), BulkMax: app.MaxBulkSelection}
	if page.Prev != "" {
		d.Prev, d.First = f.query(page.Prev), f.query("")
	}
	if page.Next != "" {
		d.Next = f.query(page.Next)
	}
	triage := f
	triage.At, triage.ScoreFrom, triage.ScoreUnder, triage.To = "", "", "0.5", ""
	triage.From = weekStart(time.Now().In(w.zoneOf(v))).Format(time.DateOnly)
	d.Triage = triage.query("")
	noAgent := f
	noAgent.At, noAgent.Agent = "", ""
	d.NoAgent = noAgent.query("")
	for _, j := range page.Jobs {
		row := historyRow{Job: j, Duration: j.Duration}
		for _, k := range d.Columns {
			cell := columnCell{Key: k, Value: domain.MetadataValue(j.Metadata, k)}
			if k == v.Account.AgentKey && cell.Value != "" {
				byAgent := f
				byAgent.At, byAgent.Agent = "", cell.Value
				cell.Href = byAgent.query("")
			}
			row.Columns = append(row.Columns, cell)
		}
		at := url.Values{}
		if d.Query != "" {
			at, _ = url.ParseQuery(d.Query)
		}
		at.Set("at", domain.HistoryCursor{Sort: q.Sort, Key: app.ListedKey(q.Sort, j)}.String())
		row.Href = Prefix + "/recordings/" + url.PathEscape(string(j.ID)) + "?" + at.Encode()
		if f.Q != "" {
			row.TitleMatch, row.Snippet = searchSnippets(j, f.Q)
		}
		if a, ok := page.Analyses[j.ID]; ok {
			row.Analysis = &a
			row.Score, row.Reviewed = page.Scores[j.ID], page.Reviewed[j.ID]
		}
		d.Rows = append(d.Rows, row)
	}
	vw.Data = d
	return w.render(c, "recordings", vw)
}

// historyColumns are the account's metadata columns, its agent key first.
func historyColumns(a domain.Account) []string {
	cols := a.ListColumnKeys()
	if a.AgentKey != "" && !slices.Contains(cols, a.AgentKey) {
		cols = append([]string{a.AgentKey}, cols...)
	}
	return cols
}

// weekStart is the Monday 00:00 of t's week, in t's zone.
func weekStart(t time.Time) time.Time {
	back := (int(t.Weekday()) + 6) % 7
	y, m, d := t.AddDate(0, 0, -back).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

// searchSnippets shows where q matched j: in its title (marked there) and
// in a piece of the transcript (read from the store's excerpt of it), else
// of the metadata values.
func searchSnippets(j ports.ListedJob, q string) (title, piece *domain.Snippet) {
	if sn, ok := domain.FindSnippet(j.Title, q, len(j.Title)); ok {
		title = &sn
	}
	if sn, ok := domain.FindSnippet(j.Excerpt, q, domain.SnippetRadius); ok {
		return title, &sn
	}
	if sn, ok := domain.FindSnippet(strings.Join(domain.SearchMetadataValues(j.Metadata), " · "), q, domain.SnippetRadius); ok {
		return title, &sn
	}
	return title, nil
}

// statusJSON is one job in the live-status answer.
type statusJSON struct {
	Status     domain.Status `json:"status"`
	StatusText string        `json:"statusText"`
	Terminal   bool          `json:"terminal"`
	Title      string        `json:"title"`
	Duration   string        `json:"duration"`
	Reason     string        `json:"reason"` // why it failed, or why its upload was refused, for people
	Error      string        `json:"error"`  // the job's error as stored, to compare
	// Checklist is the history's checklist column once it is settled
	// (absent while the analysis is awaited).
	Checklist *liveChecklist `json:"checklist,omitempty"`
}

// statuses answers the pages' live updates: GET /app/recordings/status?id=…
func (w *Web) statuses(c *fiber.Ctx) error {
	v := visitorOf(c)
	var ids []domain.DocID
	for _, raw := range c.Context().QueryArgs().PeekMulti("id") {
		if len(ids) == 100 {
			return c.Status(fiber.StatusBadRequest).JSON(fiber.Map{"error": "at most 100 ids per request"})
		}
		ids = append(ids, domain.DocID(raw))
	}
	jobs, err := w.queries.RecordingStatuses.Handle(c.UserContext(), v.Account.ID, ids)
	if err != nil {
		return err
	}
	lang := w.lang(c)
	analyses, err := w.liveAnalyses(c, v.Account.ID, jobs)
	if err != nil {
		return err
	}
	out := make(map[domain.DocID]statusJSON, len(jobs))
	for id, j := range jobs {
		dur := "—"
		if d := j.Duration(); d != nil {
			dur = clock(*d)
		}
		reason := failureText(lang, j.Error)
		if reason != "" && j.Status == domain.StatusUploading {
			reason = text(lang, "rec.refused") + ": " + reason
		}
		out[id] = statusJSON{Status: j.Status, StatusText: text(lang, "status."+string(j.Status)), Terminal: j.Status.Terminal(), Title: j.Title, Duration: dur, Reason: reason, Error: j.Error,
			Checklist: checklistCell(lang, j, analyses)}
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(fiber.Map{"jobs": out})
}

type recordingData struct {
	app.Recording
	// Steps, on a page opened from the history, lead to the list and
	// to the calls before and after this one in its order and filter.
	Steps    *callSteps
	Turns    []domain.Segment
	Results  []questionRow
	Resent   string
	Saved    string // "speakers" after naming them
	AudioURL string
	Duration *float64
	// Owner shows the Resend buttons (members only read).
	Owner bool
	// NameSpeakers shows the speakers' form (domain.Role.MayNameSpeakers).
	NameSpeakers bool
	// MayReview shows the review form (domain.Role.MayReview); FormComment
	// is the comment it starts with (review.go).
	MayReview   bool
	FormComment string
	// Answers lists the answer set a reviewer picks from.
	Answers []string
	Speeds  []string // playback rates offered beside the player
}

type questionRow struct {
	ID string
	domain.QuestionResult
	// Reviewed is the current review's answer (nil without one) and
	// ReviewedScore its score; FormAnswer and FormReason what the review
	// form starts with (review.go).
	Reviewed               *domain.ReviewedAnswer
	ReviewedScore          float64
	FormAnswer, FormReason string
}

func (w *Web) recording(c *fiber.Ctx) error {
	v := visitorOf(c)
	return w.renderRecording(c, v, domain.DocID(c.Params("docId")), nil)
}

// renderRecording shows a recording's page, with failed (a refused resend)
// as its error.
func (w *Web) renderRecording(c *fiber.Ctx, v *app.Visitor, doc domain.DocID, failed error) error {
	rec, err := w.queries.GetJob.Handle(c.UserContext(), app.PersonActor(v), app.GetCommand{DocID: doc, Page: true})
	if err != nil {
		return err
	}
	vw := w.newView(c, v, "rec.title", "recordings")
	if rec.Job.Title != "" {
		vw.Title = rec.Job.Title
	}
	if failed != nil {
		vw.Status, vw.Error = fiber.StatusBadRequest, invalidText(vw.Lang, failed)
		if rc, ok := errors.AsType[*app.RoleChangesError](failed); ok {
			key := "speaker.limit.account"
			if rc.PerCall {
				key = "speaker.limit.call"
			}
			vw.Status, vw.Error = fiber.StatusTooManyRequests, tf(vw.Lang, key, rc.Limit)
			c.Set(fiber.HeaderRetryAfter, "60")
		}
		if rl, ok := errors.AsType[*app.RateLimitError](failed); ok { // resends
			vw.Status, vw.Error = fiber.StatusTooManyRequests, tf(vw.Lang, "resend.limited", rl.Limit)
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(rl.RetryAfter))
		}
		vw.Path = Prefix + "/recordings/" + url.PathEscape(string(doc))
	}
	d := recordingData{Recording: rec, Turns: rec.Job.Segments, Duration: rec.Job.Duration(), Resent: c.Query("resent"), Saved: c.Query("saved"),
		Owner: v.User.Role == domain.RoleOwner, NameSpeakers: v.User.Role.MayNameSpeakers(), MayReview: v.User.Role.MayReview(),
		Answers: []string{domain.AnswerYes, domain.AnswerNo, domain.AnswerUnclear}, AudioURL: Prefix + "/recordings/" + url.PathEscape(string(rec.Job.ID)) + "/audio",
		Speeds: []string{"0.75", "1", "1.25", "1.5", "2"}}
	if rec.Analysis != nil {
		d.Results = orderedResults(rec.Analysis, rec.Order)
		form, _ := c.Locals(reviewFormKey).(url.Values)
		reviewRows(d.Results, &d, form)
	}
	steps, err := w.callSteps(c, v, vw.Lang, rec.Job.ID)
	if err != nil {
		return err
	}
	d.Steps = steps
	for i := range d.Deliveries {
		d.Deliveries[i].URL = receiverShown(d.Deliveries[i].URL, d.Owner)
		d.Deliveries[i].Error = receiverShown(d.Deliveries[i].Error, d.Owner)
	}
	vw.Data = d
	return w.render(c, "recording", vw)
}

// orderedResults lists an analysis's answers in the order the checklist's
// author wrote the questions; answers to questions not in order (a version
// that is gone) follow, by id.
func orderedResults(a *domain.Analysis, order []string) []questionRow {
	rank := make(map[string]int, len(order))
	for i, id := range order {
		rank[id] = i
	}
	at := func(id string) int {
		if i, ok := rank[id]; ok {
			return i
		}
		return len(order)
	}
	rows := make([]questionRow, 0, len(a.Results))
	for id, r := range a.Results {
		rows = append(rows, questionRow{ID: id, QuestionResult: r})
	}
	slices.SortFunc(rows, func(a, b questionRow) int {
		if c := at(a.ID) - at(b.ID); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return rows
}

// audio streams the recording's MP3, answering byte ranges (RFC 9110 §14)
// so that the player can seek without downloading the whole file.
func (w *Web) audio(c *fiber.Ctx) error {
	v := visitorOf(c)
	r, size, err := w.queries.RecordingAudio.Handle(c.UserContext(), v.Account.ID, domain.DocID(c.Params("docId")))
	if errors.Is(err, domain.ErrNotFound) {
		return c.Status(fiber.StatusNotFound).JSON(fiber.Map{"error": "no audio for this recording"})
	}
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "audio/mpeg")
	c.Set(fiber.HeaderAcceptRanges, "bytes")
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	start, end := int64(0), size-1
	if rh := c.Get(fiber.HeaderRange); rh != "" && size > 0 {
		s, e, err := fasthttp.ParseByteRange([]byte(rh), int(size))
		// fasthttp reads "bytes=-0" (no bytes) as the empty range size..size-1;
		// RFC 9110 §14.1.2: a suffix of zero bytes cannot be satisfied.
		if err != nil || s > e || e >= int(size) {
			_ = r.Close()
			c.Set(fiber.HeaderContentRange, "bytes */"+strconv.FormatInt(size, 10))
			return c.Status(fiber.StatusRequestedRangeNotSatisfiable).JSON(fiber.Map{"error": "the range is outside the recording's " + strconv.FormatInt(size, 10) + " bytes"})
		}
		start, end = int64(s), int64(e)
		c.Status(fiber.StatusPartialContent)
		c.Set(fiber.HeaderContentRange, "bytes "+strconv.FormatInt(start, 10)+"-"+strconv.FormatInt(end, 10)+"/"+strconv.FormatInt(size, 10))
	}
	if start > 0 {
		if err := skip(r, start); err != nil {
			_ = r.Close()
			return err
		}
	}
	n := end - start + 1
	if c.Method() == fiber.MethodHead {
		_ = r.Close()
		c.Response().Header.SetContentLength(int(n))
		return nil
	}
	c.Context().SetBodyStream(&limitedCloser{r: io.LimitReader(r, n), c: r}, int(n))
	return nil
}

// skip moves r forward by n bytes: a seek when the blob store's reader
// can, else reading and discarding.
func skip(r io.Reader, n int64) error {
	if s, ok := r.(io.Seeker); ok {
		_, err := s.Seek(n, io.SeekStart)
		return err
	}
	_, err := io.CopyN(io.Discard, r, n)
	return err
}

type limitedCloser struct {
	r io.Reader
	c io.Closer
}

func (l *limitedCloser) Read(p []byte) (int, error) { return l.r.Read(p) }
func (l *limitedCloser) Close() error               { return l.c.Close() }

func (w *Web) resend(c *fiber.Ctx) error {
	v := visitorOf(c)
	if err := w.commands.Resend.Allowed(app.PersonActor(v)); err != nil { // the use case's role rule, asked before the form is read
		return err
	}
	if _, err := w.postForm(c, v); err != nil {
		return err
	}
	doc := domain.DocID(c.Params("docId"))
	d, err := w.commands.Resend.Handle(c.UserContext(), app.PersonActor(v), app.ResendCommand{DocID: doc, DeliveryID: c.Params("id")})
	if errors.Is(err, domain.ErrValidation) || errors.Is(err, domain.ErrRateLimited) {
		return w.renderRecording(c, v, doc, err)
	}
	if err != nil {
		return err
	}
	return c.Redirect(Prefix+"/recordings/"+url.PathEscape(string(doc))+"?resent="+url.QueryEscape(d.ID)+"#deliveries", fiber.StatusSeeOther)
}
