package httpapi

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"
)

// readyzTimeout bounds the checks of one GET /readyz, below the probe's own
// timeout (a second by default).
const readyzTimeout = 800 * time.Millisecond

// readyz is GET /readyz: 200 when the process can work now (its store and
// Kafka answer), 503 with the reason otherwise. Orchestrators stop sending
// traffic to a process that is not ready without restarting it.
func (s *server) readyz(c *fiber.Ctx) error {
	if s.deps.Ready != nil && !s.deps.Ready() {
		return &httpError{status: fiber.StatusServiceUnavailable, code: "not_ready", msg: "the service is starting or stopping and cannot serve yet"}
	}
	if s.deps.Readiness != nil {
		ctx, cancel := context.WithTimeout(c.UserContext(), readyzTimeout)
		defer cancel()
		if err := s.deps.Readiness(ctx); err != nil {
			s.log.Warn("not ready", "err", err)
			return &httpError{status: fiber.StatusServiceUnavailable, code: "not_ready", msg: "not ready: " + err.Error()}
		}
	}
	return c.JSON(fiber.Map{"status": "ok"})
}
