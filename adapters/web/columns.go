package web

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
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
	return w.saveAccount(c, v, app.AccountChanges{ListColumns: &cols, AgentKey: &agent}, "columns", nil)
}
