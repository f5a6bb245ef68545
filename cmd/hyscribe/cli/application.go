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
// serve, each given the ports it calls, in one literal (app.Application).
// reports may be nil (analytics read the store); reanalyze may be nil.
func (s *Service) newApplication(api apiPath, blobs ports.BlobStore, signer ports.UploadSigner, reports ports.ChecklistAnalytics, reanalyze *app.AnalyzeTranscript, clock ports.Clock) app.Application {
	cfg, st := s.cfg, s.store
	// At most DefaultMemoryBudget of password hashing at once (docs/security.md).
	hasher := password.NewGate(password.Hasher{}, password.DefaultMemoryBudget, password.DefaultGateWait)
	// The web application's limits count in the store whatever the API's
	// limit counts in (memory without DATABASE_URL, poll.go).
	limit := app.NewRateLimit(st, clock)
	signUp := app.NewSignUp(st, st, hasher, limit, clock)
	signUp.Plan, signUp.Seconds = domain.Plan(cfg.SignUpPlan), cfg.SignUpSeconds
	if cfg.TrialSeconds > 0 { // the first hour works without an operator
		signUp.Plan, signUp.Seconds = domain.PlanBusiness, cfg.TrialSeconds
	}
	revoke := app.NewRevokeAPIKey(st, clock)
	revoke.Revoked = api.auth.Forget // a key revoked here stops working here at once
	return app.Application{
		Commands: app.Commands{
			RateLimit:     api.limit,
			CreateJob:     app.NewCreateJob(st, st, signer, clock, cfg.UploadTTL),
			ReceiveUpload: app.NewReceiveUpload(st, blobs, signer, clock, cfg.MaxUploadBytes),
			DeleteJob:     app.NewDeleteJob(st, blobs, clock, s.log),
			ResendEvent:   app.NewResendEvent(st, st, st, s.webhooks, clock),

			SignUp:         signUp,
			SignIn:         app.NewSignIn(st, st, hasher, limit, clock),
			SignOut:        app.NewSignOut(st),
			AcceptInvite:   app.NewAcceptInvite(st, st, hasher, clock),
			SetLanguage:    app.NewSetLanguage(st),
			ChangePassword: app.NewChangePassword(st, st, hasher, clock),
			ResetPassword:  app.NewResetPassword(st, st, st, hasher, clock),
			ForgotPassword: app.NewForgotPassword(st, st, limit, clock),
			AllowPreview:   app.NewAllowPreview(limit),
			AllowCreate:    app.NewAllowCreate(limit),

			InviteMember: app.NewInviteMember(st, limit, clock),
			SetRole:      app.NewSetRole(st, st),
			RemoveMember: app.NewRemoveMember(st, st),
			ResetLink:    app.NewResetLink(st, st, clock),

			UpdateAccount:         app.NewUpdateAccount(st),
			GenerateWebhookSecret: app.NewGenerateWebhookSecret(st),
			CreateAPIKey:          app.NewCreateAPIKey(st, clock),
			RevokeAPIKey:          revoke,
			SetRetention:          app.NewSetRetention(st),
			CreateChecklist:       app.NewCreateChecklist(st, st, clock),
			UpdateChecklist:       app.NewUpdateChecklist(st, clock),
			ArchiveChecklist:      app.NewArchiveChecklist(st),

			ResendDelivery: app.NewResendDelivery(st, st, st, s.webhooks, clock),
			NameSpeakers:   app.NewNameSpeakers(st),
			SendTestEvent:  app.NewSendTestEvent(st, s.webhooks, clock),
			Reanalyze:      reanalyze,
		},
		Queries: app.Queries{
			Authenticate:       api.auth,
			GetJob:             api.get,
			Poll:               api.poll,
			ExportJob:          app.NewExportJob(st),
			ListTranscriptions: app.NewListTranscriptions(st),

			ResolveSession:   app.NewResolveSession(st, st, st, clock),
			GetInvitation:    app.NewGetInvitation(st, st, clock),
			GetPasswordReset: app.NewGetPasswordReset(st, clock),
			ListMembers:      app.NewListMembers(st),

			ListAPIKeys:    app.NewListAPIKeys(st),
			ListChecklists: app.NewListChecklists(st, st),
			ShowChecklist:  app.NewShowChecklist(st),
			RetentionDays:  app.NewRetentionDays(st),
			Usage:          app.NewUsage(st, clock),

			ListRecordings:    app.NewListRecordings(st, st),
			GetRecording:      app.NewGetRecording(st, st, st, st, st),
			RecordingStatuses: app.NewRecordingStatuses(st),
			RecordingAudio:    app.NewRecordingAudio(st, blobs),
			ExportRecording:   app.NewExportRecording(st),
			LiveAnalyses:      app.NewLiveAnalyses(st, st),
			PreviewChecklist:  app.NewPreviewChecklist(st, st, analysis.New(), clock),
			ReportChecklist:   app.NewReportChecklist(st, st, reports),
		},
	}
}
