package cli

import (
	"github.com/hyscribe/hyscribe/adapters/analysis"
	"github.com/hyscribe/hyscribe/adapters/password"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// apiPath is the API's hot path, built by pollPath: key authentication,
// the rate limit per key, and getTranscription.
type apiPath struct {
	auth  *app.Authenticate
	limit *app.RateLimit
	get   *app.GetJob
	poll  *app.Poll
}

// newApplication wires every use case the API and the web application
// serve, each given the ports it calls: the web application's in
// app.NewWebApplication (which its tests run too), then the API's,
// retention and reanalysis, and the sign-up plan. reports may be nil
// (analytics read the store); reanalyze may be nil.
func (s *Service) newApplication(api apiPath, blobs ports.BlobStore, signer ports.UploadSigner, reports ports.ChecklistAnalytics, reanalyze *app.AnalyzeTranscript, clock ports.Clock) app.Application {
	cfg, st := s.cfg, s.store
	uc := app.NewWebApplication(app.WebPorts{
		Store:  st,
		Blobs:  blobs,
		Signer: signer,
		// At most DefaultMemoryBudget of password hashing at once (docs/security.md).
		Hasher:    password.NewGate(password.Hasher{}, password.DefaultMemoryBudget, password.DefaultGateWait),
		Sender:    s.webhooks,
		Analyzer:  analysis.New(),
		Analytics: reports,
		Clock:     clock,
		UploadTTL: cfg.UploadTTL,
		Log:       s.log,
	})
	c, q := &uc.Commands, &uc.Queries
	c.SignUp.Plan, c.SignUp.Seconds = domain.Plan(cfg.SignUpPlan), cfg.SignUpSeconds
	// The trial's seconds come once the sign-up's address is confirmed by
	// e-mail (app.Trial); without e-mail no trial is offered.
	trial := app.NewTrial(st, s.letters, clock, cfg.TrialSeconds)
	if cfg.TrialUnconfirmed && cfg.TrialSeconds > 0 { // the operator's choice, for a laptop or a demo
		c.SignUp.Plan, c.SignUp.Seconds = domain.PlanBusiness, cfg.TrialSeconds
	} else if trial.Offered() {
		c.SignUp.Plan, c.SignUp.Seconds, c.SignUp.Trial = domain.PlanBusiness, 0, trial
		c.ConfirmTrial = trial
	} else if cfg.TrialSeconds > 0 {
		s.log.Warn("HYSCRIBE_TRIAL_SECONDS is set but no e-mail is configured (HYSCRIBE_SMTP_URL): sign-ups get no trial; grant seconds with `hyscribe account update`")
	}
	c.RevokeAPIKey.Revoked = api.auth.Forget // a key revoked here stops working here at once

	c.RateLimit = api.limit
	c.ReceiveUpload = app.NewReceiveUpload(st, blobs, signer, clock, cfg.MaxUploadBytes)
	c.SetRetention = app.NewSetRetention(st)
	c.Reanalyze = reanalyze

	q.Authenticate = api.auth
	q.GetJob = api.get
	q.Poll = api.poll
	q.ListJobs = app.NewListJobs(st, st, st, st, st)
	q.RetentionDays = app.NewRetentionDays(st)
	return uc
}
