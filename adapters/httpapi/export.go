package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// exportTranscription is GET /api/exportTranscription (docs/decisions.md, Integrators' kit): the
// transcript as srt, vtt, txt or json, once the job is transcribed. It
// counts against its own per-key counter with the polling limit.
func (s *server) exportTranscription(c *fiber.Ctx) error {
	ctx := c.UserContext()
	p := principalOf(c)
	if !s.heavy.acquire(string(p.Key.ID), s.cfg.HeavyPerKey) {
		return tooManyHeavy(c, s.cfg.HeavyPerKey)
	}
	defer s.heavy.release(string(p.Key.ID))
	ex, err := s.queries.ExportJob.Handle(ctx, app.KeyActor(p), app.ExportCommand{DocID: domain.DocID(c.Query("docId")), Format: c.Query("format")})
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, ex.ContentType)
	c.Set(fiber.HeaderContentDisposition, ex.Disposition)
	return c.Status(fiber.StatusOK).Send(ex.Body)
}

// deleteTranscription is POST /api/deleteTranscription (docs/decisions.md, Integrators' kit).
func (s *server) deleteTranscription(c *fiber.Ctx) error {
	ctx := c.UserContext()
	p := principalOf(c)
	body, err := readBody(c, maxDeleteBody)
	if err != nil {
		return err
	}
	res, err := s.commands.DeleteJob.Handle(ctx, p, body)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusOK).JSON(res)
}

// maxDeleteBody bounds {"docId": "…"}.
const maxDeleteBody = 4 << 10
