package web

import (
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

type checklistsData struct {
	Checklists []domain.Checklist
	Owner      bool
}

func (w *Web) checklists(c *fiber.Ctx) error {
	v := visitorOf(c)
	cls, err := w.queries.ListChecklists.Handle(c.UserContext(), v.Account.ID)
	if err != nil {
		return err
	}
	vw := w.newView(c, v, "cl.title", "checklists")
	if c.Query("saved") != "" {
		vw.Flash = text(vw.Lang, "set.saved")
	}
	vw.Data = checklistsData{Checklists: cls, Owner: v.User.Role.MayManage()}
	return w.render(c, "checklists", vw)
}

// editorData is the checklist editor: a new checklist (ID empty) or the
// next version of one.
type editorData struct {
	ID         string
	Version    int
	Name       string
	Questions  []questionForm
	Recordings []ports.ListedJob // transcribed recordings to preview against
	PreviewDoc string
	Preview    []questionRow
}

type questionForm struct {
	ID, Text, Expect, Weight string
	Role                     string // "agent", "customer" or "" (the whole call)
}

// blankQuestions are the empty rows offered without JavaScript.
const blankQuestions = 3

func (w *Web) newChecklist(c *fiber.Ctx) error {
	v := visitorOf(c)
	return w.renderEditor(c, v, &editorData{}, "", 0)
}

// editChecklist is GET /app/checklists/{id}: the editor for an owner, the
// questions to read for everyone else (domain.Role.MayReadChecklists).
func (w *Web) editChecklist(c *fiber.Ctx) error {
	v := visitorOf(c)
	cl, err := w.queries.ShowChecklist.Handle(c.UserContext(), v.Account.ID, v.User.Role, c.Params("id"), 0)
	if err != nil {
		return err
	}
	if !v.User.Role.MayManage() || cl.Archived {
		vw := w.newView(c, v, "cl.title", "checklists")
		vw.Data = cl
		return w.render(c, "checklistview", vw)
	}
	d := &editorData{ID: cl.ID, Version: cl.Version, Name: cl.Name}
	for _, q := range cl.Questions {
		qf := questionForm{ID: q.ID, Text: q.Text, Expect: strings.Join(q.Expect, ", "), Role: string(q.Role)}
		if q.Weight != 0 {
			qf.Weight = strconv.FormatFloat(q.Weight, 'f', -1, 64)
		}
		d.Questions = append(d.Questions, qf)
	}
	return w.renderEditor(c, v, d, "", 0)
}

func (w *Web) renderEditor(c *fiber.Ctx, v *app.Visitor, d *editorData, errMsg string, status int) error {
	for i := 0; i < blankQuestions; i++ {
		d.Questions = append(d.Questions, questionForm{})
	}
	page, err := w.queries.ListJobs.Handle(c.UserContext(), app.PersonActor(v), app.ListCommand{History: true, Status: domain.StatusTranscribed, Limit: 20})
	if err != nil {
		return err
	}
	d.Recordings = page.Jobs
	key := "cl.new"
	if d.ID != "" {
		key = "cl.edit"
	}
	vw := w.newView(c, v, key, "checklists")
	vw.Data, vw.Error, vw.Status = d, errMsg, status
	return w.render(c, "checklist", vw)
}

// definition turns the editor's fields into the checklist file format
// (docs/architecture.md, Operating contract) that the CLI also reads; rows left blank are dropped.
func definition(f url.Values) ([]byte, *editorData, error) {
	d := &editorData{ID: f.Get("id"), Name: f.Get("name"), PreviewDoc: f.Get("preview_doc")}
	d.Version, _ = strconv.Atoi(f.Get("version"))
	ids, texts, expects, weights, roles := f["q_id"], f["q_text"], f["q_expect"], f["q_weight"], f["q_role"]
	file := domain.ChecklistFile{Name: d.Name}
	for i := range texts {
		qf := questionForm{Text: texts[i]}
		if i < len(ids) {
			qf.ID = ids[i]
		}
		if i < len(expects) {
			qf.Expect = expects[i]
		}
		if i < len(weights) {
			qf.Weight = weights[i]
		}
		if i < len(roles) {
			qf.Role = roles[i]
		}
		if strings.TrimSpace(qf.ID+qf.Text+qf.Expect+qf.Weight) == "" {
			continue
		}
		d.Questions = append(d.Questions, qf)
		q := domain.Question{ID: strings.TrimSpace(qf.ID), Text: strings.TrimSpace(qf.Text), Role: domain.SpeakerRole(qf.Role)}
		if q.ID == "" { // people need not invent identifiers
			q.ID = "q" + strconv.Itoa(len(file.Questions)+1)
			d.Questions[len(d.Questions)-1].ID = q.ID
		}
		for _, e := range strings.Split(qf.Expect, ",") {
			if e = strings.TrimSpace(e); e != "" {
				q.Expect = append(q.Expect, e)
			}
		}
		if s := strings.TrimSpace(qf.Weight); s != "" {
			wt, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, d, domain.Invalid("invalid_checklist", "weight of question %q must be a number, not %q", q.ID, s)
			}
			q.Weight = wt
		}
		file.Questions = append(file.Questions, q)
	}
	b, err := json.Marshal(file)
	return b, d, err
}

func (w *Web) saveChecklist(c *fiber.Ctx) error {
	v := visitorOf(c)
	f, err := w.postForm(c, v)
	if err != nil {
		return err
	}
	id := c.Params("id")
	def, d, err := definition(f)
	d.ID = id
	var ve *domain.ValidationError
	if errors.As(err, &ve) {
		return w.renderEditor(c, v, d, invalidText(w.lang(c), ve), fiber.StatusBadRequest)
	}
	if err != nil {
		return err
	}
	if f.Get("action") == "preview" {
		if err := w.commands.AllowPreview.Handle(c.UserContext(), v.User.ID); err != nil {
			if errors.Is(err, domain.ErrRateLimited) {
				c.Set(fiber.HeaderRetryAfter, "60")
				return w.renderEditor(c, v, d, text(w.lang(c), "err.ratelimited"), fiber.StatusTooManyRequests)
			}
			return err
		}
		res, qs, err := w.queries.PreviewChecklist.Handle(c.UserContext(), v.Account.ID, def, domain.DocID(d.PreviewDoc))
		switch {
		case errors.As(err, &ve):
			return w.renderEditor(c, v, d, invalidText(w.lang(c), ve), fiber.StatusBadRequest)
		case errors.Is(err, domain.ErrNotFound):
			return w.renderEditor(c, v, d, text(w.lang(c), "cl.preview.none"), fiber.StatusBadRequest)
		case err != nil:
			return err
		}
		for _, q := range qs {
			d.Preview = append(d.Preview, questionRow{ID: q.ID, QuestionResult: res[q.ID]})
		}
		return w.renderEditor(c, v, d, "", 0)
	}
	if id == "" {
		_, err = w.commands.CreateChecklist.Handle(c.UserContext(), v.Account.ID, v.User.Role, def)
	} else {
		_, err = w.commands.UpdateChecklist.Handle(c.UserContext(), v.Account.ID, v.User.Role, id, def)
	}
	switch {
	case errors.As(err, &ve):
		return w.renderEditor(c, v, d, invalidText(w.lang(c), ve), fiber.StatusBadRequest)
	case errors.Is(err, domain.ErrConflict):
		return w.renderEditor(c, v, d, text(w.lang(c), "cl.conflict"), fiber.StatusConflict)
	case err != nil:
		return err
	}
	return c.Redirect(Prefix+"/checklists?saved=1", fiber.StatusSeeOther)
}

func (w *Web) archiveChecklist(c *fiber.Ctx) error {
	return w.button(c, func(v *app.Visitor) (string, error) {
		return Prefix + "/checklists?saved=1", w.commands.ArchiveChecklist.Handle(c.UserContext(), v.Account.ID, v.User.Role, c.Params("id"))
	})
}
