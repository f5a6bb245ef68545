package cli

import (
	"context"

	"github.com/hyscribe/hyscribe/adapters/memcount"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/ports"
)

// pollPath builds the API's authentication, rate limit, job read and poll
// (docs/performance.md): keys cached for HYSCRIBE_KEY_CACHE_TTL with their
// last-used times written in batches; the rate-limit count in memory on
// the embedded SQLite store, where this one process answers every request,
// and in the shared store with DATABASE_URL, counted in the same statement
// as the poll's job read.
func (s *Service) pollPath(workCtx context.Context, clock ports.Clock) (*app.Authenticate, *app.RateLimit, *app.GetJob, *app.Poll) {
	auth := app.NewAuthenticate(s.store, clock, app.WithKeyTouches(s.store))
	auth.KeyTTL = s.cfg.KeyCacheTTL
	s.goBackground(func() { _ = auth.Run(workCtx) })
	get := app.NewGetJob(s.store, s.store, s.store, s.store, s.store, s.store)
	if s.cfg.DatabaseURL == "" {
		limit := app.NewRateLimit(memcount.New(), clock)
		return auth, limit, get, app.NewPoll(limit, get, nil)
	}
	limit := app.NewRateLimit(s.store, clock)
	var combined ports.PollCounter // one round trip per poll: the Postgres store's
	if s.pg != nil {
		combined = s.pg
	}
	return auth, limit, get, app.NewPoll(limit, get, combined)
}
