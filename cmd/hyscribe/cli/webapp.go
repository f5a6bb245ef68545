package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/adapters/clickhouse"
	httpapi "github.com/hyscribe/hyscribe/adapters/httpapi"
	"github.com/hyscribe/hyscribe/adapters/mp3"
	"github.com/hyscribe/hyscribe/adapters/web"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/ports"
)

// webApp builds the web application (/app) on the application's use cases.
func (s *Service) webApp(workCtx context.Context, uc app.Application, clock ports.Clock, uploadOrigin string) (*web.Web, error) {
	cfg := s.cfg
	loc, err := time.LoadLocation(cfg.WebTimezone)
	if err != nil {
		return nil, fmt.Errorf("HYSCRIBE_WEB_TIMEZONE: %w", err)
	}
	// Expired sessions are refused when used; this only keeps the table small.
	prune := app.NewPruneSessions(s.store, clock)
	s.goBackground(func() {
		tick := time.NewTicker(time.Hour)
		defer tick.Stop()
		for {
			if n, err := prune.Handle(workCtx); err != nil && workCtx.Err() == nil {
				s.log.Warn("prune expired sessions", "err", err)
			} else if n > 0 {
				s.log.Info("pruned expired sessions", "count", n)
			}
			select {
			case <-workCtx.Done():
				return
			case <-tick.C:
			}
		}
	})
	// The scheme is case-insensitive (RFC 3986 §3.1): HTTPS://… is https.
	secure := cfg.CookieSecure == "true" || (cfg.CookieSecure == "auto" && strings.HasPrefix(strings.ToLower(s.publicURL), "https://"))
	return web.New(web.Config{SecureCookies: secure, CreateLimit: cfg.CreateRateLimit, SignUp: cfg.SignUp, Location: loc, PublicURL: s.publicURL,
		MaxUploadBytes: cfg.MaxUploadBytes, HeadBytes: mp3.HeadBytes, UploadOrigin: uploadOrigin,
		TrialSeconds: offeredTrial(cfg.TrialSeconds, cfg.TrialUnconfirmed, uc.Commands.ConfirmTrial),
		TrialByEmail: !cfg.TrialUnconfirmed}, web.Deps{
		App:        uc,
		Logger:     s.log,
		CheckAudio: mp3.CheckHead,
		OpenAPI:    httpapi.OpenAPI(),
		Letters:    s.letters,
	}), nil
}

// openReports is what the web application's reports read: ClickHouse when
// CLICKHOUSE_DSN is set and reachable, else nil (the store).
func (s *Service) openReports(ctx context.Context) ports.ChecklistAnalytics {
	if s.cfg.ClickHouseDSN == "" {
		return nil
	}
	ch, err := clickhouse.Open(ctx, s.cfg.ClickHouseDSN)
	if err != nil {
		s.log.Warn("web analytics read the store: ClickHouse is unreachable", "err", err)
		return nil
	}
	s.reports = ch
	return ch
}

// offeredTrial is the trial the sign-up page announces: none when no trial
// is offered (no e-mail to confirm the address with, nor an unconfirmed
// trial allowed).
func offeredTrial(seconds float64, unconfirmed bool, trial *app.Trial) float64 {
	if !unconfirmed && !trial.Offered() {
		return 0
	}
	return seconds
}
