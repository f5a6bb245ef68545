package web

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

type settingsData struct {
	Account   domain.Account
	Seconds   float64
	Keys      []domain.APIKey
	NewKey    string
	PublicURL string
	Owner     bool
}

func (w *Web) settings(c *fiber.Ctx) error {
	v, ok, err := w.signedIn(c)
	if !ok {
		return err
	}
	vw := w.newView(c, v, "set.title", "settings")
	if c.Query("saved") != "" {
		vw.Flash = text(vw.Lang, "set.saved")
	}
	return w.renderSettings(c, v, vw, "")
}

func (w *Web) renderSettings(c *fiber.Ctx, v *app.Visitor, vw *view, newKey string) error {
	keys, err := w.deps.Provision.ListAPIKeys(c.UserContext(), v.Account.ID)
	if err != nil {
		return w.serverError(c, err)
	}
	d := settingsData{Account: v.Account, Seconds: v.Account.SecondsRemaining(), Keys: keys, NewKey: newKey, PublicURL: w.cfg.PublicURL, Owner: v.User.Role == domain.RoleOwner}
	if !d.Owner {
		d.Account.WebhookSecret = "" // members do not see the secret
	}
	vw.Data = d
	return w.render(c, "settings", vw)
}

func (w *Web) saveReceiver(c *fiber.Ctx) error {
	v, ok, err := w.owner(c)
	if !ok {
		return err
	}
	f, ok, err := w.postForm(c, v)
	if !ok {
		return err
	}
	hook, secret, analysis := f.Get("webhookURL"), f.Get("webhookSecret"), f.Get("analysisWebhookURL")
	notify := f.Get("notifyFailures") == "on"
	_, err = w.deps.Provision.UpdateAccount(c.UserContext(), v.Account.ID, app.AccountChanges{
		WebhookURL: &hook, WebhookSecret: &secret, AnalysisWebhookURL: &analysis, NotifyFailures: &notify,
	})
	var ve *domain.ValidationError
	if errors.As(err, &ve) {
		vw := w.newView(c, v, "set.title", "settings")
		vw.Status, vw.Error = fiber.StatusBadRequest, invalidText(vw.Lang, ve)
		v.Account.WebhookURL, v.Account.WebhookSecret, v.Account.AnalysisWebhookURL, v.Account.NotifyFailures = hook, secret, analysis, notify
		return w.renderSettings(c, v, vw, "")
	}
	if err != nil {
		return w.serverError(c, err)
	}
	return c.Redirect(Prefix+"/settings?saved=1#receiver", fiber.StatusSeeOther)
}

// createKey shows the new key once, on the page answering the POST: it is
// never stored, so it cannot be shown again.
func (w *Web) createKey(c *fiber.Ctx) error {
	v, ok, err := w.owner(c)
	if !ok {
		return err
	}
	if _, ok, err := w.postForm(c, v); !ok {
		return err
	}
	raw, _, err := w.deps.Provision.CreateAPIKey(c.UserContext(), v.Account.ID)
	if err != nil {
		return w.serverError(c, err)
	}
	vw := w.newView(c, v, "set.title", "settings")
	vw.Path = Prefix + "/settings" // a language switch must not repeat the POST
	return w.renderSettings(c, v, vw, raw)
}

func (w *Web) revokeKey(c *fiber.Ctx) error {
	return w.ownerAction(c, func(v *app.Visitor) (string, error) {
		return Prefix + "/settings?saved=1#keys", w.deps.Provision.RevokeAPIKey(c.UserContext(), v.Account.ID, c.Params("id"))
	})
}
