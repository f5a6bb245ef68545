package web

import (
	"errors"
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/adapters/forwarded"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

func (w *Web) home(c *fiber.Ctx) error {
	return c.Redirect(Prefix+"/recordings", fiber.StatusSeeOther)
}

// switchLang sets the interface language and goes back.
func (w *Web) switchLang(c *fiber.Ctx) error {
	lang := parseLang(c.Query("to"))
	if v, _ := w.visitor(c); v != nil {
		w.rememberLang(c, v.User.ID, lang) // their e-mail follows
	}
	w.setLangCookie(c, lang)
	return c.Redirect(localPath(c.Query("back")), fiber.StatusSeeOther)
}

func (w *Web) setLangCookie(c *fiber.Ctx, lang Lang) {
	c.Cookie(&fiber.Cookie{Name: cookieLang, Value: string(lang), Path: "/", MaxAge: 365 * 24 * 3600,
		Expires: time.Now().AddDate(1, 0, 0), SameSite: "Lax", Secure: w.cfg.SecureCookies, HTTPOnly: true})
}

// linkLang opens a one-time link's page (an invitation, a password reset)
// in the language of the person it is for (the one the owner chose when
// inviting, or their own): a browser that has chosen no language yet gets
// it, and keeps it for the pages after. A language the browser chose
// (the switch) wins.
func (w *Web) linkLang(c *fiber.Ctx, vw *view, u domain.User, titleKey string) {
	if c.Cookies(cookieLang) != "" || u.Lang == "" {
		return
	}
	vw.Lang = parseLang(u.Lang)
	vw.Title = text(vw.Lang, titleKey)
	w.setLangCookie(c, vw.Lang)
}

type authForm struct {
	Email, Org, Next, Token string
}

func (w *Web) signInPage(c *fiber.Ctx) error {
	if v, _ := w.visitor(c); v != nil {
		return c.Redirect(localPath(c.Query("next")), fiber.StatusSeeOther)
	}
	vw := w.newView(c, nil, "signin.title", "")
	vw.CSRF, vw.NoIndex = w.anonCSRF(c), true
	vw.Data = authForm{Next: c.Query("next")}
	return w.render(c, "signin", vw)
}

func (w *Web) signIn(c *fiber.Ctx) error {
	f, err := w.form(c)
	if err == nil {
		err = checkAnonCSRF(c, f)
	}
	if err != nil {
		return badForm{err}
	}
	in, err := w.commands.SignIn.Handle(c.UserContext(), f.Get("email"), f.Get("password"), forwarded.ClientIP(c))
	if err != nil {
		vw := w.newView(c, nil, "signin.title", "")
		vw.CSRF = w.anonCSRF(c)
		vw.Data = authForm{Email: f.Get("email"), Next: f.Get("next")}
		var ve *domain.ValidationError
		switch {
		case errors.Is(err, domain.ErrUnauthorized):
			vw.Status, vw.Error = fiber.StatusUnauthorized, text(vw.Lang, "err.badcreds")
		case errors.As(err, &ve):
			vw.Status, vw.Error = fiber.StatusBadRequest, invalidText(vw.Lang, ve)
		case !w.busyOrLimited(c, vw, err):
			return err
		}
		return w.render(c, "signin", vw)
	}
	w.startSession(c, in)
	return c.Redirect(localPath(f.Get("next")), fiber.StatusSeeOther)
}

func (w *Web) startSession(c *fiber.Ctx, in app.SignedIn) {
	w.setCookie(c, w.sessionCookieName(), in.Token, domain.SessionLifetime, "Lax")
	w.setCookie(c, cookieCSRF, "", -1, "Strict")
}

func (w *Web) signUpPage(c *fiber.Ctx) error {
	if !w.cfg.SignUp {
		return domain.ErrNotFound
	}
	vw := w.newView(c, nil, "signup.title", "")
	vw.CSRF, vw.Data = w.anonCSRF(c), authForm{}
	return w.render(c, "signup", vw)
}

func (w *Web) signUp(c *fiber.Ctx) error {
	if !w.cfg.SignUp {
		return domain.ErrNotFound
	}
	f, err := w.form(c)
	if err == nil {
		err = checkAnonCSRF(c, f)
	}
	if err != nil {
		return badForm{err}
	}
	in, err := w.commands.SignUp.Handle(c.UserContext(), app.SignUpRequest{AccountName: f.Get("org"), Email: f.Get("email"), Password: f.Get("password"), ClientIP: forwarded.ClientIP(c)})
	if err != nil {
		vw := w.newView(c, nil, "signup.title", "")
		vw.CSRF = w.anonCSRF(c)
		vw.Data = authForm{Email: f.Get("email"), Org: f.Get("org")}
		var ve *domain.ValidationError
		switch {
		case errors.As(err, &ve):
			vw.Status, vw.Error = fiber.StatusBadRequest, invalidText(vw.Lang, ve)
		case !w.busyOrLimited(c, vw, err):
			return err
		}
		return w.render(c, "signup", vw)
	}
	// An email that already has a user gets the same answer without a
	// session (see docs/security.md): /app/settings then asks to sign in.
	if in.Token != "" {
		w.startSession(c, in)
		w.rememberLang(c, in.User.ID, w.lang(c))
	}
	return c.Redirect(Prefix+"/settings", fiber.StatusSeeOther)
}

func (w *Web) signOut(c *fiber.Ctx) error {
	v, err := w.visitor(c)
	if err != nil {
		return err
	}
	if v != nil {
		c.Locals(localVisitor, v) // for an error page's menu
		if _, err := w.postForm(c, v); err != nil {
			return err
		}
		if err := w.commands.SignOut.Handle(c.UserContext(), c.Cookies(w.sessionCookieName())); err != nil {
			return err
		}
	}
	w.setCookie(c, w.sessionCookieName(), "", -1, "Lax")
	return c.Redirect(Prefix+"/signin", fiber.StatusSeeOther)
}

func (w *Web) invitePage(c *fiber.Ctx) error {
	vw := w.newView(c, nil, "invite.title", "")
	vw.NoIndex = true
	u, acct, err := w.queries.GetInvitation.Handle(c.UserContext(), c.Params("token"))
	if errors.Is(err, domain.ErrNotFound) {
		vw.Status, vw.Error = fiber.StatusNotFound, text(vw.Lang, "invite.gone")
		return w.render(c, "error", vw)
	}
	if err != nil {
		return err
	}
	w.linkLang(c, vw, u, "invite.title")
	vw.CSRF, vw.Data = w.anonCSRF(c), authForm{Email: u.Email, Org: acct.Name, Token: url.PathEscape(c.Params("token"))}
	return w.render(c, "invite", vw)
}

// confirmTrial opens a sign-up's confirmation link: the address is
// confirmed and the account gets its trial seconds (app.Trial).
func (w *Web) confirmTrial(c *fiber.Ctx) error {
	if w.commands.ConfirmTrial == nil {
		return domain.ErrNotFound
	}
	vw := w.newView(c, nil, "trial.gone", "")
	vw.NoIndex = true
	_, err := w.commands.ConfirmTrial.Confirm(c.UserContext(), c.Params("token"))
	switch {
	case errors.Is(err, domain.ErrNotFound):
		vw.Status, vw.Error = fiber.StatusNotFound, text(vw.Lang, "trial.gone")
	case errors.Is(err, domain.ErrConflict):
		vw.Title = text(vw.Lang, "trial.taken")
		vw.Status, vw.Error = fiber.StatusConflict, vw.Title
	case err != nil:
		return err
	default:
		vw.Title = tf(vw.Lang, "trial.confirmed", span(vw.Lang, w.commands.ConfirmTrial.Seconds))
	}
	return w.render(c, "error", vw)
}

func (w *Web) acceptInvite(c *fiber.Ctx) error {
	return w.setPasswordWithLink(c, "invite", "invite.title", "invite.gone", w.commands.AcceptInvite.Handle)
}

// busyOrLimited fills vw for an attempt refused by a rate limit (429) or by
// the bound on password hashing (503), both with Retry-After, and reports
// whether err was one of them.
func (w *Web) busyOrLimited(c *fiber.Ctx, vw *view, err error) bool {
	switch {
	case errors.Is(err, domain.ErrRateLimited):
		vw.Status, vw.Error = fiber.StatusTooManyRequests, text(vw.Lang, "err.ratelimited")
		c.Set(fiber.HeaderRetryAfter, "60")
	case errors.Is(err, domain.ErrUnavailable):
		vw.Status, vw.Error = fiber.StatusServiceUnavailable, text(vw.Lang, "err.busy")
		c.Set(fiber.HeaderRetryAfter, "2")
	default:
		return false
	}
	return true
}
