package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// listTranscriptions is GET /api/listTranscriptions (docs/decisions.md, Integrators' kit, part two;
// reconciliation): the caller's jobs, newest first, in keyset pages. It
// counts against its own per-key counter.
func (s *server) listTranscriptions(c *fiber.Ctx) error {
	ctx := c.UserContext()
	p := principalOf(c)
	if !s.heavy.acquire(string(p.Key.ID), s.cfg.HeavyPerKey) {
		return tooManyHeavy(c, s.cfg.HeavyPerKey)
	}
	defer s.heavy.release(string(p.Key.ID))
	// The query string's syntax is read here; the cursor, like every
	// rule, is checked by the use case (app.ListJobs).
	r, err := domain.ParseListRequest(c.Query("status"), c.Query("createdSince"), c.Query("createdUntil"), c.Query("limit"), "")
	if err != nil {
		return err
	}
	list, err := s.queries.ListJobs.Handle(ctx, app.KeyActor(p), app.ListCommand{
		Status: r.Status, From: r.CreatedSince, To: r.CreatedUntil, Limit: r.Limit, Cursor: c.Query("cursor"),
	})
	if err != nil {
		return err
	}
	page := domain.JobPage{Items: make([]domain.JobSummary, 0, len(list.Jobs))}
	for _, j := range list.Jobs {
		page.Items = append(page.Items, domain.NewJobSummary(j.ID, j.Status, j.CreatedAt, j.Type, j.Duration, j.Metadata, j.MetadataOmitted, j.Title, j.Error))
	}
	if list.Next != "" {
		page.NextCursor = &list.Next
	}
	return c.Status(fiber.StatusOK).JSON(page)
}

// resendEvent is POST /api/resendEvent (docs/decisions.md, Integrators' kit, part two): one
// new attempt of a job's event, with its first webhook-id. It counts
// against its own per-key counter here, and in the use case against the
// account's resends, shared with the web application's Resend
// (app.ResendsPerAccount).
func (s *server) resendEvent(c *fiber.Ctx) error {
	ctx := c.UserContext()
	p := principalOf(c)
	a := app.KeyActor(p)
	if err := s.commands.Resend.Allowed(a); err != nil {
		return err
	}
	body, err := readBody(c, maxResendBody)
	if err != nil {
		return err
	}
	r, err := domain.ParseResendRequest(body)
	if err != nil {
		return err
	}
	d, err := s.commands.Resend.Handle(ctx, a, app.ResendCommand{DocID: r.DocID, Event: r.Event})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusOK).JSON(domain.NewResendResult(d))
}

// maxResendBody bounds {"docId": "…", "event": "…"}.
const maxResendBody = 4 << 10
