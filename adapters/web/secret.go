package web

import (
	"strings"

	"github.com/gofiber/fiber/v2"
)

// generateSecret gives the account a new Standard Webhooks secret
// ("whsec_…") and shows it on the page answering the POST, once: later
// pages show only its mask.
func (w *Web) generateSecret(c *fiber.Ctx) error {
	v, ok, err := w.owner(c)
	if !ok {
		return err
	}
	if _, ok, err := w.postForm(c, v); !ok {
		return err
	}
	secret, err := w.deps.Provision.GenerateWebhookSecret(c.UserContext(), v.Account.ID)
	if err != nil {
		return w.serverError(c, err)
	}
	v.Account.WebhookSecret = secret
	vw := w.newView(c, v, "set.title", "settings")
	vw.Path = Prefix + "/settings" // a language switch must not repeat the POST
	return w.renderSettings(c, v, vw, func(d *settingsData) { d.NewSecret = secret })
}

// maskSecret is how settings show a webhookSecret after it was first
// shown: its "whsec_" prefix, if any, and its last four characters, enough
// to tell two secrets apart. Members see only whether one is set; "" is
// none.
func maskSecret(secret string, owner bool) string {
	r := []rune(secret)
	switch {
	case secret == "":
		return ""
	case !owner || len(r) < 12:
		return "••••••••"
	}
	prefix := ""
	if strings.HasPrefix(secret, "whsec_") {
		prefix = "whsec_"
	}
	return prefix + "••••••••" + string(r[len(r)-4:])
}
