package web

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/adapters/forwarded"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// E-mail (issue 27): with Deps.Letters enabled (HYSCRIBE_SMTP_URL),
// invitations and reset links made on the team page are also e-mailed, in
// the recipient's language, and the sign-in page's "Forgot password?"
// e-mails a reset link. Without it the links are copied by hand as before.

type forgotData struct {
	Email   string
	Enabled bool // e-mail is sent
	Sent    bool // the form was sent: the one answer for every address
}

// forgotPage is GET /app/forgot.
func (w *Web) forgotPage(c *fiber.Ctx) error {
	vw := w.newView(c, nil, "forgot.title", "")
	vw.CSRF, vw.NoIndex = w.anonCSRF(c), true
	vw.Data = forgotData{Enabled: w.deps.Letters.Enabled(), Email: c.Query("email")}
	return w.render(c, "forgot", vw)
}

// forgot is POST /app/forgot: the same answer, "if this address has an
// account, a link is on its way", for a known and an unknown address.
func (w *Web) forgot(c *fiber.Ctx) error {
	f, err := w.form(c)
	if err == nil {
		err = checkAnonCSRF(c, f)
	}
	if err != nil {
		return badForm{err}
	}
	vw := w.newView(c, nil, "forgot.title", "")
	vw.CSRF, vw.NoIndex = w.anonCSRF(c), true
	d := forgotData{Enabled: w.deps.Letters.Enabled(), Email: f.Get("email")}
	err = w.commands.ForgotPassword.Handle(c.UserContext(), w.deps.Letters, f.Get("email"), forwarded.ClientIP(c), string(vw.Lang))
	var ve *domain.ValidationError
	switch {
	case err == nil:
		d.Sent = true
	case errors.As(err, &ve):
		vw.Status, vw.Error = fiber.StatusBadRequest, invalidText(vw.Lang, ve)
	case !w.busyOrLimited(c, vw, err):
		return err
	}
	vw.Data = d
	vw.Path = Prefix + "/forgot"
	return w.render(c, "forgot", vw)
}

// mailLink e-mails a link just made on the team page (an invitation when
// invited, else a password reset) when e-mail is on, and says on the page
// whether it went.
func (w *Web) mailLink(c *fiber.Ctx, v *app.Visitor, d *teamData, u domain.User, token string, invited bool) {
	if !w.deps.Letters.Enabled() {
		return
	}
	// Reset mails an invitation for someone who has not accepted theirs.
	err := w.deps.Letters.Reset(c.UserContext(), u, v.Account.Name, token, invited)
	d.Mailed, d.MailFailed = err == nil, err != nil
}

// rememberLang records the visitor's interface language as the one their
// e-mail is written in; a failure only costs that.
func (w *Web) rememberLang(c *fiber.Ctx, userID string, lang Lang) {
	if userID == "" {
		return
	}
	if err := w.commands.SetLanguage.Handle(c.UserContext(), userID, string(lang)); err != nil {
		w.log.Warn("save a person's language", "err", err)
	}
}
