package app

import (
	"log/slog"
	"time"

	"github.com/hyscribe/hyscribe/ports"
)

// WebStore is the store the web application's use cases read and write:
// every entity's port, the team's, usage and deletion.
type WebStore interface {
	ports.Stores
	ports.TeamStore
	ports.UsageReader
	ports.JobDeleter
	ports.JobPager
}

// WebPorts are what the web application's use cases are built on.
type WebPorts struct {
	Store     WebStore
	Blobs     ports.BlobStore
	Hasher    ports.PasswordHasher
	Signer    ports.UploadSigner
	Sender    ports.WebhookSender
	Analyzer  ports.ChecklistAnalyzer  // the checklist preview's
	Analytics ports.ChecklistAnalytics // the checklist report's; nil reads the store
	Clock     ports.Clock
	UploadTTL time.Duration
	Log       *slog.Logger // job deletion's; may be nil
}

// NewWebApplication wires every use case the web application serves, each
// given the ports it calls. cmd/hyscribe adds the API's, retention and
// reanalysis to it and sets the sign-up plan; the web application's tests
// run it as it is, so they run the wiring production runs.
func NewWebApplication(p WebPorts) Application {
	st, clock, hasher := p.Store, p.Clock, p.Hasher
	// The web application's limits count in the store.
	limit := NewRateLimit(st, clock)
	export, get := NewExportJob(st), NewGetJob(st, st, st, st, st, st)
	return Application{
		Commands: Commands{
			CreateJob: NewCreateJob(st, st, p.Signer, clock, p.UploadTTL),
			DeleteJob: NewDeleteJob(st, p.Blobs, clock, p.Log),

			SignUp:         NewSignUp(st, st, hasher, limit, clock),
			SignIn:         NewSignIn(st, st, hasher, limit, clock),
			SignOut:        NewSignOut(st),
			AcceptInvite:   NewAcceptInvite(st, st, hasher, clock),
			SetLanguage:    NewSetLanguage(st),
			ChangePassword: NewChangePassword(st, st, hasher, clock),
			ResetPassword:  NewResetPassword(st, st, st, hasher, clock),
			ForgotPassword: NewForgotPassword(st, st, limit, clock),
			AllowPreview:   NewAllowPreview(limit),
			AllowCreate:    NewAllowCreate(limit),

			InviteMember: NewInviteMember(st, limit, clock),
			SetRole:      NewSetRole(st, st),
			RemoveMember: NewRemoveMember(st, st),
			ResetLink:    NewResetLink(st, st, clock),

			UpdateAccount:         NewUpdateAccount(st),
			GenerateWebhookSecret: NewGenerateWebhookSecret(st),
			CreateAPIKey:          NewCreateAPIKey(st, clock),
			RevokeAPIKey:          NewRevokeAPIKey(st, clock),
			CreateChecklist:       NewCreateChecklist(st, st, clock),
			UpdateChecklist:       NewUpdateChecklist(st, clock),
			ArchiveChecklist:      NewArchiveChecklist(st),

			Resend:        NewResend(st, st, st, p.Sender, clock, limit),
			NameSpeakers:  NewNameSpeakers(st, limit),
			SendTestEvent: NewSendTestEvent(st, p.Sender, clock),
			ReviewCall:    NewReviewCall(st, st, st, st, clock),
		},
		Queries: Queries{
			ResolveSession:   NewResolveSession(st, st, st, clock),
			GetInvitation:    NewGetInvitation(st, st, clock),
			GetPasswordReset: NewGetPasswordReset(st, clock),
			ListMembers:      NewListMembers(st),

			ListAPIKeys:    NewListAPIKeys(st),
			ListChecklists: NewListChecklists(st, st),
			ShowChecklist:  NewShowChecklist(st),
			Usage:          NewUsage(st, clock),

			ListJobs:          NewListJobs(st, st, st, st, st),
			GetJob:            get,
			RecordingStatuses: NewRecordingStatuses(st),
			RecordingAudio:    NewRecordingAudio(st, p.Blobs),
			ExportJob:         export,
			LiveAnalyses:      NewLiveAnalyses(st, st),
			PreviewChecklist:  NewPreviewChecklist(st, st, p.Analyzer, clock),
			ReportChecklist:   NewReportChecklist(st, st, p.Analytics),
		},
	}
}
