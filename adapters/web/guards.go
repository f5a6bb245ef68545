package web

import (
	"errors"
	"net/url"
	"slices"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// Route groups. Every route belongs to one group, which says who may reach
// it and how its errors are answered:
//
//   - public: signed out or in (sign-in, sign-up, invitations, resets,
//     static files); errors are pages.
//   - signedIn: a page for anyone signed in; signed out, a redirect to the
//     sign-in page that comes back.
//   - manage: a page only for roles that domain.Role.MayManage (owners);
//     others get the 403 page.
//   - scripts and scriptsManage: the same two for the JSON the pages'
//     scripts ask for; signed out is 401 JSON, another role 403 JSON.
//
// A group's guard resolves the session once and puts the visitor in
// c.Locals; handlers read it with visitorOf. The guard only decides sign-in
// and the page-level owner gate: what a role may do is the use cases' rule
// (they take the role). Handlers return errors, and the group's one mapper
// (fail or failJSON) answers them.
type group struct {
	r      fiber.Router
	guards []fiber.Handler
	fail   func(*fiber.Ctx, error) error
}

func (g group) get(path string, h fiber.Handler)  { g.add(fiber.MethodGet, path, h) }
func (g group) post(path string, h fiber.Handler) { g.add(fiber.MethodPost, path, h) }

func (g group) add(method, path string, h fiber.Handler) {
	fail := g.fail
	hs := append(slices.Clone(g.guards), func(c *fiber.Ctx) error {
		if err := h(c); err != nil {
			return fail(c, err)
		}
		return nil
	})
	if method == fiber.MethodGet {
		g.r.Get(path, hs...) // HEAD too
		return
	}
	g.r.Add(method, path, hs...)
}

// groups are the web application's route groups on r.
func (w *Web) groups(r fiber.Router) (public, signedIn, manage, scripts, scriptsManage group) {
	return group{r, nil, w.fail},
		group{r, []fiber.Handler{w.signedInPage}, w.fail},
		group{r, []fiber.Handler{w.managePage}, w.fail},
		group{r, []fiber.Handler{w.signedInScript}, w.failJSON},
		group{r, []fiber.Handler{w.manageScript}, w.failJSON}
}

// The guards, one per group (a test tells them apart by name).
func (w *Web) signedInPage(c *fiber.Ctx) error   { return w.guardPage(c, false) }
func (w *Web) managePage(c *fiber.Ctx) error     { return w.guardPage(c, true) }
func (w *Web) signedInScript(c *fiber.Ctx) error { return w.guardJSON(c, false) }
func (w *Web) manageScript(c *fiber.Ctx) error   { return w.guardJSON(c, true) }

// localVisitor is the c.Locals key of the signed-in visitor.
const localVisitor = "web.visitor"

// visitorOf is the visitor a group's guard let through.
func visitorOf(c *fiber.Ctx) *app.Visitor {
	v, _ := c.Locals(localVisitor).(*app.Visitor)
	return v
}

// guardPage lets through a signed-in visitor (manage: one whose role may
// manage the account); others are sent to sign in, or get the 403 page.
func (w *Web) guardPage(c *fiber.Ctx, manage bool) error {
	v, err := w.visitor(c)
	if err != nil {
		return w.fail(c, err)
	}
	if v == nil {
		next := string(c.Request().URI().RequestURI())
		return c.Redirect(Prefix+"/signin?next="+url.QueryEscape(next), fiber.StatusSeeOther)
	}
	c.Locals(localVisitor, v)
	if manage && !v.User.Role.MayManage() {
		return w.fail(c, domain.ErrForbidden)
	}
	return c.Next()
}

// guardJSON is guardPage for scripts: 401 and 403 JSON.
func (w *Web) guardJSON(c *fiber.Ctx, manage bool) error {
	v, err := w.visitor(c)
	if err != nil {
		return w.failJSON(c, err)
	}
	if v == nil {
		return w.jsonError(c, fiber.StatusUnauthorized, "unauthorized", text(w.lang(c), "up.err.signin"), nil)
	}
	c.Locals(localVisitor, v)
	if manage && !v.User.Role.MayManage() {
		return w.failJSON(c, domain.ErrForbidden)
	}
	return c.Next()
}

// fail is the one place a page's error becomes its answer, in the page's
// language: 404 for what is not there (or is another account's), 403 for
// what the role may not do, the form's own answers (too large, a stale
// CSRF token, not a form), 400 with the reason for invalid input, and
// otherwise serverError's 503 (an outage) or 500 with nothing internal.
func (w *Web) fail(c *fiber.Ctx, err error) error {
	v := visitorOf(c)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return w.notFound(c)
	case errors.Is(err, domain.ErrForbidden):
		vw := w.newView(c, v, "err.forbidden", "")
		vw.Status, vw.Error = fiber.StatusForbidden, text(vw.Lang, "set.owneronly")
		return w.render(c, "error", vw)
	case isFormError(err):
		return w.formError(c, v, err)
	case errors.Is(err, domain.ErrValidation):
		vw := w.newView(c, v, "err.title", "")
		vw.Status, vw.Error = fiber.StatusBadRequest, invalidText(vw.Lang, err)
		return w.render(c, "error", vw)
	}
	return w.serverError(c, err)
}

// failJSON is fail for the scripts' requests: JSON {"error","code"}.
func (w *Web) failJSON(c *fiber.Ctx, err error) error {
	lang := w.lang(c)
	var ve *domain.ValidationError
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return w.jsonError(c, fiber.StatusNotFound, "not_found", text(lang, "err.notfound.body"), nil)
	case errors.Is(err, domain.ErrForbidden):
		return w.jsonError(c, fiber.StatusForbidden, "owner_only", text(lang, "set.owneronly"), nil)
	case errors.Is(err, errFormTooLarge):
		return w.jsonError(c, fiber.StatusRequestEntityTooLarge, "form_too_large", text(lang, "err.toolarge"), nil)
	case errors.Is(err, errCSRF):
		return w.jsonError(c, fiber.StatusForbidden, "csrf", text(lang, "err.csrf"), nil)
	case isFormError(err):
		return w.jsonError(c, fiber.StatusBadRequest, "bad_form", err.Error(), nil)
	case errors.As(err, &ve):
		return w.jsonError(c, fiber.StatusBadRequest, ve.Code, invalidText(lang, ve), nil)
	}
	return w.jsonError(c, fiber.StatusInternalServerError, "internal", text(lang, "err.server"), err)
}

// badForm marks what postForm refuses, so that fail answers it as a form.
type badForm struct{ err error }

func (e badForm) Error() string { return e.err.Error() }
func (e badForm) Unwrap() error { return e.err }

func isFormError(err error) bool {
	var bf badForm
	return errors.As(err, &bf)
}
