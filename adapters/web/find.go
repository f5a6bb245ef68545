package web

import (
	"errors"
	"html/template"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// findFuncs are the template functions of the history's columns and
// triage (issue 36).
func findFuncs() template.FuncMap {
	return template.FuncMap{
		"maxListColumns": func() int { return domain.MaxListColumns },
		// joinColumns is the account's list columns as an owner types them.
		"joinColumns": func(a domain.Account) string { return strings.Join(a.ListColumnKeys(), ", ") },
		"sortKey":     func(s domain.HistorySort) string { return "find.sort." + string(s) },
	}
}

// callSteps are the links of a recording's page opened from the history.
type callSteps struct {
	List, Prev, Next string
}

// callSteps reads the history's filter and the call's place (at) from a
// recording page's query string, and finds the calls before and after it
// (app.ListJobs.Neighbours); nil when the page was not opened from
// the history.
func (w *Web) callSteps(c *fiber.Ctx, v *app.Visitor, lang Lang, doc domain.DocID) (*callSteps, error) {
	f := historyFilterOf(c)
	if f.At == "" {
		return nil, nil
	}
	q, _ := w.historyQuery(v, lang, &f)
	n, err := w.queries.ListJobs.Neighbours(c.UserContext(), app.PersonActor(v), q, f.At, doc)
	if _, ok := errors.AsType[*domain.ValidationError](err); ok {
		return nil, nil // an agent filter the account no longer has a key for
	}
	if err != nil {
		return nil, err
	}
	f.At = ""
	s := &callSteps{List: f.query("")}
	link := func(id domain.DocID, cur string) string {
		vals := f.values()
		vals.Set("at", cur)
		return Prefix + "/recordings/" + url.PathEscape(string(id)) + "?" + vals.Encode()
	}
	if n.Prev != "" {
		s.Prev = link(n.Prev, n.PrevAt)
	}
	if n.Next != "" {
		s.Next = link(n.Next, n.NextAt)
	}
	return s, nil
}
