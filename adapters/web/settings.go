package web

import (
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/adapters/redact"
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
	Retention  int // days; 0 keeps recordings forever, -1 not offered
	// Saved names the section just saved ("receiver", "keys"): its
	// confirmation is shown in it, where the page scrolls to.
	Saved string
	// Tests are the outcomes of "Send test event", shown in the receiver
	// section; TestError says why none was sent.
	Tests     []domain.Delivery
	TestError string
}

func (w *Web) settings(c *fiber.Ctx) error {
	v := visitorOf(c)
	vw := w.newView(c, v, "set.title", "settings")
	return w.renderSettings(c, v, vw, func(d *settingsData) {
		switch c.Query("saved") {
		case "receiver", "keys", "retention", "calls", "columns":
			d.Saved = c.Query("saved")
		case "":
		default:
			vw.Flash = text(vw.Lang, "set.saved")
		}
		d.NewKey = w.takeNewKey(c, d.Keys)
		d.NewSecret = w.shownSecret(c, v)
		d.Tests, d.TestError = w.testResult(c, vw.Lang)
	})
}

// renderSettings shows the settings page; with, if not nil, adds to what
// the page shows.
func (w *Web) renderSettings(c *fiber.Ctx, v *app.Visitor, vw *view, with func(*settingsData)) error {
	keys, err := w.queries.ListAPIKeys.Handle(c.UserContext(), v.Account.ID)
	if err != nil {
		return err
	}
	d := settingsData{Account: v.Account, Seconds: v.Account.SecondsRemaining(), Keys: keys, PublicURL: w.cfg.PublicURL, Owner: v.User.Role == domain.RoleOwner}
	if with != nil {
		with(&d)
	}
	d.SecretMask = maskSecret(v.Account.WebhookSecret, d.Owner)
	// The secret is never written into the page whole, except right after
	// it was generated; members do not see even its mask.
	d.Account.WebhookSecret = ""
	d.Account.WebhookURL = receiverShown(d.Account.WebhookURL, d.Owner)
	d.Account.AnalysisWebhookURL = receiverShown(d.Account.AnalysisWebhookURL, d.Owner)
	if d.Retention, err = w.retentionDays(c, v); err != nil {
		return err
	}
	vw.Data = d
	return w.render(c, "settings", vw)
}

func (w *Web) saveReceiver(c *fiber.Ctx) error {
	v := visitorOf(c)
	f, err := w.postForm(c, v)
	if err != nil {
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
	return w.saveAccount(c, v, changes, "receiver", func(a *domain.Account) {
		a.WebhookURL, a.WebhookSecret, a.AnalysisWebhookURL, a.NotifyFailures = hook, secret, analysis, notify
	})
}

// saveAccount applies changes through the account's use case (which holds
// the role rule and validates) and sends the browser back to the settings
// section saved; a refused change shows the settings again with the
// reason, the section's fields as typed (typed, when not nil, puts them
// into the account the page is drawn from).
func (w *Web) saveAccount(c *fiber.Ctx, v *app.Visitor, changes app.AccountChanges, section string, typed func(*domain.Account)) error {
	_, err := w.commands.UpdateAccount.Handle(c.UserContext(), v.Account.ID, v.User.Role, changes)
	var ve *domain.ValidationError
	if errors.As(err, &ve) {
		vw := w.newView(c, v, "set.title", "settings")
		vw.Status, vw.Error = fiber.StatusBadRequest, invalidText(vw.Lang, ve)
		if typed != nil {
			typed(&v.Account)
		}
		return w.renderSettings(c, v, vw, nil)
	}
	if err != nil {
		return err
	}
	return c.Redirect(Prefix+"/settings?saved="+section+"#"+section, fiber.StatusSeeOther)
}

// createKey makes a key and sends the browser to the settings page, which
// shows it once (post/redirect/get: reloading that page makes no other
// key). The key travels to that page in a short-lived cookie that only
// this site's settings page reads, and clears (takeNewKey); it is never
// stored on the server, so it cannot be shown again.
func (w *Web) createKey(c *fiber.Ctx) error {
	v := visitorOf(c)
	if _, err := w.postForm(c, v); err != nil {
		return err
	}
	raw, _, err := w.commands.CreateAPIKey.Handle(c.UserContext(), v.Account.ID, v.User.Role)
	var ve *domain.ValidationError
	if errors.As(err, &ve) { // the most active keys an account may have
		return badForm{errors.New(invalidText(w.lang(c), err))}
	}
	if err != nil {
		return err
	}
	w.setNewKeyCookie(c, raw, newKeyLifetime)
	return c.Redirect(Prefix+"/settings?saved=keys#keys", fiber.StatusSeeOther)
}

// cookieNewKey carries a new key from its POST to the page showing it.
const (
	cookieNewKey   = "hyscribe_newkey"
	newKeyLifetime = 5 * time.Minute
)

func (w *Web) setNewKeyCookie(c *fiber.Ctx, value string, maxAge time.Duration) {
	w.settingsCookie(c, cookieNewKey, value, maxAge)
}

// takeNewKey returns the key a createKey just made, once, if it is one of
// keys (the visitor's account's): the cookie is cleared as it is read.
func (w *Web) takeNewKey(c *fiber.Ctx, keys []domain.APIKey) string {
	raw := c.Cookies(cookieNewKey)
	if raw == "" {
		return ""
	}
	w.setNewKeyCookie(c, "", -1)
	for _, k := range keys {
		if k.RevokedAt == nil && k.Hash == domain.HashAPIKey(raw) {
			return raw
		}
	}
	return ""
}

func (w *Web) revokeKey(c *fiber.Ctx) error {
	return w.button(c, func(v *app.Visitor) (string, error) {
		return Prefix + "/settings?saved=keys#keys", w.commands.RevokeAPIKey.Handle(c.UserContext(), v.Account.ID, v.User.Role, c.Params("id"))
	})
}

// receiverShown is a receiver address as the visitor may see it: whole
// for owners, who set it; for members, with its query values and any
// user:password replaced by [redacted], since integrators put tokens there
// (docs/security.md).
func receiverShown(u string, owner bool) string {
	if owner || u == "" {
		return u
	}
	return redact.Secrets(u)
}
