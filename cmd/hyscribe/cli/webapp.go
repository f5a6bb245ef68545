package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/adapters/analysis"
	"github.com/hyscribe/hyscribe/adapters/clickhouse"
	httpapi "github.com/hyscribe/hyscribe/adapters/httpapi"
	"github.com/hyscribe/hyscribe/adapters/mp3"
	"github.com/hyscribe/hyscribe/adapters/password"
	"github.com/hyscribe/hyscribe/adapters/web"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// webApp builds the web application (/app). Its reports read ClickHouse
// when CLICKHOUSE_DSN is set and reachable, else the store.
func (s *Service) webApp(ctx, workCtx context.Context, blobs ports.BlobStore, clock ports.Clock, create *app.CreateJob, uploadOrigin string, auth *app.Authenticate) (*web.Web, error) {
	cfg := s.cfg
	loc, err := time.LoadLocation(cfg.WebTimezone)
	if err != nil {
		return nil, fmt.Errorf("HYSCRIBE_WEB_TIMEZONE: %w", err)
	}
	// At most DefaultMemoryBudget of password hashing at once (docs/security.md).
	hasher := password.NewGate(password.Hasher{}, password.DefaultMemoryBudget, password.DefaultGateWait)
	people := app.NewPeople(s.store, s.store, s.store, hasher, app.NewRateLimit(s.store, clock), clock)
	people.SignUpPlan, people.SignUpSeconds = domain.Plan(cfg.SignUpPlan), cfg.SignUpSeconds
	if cfg.TrialSeconds > 0 { // the first hour works without an operator
		people.SignUpPlan, people.SignUpSeconds = domain.PlanBusiness, cfg.TrialSeconds
	}
	// Expired sessions are refused when used; this only keeps the table small.
	s.goBackground(func() {
		tick := time.NewTicker(time.Hour)
		defer tick.Stop()
		for {
			if n, err := people.PruneSessions(workCtx); err != nil && workCtx.Err() == nil {
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
	var reports ports.ChecklistAnalytics
	if cfg.ClickHouseDSN != "" {
		ch, err := clickhouse.Open(ctx, cfg.ClickHouseDSN)
		if err != nil {
			s.log.Warn("web analytics read the store: ClickHouse is unreachable", "err", err)
		} else {
			s.reports = ch
			reports = ch
		}
	}
	provision := app.NewProvision(s.store, s.store, clock)
	provision.Revoked = auth.Forget // a key revoked here stops working here at once
	reanalyze, err := s.analyzeTranscript(clock, s.log)
	if err != nil {
		return nil, err
	}
	// The scheme is case-insensitive (RFC 3986 §3.1): HTTPS://… is https.
	secure := cfg.CookieSecure == "true" || (cfg.CookieSecure == "auto" && strings.HasPrefix(strings.ToLower(s.publicURL), "https://"))
	return web.New(web.Config{SecureCookies: secure, CreateLimit: cfg.CreateRateLimit, SignUp: cfg.SignUp, Location: loc, PublicURL: s.publicURL,
		MaxUploadBytes: cfg.MaxUploadBytes, HeadBytes: mp3.HeadBytes, UploadOrigin: uploadOrigin,
		TrialSeconds: cfg.TrialSeconds}, web.Deps{
		People:     people,
		Provision:  provision,
		Recordings: app.NewRecordings(s.store, s.store, s.store, s.store, s.store, s.store, blobs, s.webhooks, analysis.New(), reports, clock),
		Retention:  app.NewRetention(s.store),
		Reanalyze:  reanalyze,
		Logger:     s.log,
		Create:     create,
		CheckAudio: mp3.CheckHead,
		Team:       app.NewTeam(people, s.store),
		Usage:      app.NewUsage(s.store, clock),
		OpenAPI:    httpapi.OpenAPI(),
		Letters:    s.letters,
		Delete:     app.NewDeleteJob(s.store, blobs, clock, s.log),
	}), nil
}
