package web

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

type teamData struct {
	Account domain.Account
	Members []domain.User
	Owner   bool
	// Link is a one-time link just made (an invitation or a password
	// reset), shown once to copy; LinkFor names whom it is for.
	Link, LinkFor, LinkKind string
	Email                   string // the invitation form's value after an error
	Roles                   []domain.Role
	// Mailed: the link was e-mailed too; MailFailed: e-mail is on but
	// the relay refused it (copy the link instead). Mail: e-mail is on.
	Mailed, MailFailed, Mail bool
}

// team is GET /app/team: the account's people; owners invite, change roles,
// remove people and make password reset links.
func (w *Web) team(c *fiber.Ctx) error {
	v := visitorOf(c)
	vw := w.newView(c, v, "team.title", "team")
	if c.Query("saved") != "" {
		vw.Flash = text(vw.Lang, "set.saved")
	}
	return w.renderTeam(c, v, vw, teamData{})
}

func (w *Web) renderTeam(c *fiber.Ctx, v *app.Visitor, vw *view, d teamData) error {
	ms, err := w.queries.ListMembers.Handle(c.UserContext(), v.Account.ID)
	if err != nil {
		return err
	}
	d.Account, d.Members, d.Owner, d.Roles = v.Account, ms, v.User.Role.MayManage(), domain.Roles
	d.Mail = w.deps.Letters.Enabled()
	vw.Data = &d
	vw.Path = Prefix + "/team" // a language switch must not repeat a POST
	return w.render(c, "team", vw)
}

// teamError shows a refused team change on the team page.
func (w *Web) teamError(c *fiber.Ctx, v *app.Visitor, err error, d teamData) error {
	var ve *domain.ValidationError
	switch {
	case errors.As(err, &ve):
		vw := w.newView(c, v, "team.title", "team")
		vw.Status, vw.Error = fiber.StatusBadRequest, validationText(vw.Lang, "team.err.", ve)
		return w.renderTeam(c, v, vw, d)
	case errors.Is(err, domain.ErrRateLimited):
		vw := w.newView(c, v, "team.title", "team")
		w.busyOrLimited(c, vw, err)
		return w.renderTeam(c, v, vw, d)
	}
	return err
}

// invite is POST /app/team/invite: the page answering it shows the
// one-time link to copy (it is not stored, so it cannot be shown again).
func (w *Web) invite(c *fiber.Ctx) error {
	v := visitorOf(c)
	f, err := w.postForm(c, v)
	if err != nil {
		return err
	}
	u, token, err := w.commands.InviteMember.Handle(c.UserContext(), v.Account.ID, v.User.Role, f.Get("email"), domain.Role(f.Get("role")))
	if err != nil {
		return w.teamError(c, v, err, teamData{Email: f.Get("email")})
	}
	vw := w.newView(c, v, "team.title", "team")
	u.Lang = string(parseLang(f.Get("lang")))
	if f.Get("lang") == "" {
		u.Lang = string(vw.Lang)
	}
	w.rememberLang(c, u.ID, Lang(u.Lang))
	d := teamData{Link: w.link(app.InvitePath(token)), LinkFor: u.Email, LinkKind: "invite"}
	w.mailLink(c, v, &d, u, token, true)
	return w.renderTeam(c, v, vw, d)
}

// setRole is POST /app/team/{id}/role.
func (w *Web) setRole(c *fiber.Ctx) error {
	v := visitorOf(c)
	f, err := w.postForm(c, v)
	if err != nil {
		return err
	}
	if err := w.commands.SetRole.Handle(c.UserContext(), v.Account.ID, v.User.Role, c.Params("id"), domain.Role(f.Get("role"))); err != nil {
		return w.teamError(c, v, err, teamData{})
	}
	return c.Redirect(Prefix+"/team?saved=1", fiber.StatusSeeOther)
}

// removeMember is POST /app/team/{id}/remove.
func (w *Web) removeMember(c *fiber.Ctx) error {
	v := visitorOf(c)
	_, err := w.postForm(c, v)
	if err != nil {
		return err
	}
	if err := w.commands.RemoveMember.Handle(c.UserContext(), v.Account.ID, v.User.Role, c.Params("id")); err != nil {
		return w.teamError(c, v, err, teamData{})
	}
	if c.Params("id") == v.User.ID {
		return c.Redirect(Prefix+"/signin", fiber.StatusSeeOther)
	}
	return c.Redirect(Prefix+"/team?saved=1", fiber.StatusSeeOther)
}

// resetLink is POST /app/team/{id}/reset: a one-time password reset link
// for one of the account's people (a renewed invitation for someone who
// has not accepted theirs), shown once to copy.
func (w *Web) resetLink(c *fiber.Ctx) error {
	v := visitorOf(c)
	_, err := w.postForm(c, v)
	if err != nil {
		return err
	}
	ms, err := w.queries.ListMembers.Handle(c.UserContext(), v.Account.ID)
	if err != nil {
		return err
	}
	email := ""
	for _, m := range ms {
		if m.ID == c.Params("id") {
			email = m.Email
		}
	}
	if email == "" {
		return domain.ErrNotFound
	}
	u, token, invited, err := w.commands.ResetLink.Handle(c.UserContext(), v.Account.ID, v.User.Role, email)
	if err != nil {
		return w.teamError(c, v, err, teamData{})
	}
	d := teamData{Link: w.link(ResetPath(token, invited)), LinkFor: u.Email, LinkKind: "reset"}
	if invited {
		d.LinkKind = "invite"
	}
	w.mailLink(c, v, &d, u, token, invited)
	return w.renderTeam(c, v, w.newView(c, v, "team.title", "team"), d)
}

// ResetPath is the web application's path of a reset token: the reset
// page, or the invitation page for a person who has not accepted theirs.
func ResetPath(token string, invited bool) string { return app.ResetPath(token, invited) }

// link is an absolute address on this service.
func (w *Web) link(path string) string {
	base := w.cfg.PublicURL
	for len(base) > 0 && base[len(base)-1] == '/' {
		base = base[:len(base)-1]
	}
	return base + path
}

// validationText is a validation error in the page's language when the
// interface has a text for prefix + its code, else as invalidText says it.
func validationText(lang Lang, prefix string, ve *domain.ValidationError) string {
	if k := prefix + ve.Code; hasText(k) {
		return text(lang, k)
	}
	return invalidText(lang, ve) // the domain's message, in the page's language where it has one
}
