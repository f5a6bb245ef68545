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
	// NewSecret is a webhookSecret just generated, shown this once;
	// SecretMask is how the current one is shown otherwise (secret.go).
	NewSecret  string
	SecretMask string
	Retention int // days; 0 keeps recordings forever, -1 not offered
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
	return w.renderSettings(c, v, vw, shownOnce{})
}

// shownOnce is what a settings page shows whole this once: a new API key
// or a new webhook secret, neither of which is shown again.
type shownOnce struct{ Key, Secret string }

func (w *Web) renderSettings(c *fiber.Ctx, v *app.Visitor, vw *view, once shownOnce) error {
	keys, err := w.deps.Provision.ListAPIKeys(c.UserContext(), v.Account.ID)
	if err != nil {
		return w.serverError(c, err)
	}
	d := settingsData{Account: v.Account, Seconds: v.Account.SecondsRemaining(), Keys: keys, NewKey: once.Key, PublicURL: w.cfg.PublicURL, Owner: v.User.Role == domain.RoleOwner}
	d.NewSecret, d.SecretMask = once.Secret, maskSecret(v.Account.WebhookSecret, d.Owner)
	// The secret is never written into the page whole, except right after
	// it was generated; members do not see even its mask.
	d.Account.WebhookSecret = ""
	if d.Retention, err = w.retentionDays(c, v); err != nil {
		return w.serverError(c, err)
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
	changes := app.AccountChanges{WebhookURL: &hook, AnalysisWebhookURL: &analysis, NotifyFailures: &notify}
	// The page never holds the current secret: an empty field keeps it,
	// and removing it is a box of its own.
	if secret != "" || f.Get("clearSecret") == "on" {
		changes.WebhookSecret = &secret
	} else {
		secret = v.Account.WebhookSecret
	}
	_, err = w.deps.Provision.UpdateAccount(c.UserContext(), v.Account.ID, changes)
	var ve *domain.ValidationError
	if errors.As(err, &ve) {
		vw := w.newView(c, v, "set.title", "settings")
		vw.Status, vw.Error = fiber.StatusBadRequest, ve.Msg
		v.Account.WebhookURL, v.Account.WebhookSecret, v.Account.AnalysisWebhookURL, v.Account.NotifyFailures = hook, secret, analysis, notify
		return w.renderSettings(c, v, vw, shownOnce{})
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
	return w.renderSettings(c, v, vw, shownOnce{Key: raw})
}

func (w *Web) revokeKey(c *fiber.Ctx) error {
	return w.ownerAction(c, func(v *app.Visitor) (string, error) {
		return Prefix + "/settings?saved=1#keys", w.deps.Provision.RevokeAPIKey(c.UserContext(), v.Account.ID, c.Params("id"))
	})
}
