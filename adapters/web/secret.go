package web

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// generateSecret gives the account a new Standard Webhooks secret
// ("whsec_…") and redirects to the settings page, which shows it at its
// top (post/redirect/get: a reload rotates nothing). The secret rides in
// a short-lived HttpOnly cookie scoped to the settings page, as a new API
// key does, and is shown while that cookie lives and the account's secret
// is still that one — so a language switch keeps it on screen — until the
// owner hides it; later pages show only its mask.
func (w *Web) generateSecret(c *fiber.Ctx) error {
	v := visitorOf(c)
	if _, err := w.postForm(c, v); err != nil {
		return err
	}
	secret, err := w.commands.GenerateWebhookSecret.Handle(c.UserContext(), v.Account.ID, v.User.Role)
	if err != nil {
		return err
	}
	w.settingsCookie(c, cookieNewSecret, secret, newSecretLifetime)
	return c.Redirect(Prefix+"/settings#new-secret-box", fiber.StatusSeeOther)
}

// hideSecret is POST /app/settings/secret/hide: "I have stored it".
func (w *Web) hideSecret(c *fiber.Ctx) error {
	return w.button(c, func(*app.Visitor) (string, error) {
		w.settingsCookie(c, cookieNewSecret, "", -1)
		return Prefix + "/settings#receiver", nil
	})
}

// Cookies that carry what a settings POST made to the page that shows it.
const (
	cookieNewSecret   = "hyscribe_newsecret"
	newSecretLifetime = 10 * time.Minute
	cookieTestResult  = "hyscribe_testevent"
	testResultLife    = 2 * time.Minute
)

func (w *Web) settingsCookie(c *fiber.Ctx, name, value string, maxAge time.Duration) {
	ck := &fiber.Cookie{Name: name, Value: value, Path: Prefix + "/settings", HTTPOnly: true, Secure: w.cfg.SecureCookies, SameSite: "Strict"}
	if maxAge > 0 {
		ck.MaxAge, ck.Expires = int(maxAge.Seconds()), time.Now().Add(maxAge)
	} else {
		ck.MaxAge, ck.Expires = -1, time.Unix(0, 0)
	}
	c.Cookie(ck)
}

// shownSecret is the just-generated secret to show, if it is still the
// account's.
func (w *Web) shownSecret(c *fiber.Ctx, v *app.Visitor) string {
	s := c.Cookies(cookieNewSecret)
	if s == "" || v.User.Role != domain.RoleOwner || s != v.Account.WebhookSecret {
		return ""
	}
	return s
}

// testOutcome is what the settings page shows of a test event.
type testOutcome struct {
	Tests []testDelivery `json:"t,omitempty"`
	Error string         `json:"e,omitempty"`
	Code  string         `json:"c,omitempty"`
}

type testDelivery struct {
	URL        string `json:"u"`
	Status     string `json:"s"`
	HTTPStatus int    `json:"h,omitempty"`
	LatencyMs  int64  `json:"l,omitempty"`
	Error      string `json:"e,omitempty"`
}

// sendTestEvent sends a test event to the account's receivers and
// redirects to the receiver section, which shows how each answered (for a
// couple of minutes, so a language switch keeps it); a reload sends
// nothing again.
func (w *Web) sendTestEvent(c *fiber.Ctx) error {
	v := visitorOf(c)
	if _, err := w.postForm(c, v); err != nil {
		return err
	}
	res, err := w.commands.SendTestEvent.Handle(c.UserContext(), v.Account.ID, v.User.Role)
	if err != nil && !errors.Is(err, domain.ErrValidation) {
		return err
	}
	var out testOutcome
	var ve *domain.ValidationError
	if errors.As(err, &ve) {
		out.Error, out.Code = ve.Msg, ve.Code
	}
	for _, d := range res {
		out.Tests = append(out.Tests, testDelivery{URL: clipRunes(d.URL, 300), Status: d.Status, HTTPStatus: d.HTTPStatus, LatencyMs: d.LatencyMs, Error: clipRunes(d.Error, 300)})
	}
	b, _ := json.Marshal(out)
	w.settingsCookie(c, cookieTestResult, base64.RawURLEncoding.EncodeToString(b), testResultLife)
	return c.Redirect(Prefix+"/settings#receiver", fiber.StatusSeeOther)
}

// testResult is the last test event's outcome from its cookie.
func (w *Web) testResult(c *fiber.Ctx, lang Lang) ([]domain.Delivery, string) {
	raw := c.Cookies(cookieTestResult)
	b, err := base64.RawURLEncoding.DecodeString(raw)
	var out testOutcome
	if raw == "" || err != nil || json.Unmarshal(b, &out) != nil {
		return nil, ""
	}
	var ds []domain.Delivery
	for _, t := range out.Tests {
		ds = append(ds, domain.Delivery{URL: t.URL, Status: t.Status, HTTPStatus: t.HTTPStatus, LatencyMs: t.LatencyMs, Error: t.Error})
	}
	msg := ""
	if out.Error != "" {
		msg = invalidText(lang, domain.Invalid(out.Code, "%s", out.Error))
	}
	return ds, msg
}

func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
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
