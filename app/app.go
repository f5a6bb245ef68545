package app

// Application is every use case the inbound adapters serve: the HTTP API
// (adapters/httpapi) and the web application (adapters/web) take it whole,
// and cmd/hyscribe wires it in one literal, as wild-workouts'
// internal/trainings/app.Application. Commands change something; Queries
// only read (a query may still count against a rate limit or extend a
// session). The pipeline's stage handlers are listed in Pipeline instead,
// and the operator CLI builds the few use cases it runs where it runs them.
type Application struct {
	Commands Commands
	Queries  Queries
}

// Commands are the use cases that change something. Those marked optional
// may be nil; an adapter refuses to start without the others it serves.
type Commands struct {
	// API: jobs by API key.
	RateLimit     *RateLimit // counts every API operation per key
	CreateJob     *CreateJob // the web application's upload form too
	ReceiveUpload *ReceiveUpload
	DeleteJob     *DeleteJob // the web application's delete too (optional there)
	// Resend is resendEvent and the web application's Resend.
	Resend *Resend

	// Web application: people and sessions.
	SignUp         *SignUp
	SignIn         *SignIn
	SignOut        *SignOut
	AcceptInvite   *AcceptInvite
	SetLanguage    *SetLanguage
	ChangePassword *ChangePassword
	ResetPassword  *ResetPassword
	ForgotPassword *ForgotPassword
	// ConfirmTrial gives a sign-up's trial once its address is confirmed
	// (optional: no trial without e-mail).
	ConfirmTrial *Trial
	AllowPreview *AllowPreview
	AllowCreate  *AllowCreate

	// Web application: the team page.
	InviteMember *InviteMember
	SetRole      *SetRole
	RemoveMember *RemoveMember
	ResetLink    *ResetLink

	// Web application: settings and checklists.
	UpdateAccount         *UpdateAccount
	GenerateWebhookSecret *GenerateWebhookSecret
	CreateAPIKey          *CreateAPIKey
	RevokeAPIKey          *RevokeAPIKey
	SetRetention          *SetRetention // optional: without it the setting is not offered
	CreateChecklist       *CreateChecklist
	UpdateChecklist       *UpdateChecklist
	ArchiveChecklist      *ArchiveChecklist

	// Web application: recordings.
	NameSpeakers  *NameSpeakers
	SendTestEvent *SendTestEvent
	// ReviewCall records a person's review of a call's analysis (issue 36).
	ReviewCall *ReviewCall
	// Reanalyze analyses a call again when people give its speakers other
	// roles (optional: the analysis stays as it was).
	Reanalyze *AnalyzeTranscript
}

// Queries are the use cases that read.
type Queries struct {
	// API.
	Authenticate *Authenticate
	GetJob       *GetJob    // the web application's recording page too
	Poll         *Poll      // optional: RateLimit and GetJob, one after the other
	ExportJob    *ExportJob // the web application's downloads too
	// ListJobs answers listTranscriptions and the web application's
	// history.
	ListJobs *ListJobs

	// Web application: people and sessions.
	ResolveSession   *ResolveSession
	GetInvitation    *GetInvitation
	GetPasswordReset *GetPasswordReset
	ListMembers      *ListMembers

	// Web application: settings and checklists.
	ListAPIKeys    *ListAPIKeys
	ListChecklists *ListChecklists
	ShowChecklist  *ShowChecklist
	RetentionDays  *RetentionDays // optional, with SetRetention
	Usage          *Usage

	// Web application: recordings.
	RecordingStatuses *RecordingStatuses
	RecordingAudio    *RecordingAudio
	LiveAnalyses      *LiveAnalyses
	PreviewChecklist  *PreviewChecklist
	ReportChecklist   *ReportChecklist
}
