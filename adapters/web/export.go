package web

import (
	"errors"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// exportRecording downloads the transcript as srt, vtt, txt or json: the
// same files as the API's exportTranscription, by the same use case.
func (w *Web) exportRecording(c *fiber.Ctx) error {
	v := visitorOf(c)
	ex, err := w.queries.ExportJob.Handle(c.UserContext(), app.PersonActor(v), app.ExportCommand{DocID: domain.DocID(c.Params("docId")), Format: c.Params("format")})
	var ve *domain.ValidationError
	switch {
	case errors.Is(err, domain.ErrNotFound), errors.As(err, &ve):
		return domain.ErrNotFound
	case errors.Is(err, domain.ErrConflict):
		return c.Status(fiber.StatusConflict).JSON(fiber.Map{"error": "the transcript is not ready yet"})
	case err != nil:
		return err
	}
	c.Set(fiber.HeaderContentType, ex.ContentType)
	c.Set(fiber.HeaderContentDisposition, ex.Disposition)
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return c.Send(ex.Body)
}

// saveRetention sets how many days the account keeps its recordings.
func (w *Web) saveRetention(c *fiber.Ctx) error {
	v := visitorOf(c)
	f, err := w.postForm(c, v)
	if err != nil {
		return err
	}
	days, err := strconv.Atoi(f.Get("retentionDays"))
	if err == nil {
		err = w.commands.SetRetention.Handle(c.UserContext(), v.Account.ID, v.User.Role, days)
	} else {
		err = domain.ValidRetentionDays(-1)
	}
	var ve *domain.ValidationError
	if errors.As(err, &ve) {
		vw := w.newView(c, v, "set.title", "settings")
		vw.Status, vw.Error = fiber.StatusBadRequest, ve.Msg
		return w.renderSettings(c, v, vw, nil)
	}
	if err != nil {
		return err
	}
	return c.Redirect(Prefix+"/settings?saved=retention#retention", fiber.StatusSeeOther)
}

// retentionDays is the account's rule for the settings page; -1 when the
// web application has no retention use case.
func (w *Web) retentionDays(c *fiber.Ctx, v *app.Visitor) (int, error) {
	if w.commands.SetRetention == nil {
		return -1, nil
	}
	return w.queries.RetentionDays.Handle(c.UserContext(), v.Account.ID)
}
