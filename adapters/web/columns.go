package web

import (
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// saveColumns saves which metadata keys the history shows as columns and
// which one names a call's agent (Settings, "History columns"; owners
// only). The use case validates them (domain.ParseListColumns).
func (w *Web) saveColumns(c *fiber.Ctx) error {
	v := visitorOf(c)
	f, err := w.postForm(c, v)
	if err != nil {
		return err
	}
	cols, agent := f.Get("listColumns"), strings.TrimSpace(f.Get("agentKey"))
	_, err = w.commands.UpdateAccount.Handle(c.UserContext(), v.Account.ID, v.User.Role, app.AccountChanges{ListColumns: &cols, AgentKey: &agent})
	var ve *domain.ValidationError
	if errors.As(err, &ve) {
		vw := w.newView(c, v, "set.title", "settings")
		vw.Status, vw.Error = fiber.StatusBadRequest, invalidText(vw.Lang, ve)
		return w.renderSettings(c, v, vw, nil)
	}
	if err != nil {
		return err
	}
	return c.Redirect(Prefix+"/settings?saved=columns#columns", fiber.StatusSeeOther)
}
