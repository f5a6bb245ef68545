package web

import (
	"context"
	"errors"
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// passwordPage is GET /app/password: change your own password.
func (w *Web) passwordPage(c *fiber.Ctx) error {
	v := visitorOf(c)
	vw := w.newView(c, v, "pw.title", "")
	if c.Query("saved") != "" {
		vw.Flash = text(vw.Lang, "pw.changed")
	}
	return w.render(c, "password", vw)
}

// changePassword is POST /app/password: the current password is required;
// every other session of the person is signed out, this one stays.
func (w *Web) changePassword(c *fiber.Ctx) error {
	v := visitorOf(c)
	f, err := w.postForm(c, v)
	if err != nil {
		return err
	}
	// Two slips the form catches before the current password is checked:
	// both are about what the person typed just now, so saying so tells
	// nobody anything.
	switch {
	case f.Get("confirm") != f.Get("password"):
		err = domain.Invalid("mismatch", "the new password and its repetition differ")
	case f.Get("password") == f.Get("current"):
		err = domain.Invalid("same", "the new password is the same as the current one")
	default:
		err = w.commands.ChangePassword.Handle(c.UserContext(), *v, f.Get("current"), f.Get("password"))
	}
	var ve *domain.ValidationError
	if errors.As(err, &ve) {
		vw := w.newView(c, v, "pw.title", "")
		vw.Status, vw.Error = fiber.StatusBadRequest, validationText(vw.Lang, "pw.err.", ve)
		return w.render(c, "password", vw)
	}
	if err != nil {
		return err
	}
	return c.Redirect(Prefix+"/password?saved=1", fiber.StatusSeeOther)
}

// resetPage is GET /app/reset/{token}: set a new password with a one-time
// link from an owner or an operator.
func (w *Web) resetPage(c *fiber.Ctx) error {
	vw := w.newView(c, nil, "pw.reset.title", "")
	vw.NoIndex = true
	u, err := w.queries.GetPasswordReset.Handle(c.UserContext(), c.Params("token"))
	if errors.Is(err, domain.ErrNotFound) {
		vw.Status, vw.Error = fiber.StatusNotFound, text(vw.Lang, "pw.reset.gone")
		return w.render(c, "error", vw)
	}
	if err != nil {
		return err
	}
	w.linkLang(c, vw, u, "pw.reset.title")
	vw.CSRF, vw.Data = w.anonCSRF(c), authForm{Email: u.Email, Token: url.PathEscape(c.Params("token"))}
	return w.render(c, "reset", vw)
}

// resetPassword is POST /app/reset/{token}: every session of the person
// is signed out and this browser signed in.
func (w *Web) resetPassword(c *fiber.Ctx) error {
	return w.setPasswordWithLink(c, "reset", "pw.reset.title", "pw.reset.gone", w.commands.ResetPassword.Handle)
}

// setPasswordWithLink answers the form of a one-time link's page (an
// invitation or a password reset): set sets the password with the link's
// token and signs the person in; a used or unknown link is the page gone.
func (w *Web) setPasswordWithLink(c *fiber.Ctx, page, titleKey, goneKey string, set func(ctx context.Context, token, password string) (app.SignedIn, error)) error {
	f, err := w.form(c)
	if err == nil {
		err = checkAnonCSRF(c, f)
	}
	if err != nil {
		return badForm{err}
	}
	in, err := set(c.UserContext(), c.Params("token"), f.Get("password"))
	if err != nil {
		vw := w.newView(c, nil, titleKey, "")
		var ve *domain.ValidationError
		switch {
		case errors.Is(err, domain.ErrNotFound):
			vw.Status, vw.Error = fiber.StatusNotFound, text(vw.Lang, goneKey)
			return w.render(c, "error", vw)
		case errors.As(err, &ve):
			vw.CSRF, vw.Status, vw.Error = w.anonCSRF(c), fiber.StatusBadRequest, validationText(vw.Lang, "pw.err.", ve)
			vw.Data = authForm{Token: url.PathEscape(c.Params("token"))}
			return w.render(c, page, vw)
		}
		return err
	}
	if in.Token != "" { // none for an invitation to an address that signed up meanwhile, as sign-up
		w.startSession(c, in)
	}
	return c.Redirect(Prefix+"/recordings", fiber.StatusSeeOther)
}
