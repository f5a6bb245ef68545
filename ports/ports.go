// Package ports declares the outbound interfaces hyscribe's use cases need.
// Each states its contract; every adapter of a port must honour it, and the
// store ports are checked by the shared suite in ports/porttest.
package ports

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// JobStore keeps jobs. Writes of a job and of the events its change caused are
// one transaction: the events go to the outbox (see Outbox) only if the job's
// new state is committed.
type JobStore interface {
	// CreateJob saves a new job and its events. domain.ErrConflict if the ID exists.
	CreateJob(ctx context.Context, j domain.Job, events []domain.Event) error
	// GetJob returns a job or domain.ErrNotFound.
	GetJob(ctx context.Context, id domain.DocID) (domain.Job, error)
	// UpdateJob loads the job and its owning account, applies fn, and saves the
	// job, the account and fn's events in one transaction. When fn returns an
	// error nothing is saved and that error is returned unchanged. Concurrent
	// UpdateJob calls on one job are serialised: fn always sees the latest
	// committed state, so of N racing transitions exactly one succeeds.
	// fn may run more than once (the last run counts: a store retrying
	// with fresher rows), so it only computes; it must not call the store.
	UpdateJob(ctx context.Context, id domain.DocID, fn func(*domain.Job, *domain.Account) ([]domain.Event, error)) error
	// StaleJobs lists up to limit jobs the sweeper must look at: jobs still
	// uploading whose upload window closed at or before now, and jobs in
	// processing or converting not updated since stuckBefore. Oldest first.
	// A job whose stored data cannot be read is listed all the same, with
	// what can be (at least its ID and status), so that one bad row cannot
	// hide the jobs behind it.
	StaleJobs(ctx context.Context, now, stuckBefore time.Time, limit int) ([]domain.Job, error)
}

// AccountStore keeps accounts and their API keys. Keys are stored as hashes only.
type AccountStore interface {
	// CreateAccount saves a new account. domain.ErrConflict if the ID exists.
	CreateAccount(ctx context.Context, a domain.Account) error
	// GetAccount returns an account or domain.ErrNotFound.
	GetAccount(ctx context.Context, id domain.AccountID) (domain.Account, error)
	// UpdateAccount applies fn to the account in one transaction.
	UpdateAccount(ctx context.Context, id domain.AccountID, fn func(*domain.Account) error) error
	// AddAPIKey saves a key (its hash). domain.ErrNotFound if the account does not exist.
	AddAPIKey(ctx context.Context, k domain.APIKey) error
	// APIKeyByHash returns the key with that SHA-256 hex hash, revoked or not,
	// with its account; domain.ErrNotFound if none.
	APIKeyByHash(ctx context.Context, hash string) (domain.APIKey, domain.Account, error)
	// TouchAPIKey sets the key's last-used time (best effort, may be coarse).
	TouchAPIKey(ctx context.Context, id string, at time.Time) error
	// ListAPIKeys returns an account's keys, newest first.
	ListAPIKeys(ctx context.Context, account domain.AccountID) ([]domain.APIKey, error)
	// RevokeAPIKey revokes one of the account's keys; domain.ErrNotFound if
	// the account has no such key.
	RevokeAPIKey(ctx context.Context, account domain.AccountID, id string, at time.Time) error
}

// ChecklistStore keeps QA checklists, every version of each: editing a
// checklist adds a version, and analyses read the version their job was
// created with. A checklist of another account is domain.ErrNotFound,
// exactly like a missing one, in every method.
type ChecklistStore interface {
	// CreateChecklist saves a checklist (its first version). domain.ErrConflict
	// if the ID exists; domain.ErrNotFound if the account does not.
	CreateChecklist(ctx context.Context, c domain.Checklist) error
	// GetChecklist returns the latest version of the account's checklist,
	// archived or not (callers decide what archived means to them).
	GetChecklist(ctx context.Context, account domain.AccountID, id string) (domain.Checklist, error)
	// GetChecklistVersion returns one version; domain.ErrNotFound if absent.
	GetChecklistVersion(ctx context.Context, account domain.AccountID, id string, version int) (domain.Checklist, error)
	// AddChecklistVersion saves c as a new version of an existing checklist.
	// c.Version must be exactly the latest version + 1, else domain.ErrConflict:
	// of two racing edits of one version exactly one wins. Earlier versions
	// are kept unchanged.
	AddChecklistVersion(ctx context.Context, c domain.Checklist) error
	// ListChecklists returns the latest version of each of the account's
	// checklists, archived ones included, ordered by ID.
	ListChecklists(ctx context.Context, account domain.AccountID) ([]domain.Checklist, error)
	// ArchiveChecklist marks every version archived: new jobs may no longer
	// name it; jobs already created still analyse with their version.
	// Archiving twice succeeds.
	ArchiveChecklist(ctx context.Context, account domain.AccountID, id string) error
}

// Stores is every store port: one store adapter (SQLite, Postgres) provides
// them all on one database, so a use case's writes share its transactions.
// It is for the wiring and the contract suite; a use case takes only the
// ports it calls.
type Stores interface {
	JobStore
	JobAccountReader
	AccountStore
	ChecklistStore
	RateCounter
	Outbox
	DeliveryStore
	DeliveryLeases
	AnalysisStore
	ReviewStore
	JobLister
	UserStore
	SessionStore
	IdempotencyStore
	RecognizedPieces
}

// JobAccountReader reads a job with the account that owns it, in one round
// trip where the store allows it.
type JobAccountReader interface {
	// GetJobAndAccount returns what GetJob and then GetAccount of the job's
	// account would: domain.ErrNotFound when either is missing.
	GetJobAndAccount(ctx context.Context, id domain.DocID) (domain.Job, domain.Account, error)
}

// ReadJobAndAccount is GetJobAndAccount in two reads: GetJob, then
// GetAccount of the job's account. Stores without a cheaper way use it.
func ReadJobAndAccount(ctx context.Context, jobs JobStore, accounts AccountStore, id domain.DocID) (domain.Job, domain.Account, error) {
	j, err := jobs.GetJob(ctx, id)
	if err != nil {
		return domain.Job{}, domain.Account{}, err
	}
	a, err := accounts.GetAccount(ctx, j.AccountID)
	if err != nil {
		return domain.Job{}, domain.Account{}, err
	}
	return j, a, nil
}

// AnalysisStore keeps checklist analyses, one per job, for the web
// application's history page.
type AnalysisStore interface {
	// SaveAnalysis saves a and its events (the outbox) in one transaction.
	// A job has at most one analysis: a second save for a.DocID is
	// domain.ErrConflict and saves nothing, so a replayed stage is a no-op.
	// The analysis of a deleted job (see JobDeleter) is domain.ErrNotFound
	// and saves nothing.
	SaveAnalysis(ctx context.Context, a domain.Analysis, events []domain.Event) error
	// GetAnalysis returns an analysis by its ID or domain.ErrNotFound.
	GetAnalysis(ctx context.Context, id string) (domain.Analysis, error)
	// AnalysisByDoc returns the job's analysis or domain.ErrNotFound.
	AnalysisByDoc(ctx context.Context, doc domain.DocID) (domain.Analysis, error)
	// ListAnalyses returns the account's analyses of one checklist (every
	// version) of the calls made (jobs created) in [from, to), with the
	// call's time and agent (domain.CallAnalysis), oldest call first: the
	// web application's analytics when ClickHouse is not configured, and
	// its per-agent figures. An analysis made again stays on its call's day.
	ListAnalyses(ctx context.Context, account domain.AccountID, checklistID string, from, to time.Time) ([]domain.CallAnalysis, error)
}

// JobQuery selects an account's jobs for the history page. Zero fields do
// not filter.
type JobQuery struct {
	Account     domain.AccountID // required
	Status      domain.Status
	Type        domain.JobType
	ChecklistID string
	From, To    time.Time // created in [From, To)
	// Search matches jobs whose title or transcription contains it, case
	// insensitively in any script (Armenian "Բարեւ" finds "բարեւ").
	Search string
	// NeedsSpeakerNames keeps the calls whose analysis has answers left
	// "unclear" until their speakers are named (domain.NeedsSpeakerNames).
	NeedsSpeakerNames bool
	Limit             int // page size; 0 means 50
	Offset            int
	// Sort is the order (zero: newest first, ties by ID; the API's).
	Sort domain.HistorySort
	// After, when set, keeps the jobs listed after that key in Sort's
	// order (keyset pages, which jobs created meanwhile cannot shift;
	// the API's cursor is a key of the newest-first order). With Back,
	// the jobs listed before it instead — the previous page — still
	// returned in Sort's order.
	After domain.HistoryKey
	Back  bool
	// ScoreFrom and ScoreUnder keep the calls with a scored analysis
	// whose score (ListedJob.Score) is at least ScoreFrom and under
	// ScoreUnder; a ScoreUnder of 1 or more keeps a score of 1 too.
	ScoreFrom, ScoreUnder *float64
	// AgentKey and Agent keep the calls whose metadata's top-level
	// AgentKey has the value Agent (domain.MetadataValue); both or neither.
	AgentKey, Agent string
	// NeedsReview keeps the calls that have an analysis nobody reviewed
	// (sqlstore.NeedsReview).
	NeedsReview bool
}

// ListedJob is a job as the history page lists it: what a row shows, read
// without the job's transcript, segments and audio details, which a page of
// 25 rows would otherwise carry by the tens of kilobytes.
type ListedJob struct {
	ID          domain.DocID
	AccountID   domain.AccountID
	Type        domain.JobType
	Status      domain.Status
	ChecklistID string
	CreatedAt   time.Time
	Title       string
	Error       string
	Filename    string // the uploaded file's name, "" from the API
	Metadata    json.RawMessage
	// MetadataOmitted says the job's metadata is over
	// domain.MaxListedMetadataBytes: Metadata is nil, never read whole.
	MetadataOmitted bool
	Duration        *float64 // the recording's seconds (Job.Duration), nil until processed
	// Score is the call's checklist score as the history sorts by it
	// (domain.Analysis.ListScore), domain.NoValue without a scored analysis.
	Score float64
	// SortDuration is Duration as the history sorts by it, exactly as
	// stored (domain.NoValue until measured): a key of a page's cursor.
	SortDuration float64
	// Excerpt is, with a Search, a prefix of the transcription from which
	// domain.FindSnippet(…, Search, domain.SnippetRadius) reads what it
	// reads from the whole: at least domain.SearchExcerpt of it, and,
	// where the transcription has the search early, not much more. ""
	// without a Search.
	Excerpt string
}

// JobLister lists jobs for people.
type JobLister interface {
	// ListJobs returns one page of the account's jobs matching q in q.Sort's
	// order (newest first by default; ties by creation time, then ID), and
	// how many match in all, on every page (the keyset bound of q.After
	// does not count). Jobs of other accounts never appear.
	ListJobs(ctx context.Context, q JobQuery) ([]ListedJob, int, error)
	// AnalysesByDocs returns the analyses of those of the account's jobs
	// that have one, keyed by docId.
	AnalysesByDocs(ctx context.Context, account domain.AccountID, docs []domain.DocID) (map[domain.DocID]domain.Analysis, error)
}

// UserStore keeps the people who sign in to the web application.
type UserStore interface {
	// SignUp saves a new account and its first user in one transaction.
	// domain.ErrConflict (nothing saved) if the user's email is taken.
	SignUp(ctx context.Context, a domain.Account, owner domain.User) error
	// CreateUser saves a user of an existing account. domain.ErrConflict if
	// the email (or ID) is taken; domain.ErrNotFound if the account is missing.
	CreateUser(ctx context.Context, u domain.User) error
	// FindUser returns the user with that ID, email or invitation hash
	// (exactly one of the three set in by), or domain.ErrNotFound.
	FindUser(ctx context.Context, by UserKey) (domain.User, error)
	// UpdateUser applies fn to the user in one transaction; domain.ErrNotFound
	// if absent. An email changed by fn to one taken is domain.ErrConflict.
	UpdateUser(ctx context.Context, id string, fn func(*domain.User) error) error
}

// UserKey names one user for FindUser.
type UserKey struct {
	ID, Email, InviteHash string
}

// PasswordHasher turns passwords into stored hashes and checks them.
type PasswordHasher interface {
	// Hash returns a self-describing hash with a fresh random salt.
	Hash(password string) (string, error)
	// Verify reports whether password matches hash, in constant time. An
	// unreadable hash is an error, never a match.
	Verify(hash, password string) (bool, error)
}

// SessionStore keeps signed-in sessions.
type SessionStore interface {
	// CreateSession saves s. domain.ErrConflict if s.ID exists.
	CreateSession(ctx context.Context, s domain.Session) error
	// GetSession returns the session with that ID (expired or not) or
	// domain.ErrNotFound.
	GetSession(ctx context.Context, id string) (domain.Session, error)
	// DeleteSession removes one session; deleting an absent one succeeds.
	DeleteSession(ctx context.Context, id string) error
	// ExtendSession sets the end of the session with that ID (a session
	// used again, domain.Session.Extend); an absent one is no error.
	ExtendSession(ctx context.Context, id string, expiresAt time.Time) error
	// DeleteExpiredSessions removes sessions that expired at or before now
	// and returns how many.
	DeleteExpiredSessions(ctx context.Context, now time.Time) (int, error)
}

// AnalysisInput is the transcript an analyser reads.
type AnalysisInput struct {
	Type          domain.JobType
	Transcription string
	Segments      []domain.Segment // Speaker "1"/"2" for phone_call, "" otherwise
}

// ChecklistAnalyzer answers a checklist's questions about a transcript.
type ChecklistAnalyzer interface {
	// Analyze returns a result per question ID. Answers it cannot give are
	// "unclear" with the reason, never an error: an error means the analyser
	// itself is unavailable (wrapping domain.ErrUnavailable, worth a retry) or
	// a domain.Permanent failure.
	Analyze(ctx context.Context, in AnalysisInput, questions []domain.Question) (map[string]domain.QuestionResult, error)
}

// AnalyticsSink stores pipeline events for analytics (ClickHouse).
type AnalyticsSink interface {
	// Write stores a batch of events. It may be called again with events
	// already written (redelivery): the stored result must be as if each
	// was written once.
	Write(ctx context.Context, events []domain.Event) error
}

// ChecklistAnalytics answers analytics questions about checklist results.
type ChecklistAnalytics interface {
	// ChecklistReport summarises the account's checklist over [from, to):
	// per-question pass rates and average scores, per-day volumes. Each
	// analysis counts once however often it was delivered. Days are the
	// calendar days of domain.ReportZone(from).
	ChecklistReport(ctx context.Context, account domain.AccountID, checklistID string, from, to time.Time) (domain.ChecklistReport, error)
}

// RateCounter counts requests in fixed windows.
type RateCounter interface {
	// Hit counts one request for key in the window starting at window and
	// returns the count including it. Atomic across every caller sharing the
	// store. Counts of past windows may be discarded.
	Hit(ctx context.Context, key string, window time.Time) (int, error)
}

// OutboxRecord is an event waiting in the outbox, with its position.
type OutboxRecord struct {
	Seq   int64
	Event domain.Event
}

// Outbox is the store side of the transactional outbox: what the relay
// (app.Relay) calls. Stores also claim records and mark them sent in two
// steps (ClaimOutbox, MarkSent: the contract suite reads the outbox
// through them, porttest.OutboxSteps), but no use case does.
type Outbox interface {
	// PublishOutbox hands up to limit unsent records in commit (Seq) order
	// to publish, leasing them to the caller until now+lease where the
	// store leases: never a record while an earlier record of its docId is
	// leased or being published by another caller, never a record to two
	// callers at once, so that relays running at the same time do not
	// publish the same record. It removes them once publish returns nil.
	// When publish fails, or the process dies before the removal, the
	// records stay (at-least-once), reserved to this caller until the
	// lease lapses where the store leases them. It returns how many records
	// were published, and publish's error unchanged.
	PublishOutbox(ctx context.Context, now time.Time, lease time.Duration, limit int, publish func(context.Context, []OutboxRecord) error) (int, error)
	// OutboxWritten is signalled (without blocking) after a commit that wrote
	// events, so a relay in the same process can publish at once. It may never
	// fire; relays also poll.
	OutboxWritten() <-chan struct{}
}

// DeliveryStore records every attempt to deliver an event to a receiver.
type DeliveryStore interface {
	// BeginDelivery saves d as pending. It returns false, saving nothing, when
	// a delivery with d.EventID already exists: the event is a repeat; and
	// when d's job was deleted (see JobDeleter): nothing is sent for it.
	BeginDelivery(ctx context.Context, d domain.Delivery) (bool, error)
	// FinishDelivery saves the outcome of the delivery with d.ID.
	FinishDelivery(ctx context.Context, d domain.Delivery) error
	// Deliveries lists a job's deliveries, oldest first.
	Deliveries(ctx context.Context, doc domain.DocID) ([]domain.Delivery, error)
}

// Publisher sends events to the event bus.
type Publisher interface {
	// Publish sends every event to its topic keyed by docId, in order per key,
	// and returns once all are acknowledged, or an error (some may have been
	// sent: consumers tolerate repeats).
	Publish(ctx context.Context, events []domain.Event) error
}

// BlobStore keeps uploaded audio.
type BlobStore interface {
	// Put streams r into key, refusing more than maxBytes with
	// domain.ErrTooLarge. Nothing is visible under key unless Put succeeds;
	// a later Put to the same key replaces it.
	Put(ctx context.Context, key string, r io.Reader, maxBytes int64) (int64, error)
	// Open reads key and says how long it is, so that it can be sent on
	// with a Content-Length. A key that is absent is domain.ErrNotFound,
	// wrapped in an error that says where the store looked (a path, a
	// bucket): that is for the operator's log, never for customers.
	Open(ctx context.Context, key string) (Blob, error)
	// Delete removes key; deleting an absent key succeeds.
	Delete(ctx context.Context, key string) error
}

// Blob is a blob opened for reading.
type Blob interface {
	io.ReadCloser
	// Size is the blob's length in bytes as it was opened: the bytes the
	// reader yields.
	Size() int64
}

// UploadSigner issues and checks pre-signed upload addresses.
type UploadSigner interface {
	// SignUpload returns the absolute upload URL for the job, valid until
	// expires. An error means no address could be made (a misconfigured
	// store); it is not the client's fault.
	SignUpload(ctx context.Context, id domain.DocID, expires time.Time) (string, error)
	// VerifyUpload checks a signature taken from an upload URL served by the
	// service itself. It returns domain.ErrForbidden (wrapped, with a readable
	// reason) for a signature that does not match or that expired before now.
	// A signer whose addresses lead elsewhere (an S3 pre-signed PUT, checked
	// by the store) refuses every signature this way.
	VerifyUpload(id domain.DocID, expires time.Time, signature string, now time.Time) error
}

// AudioProbe validates and measures uploaded audio without decoding it.
type AudioProbe interface {
	// Probe streams r and measures it. Audio that is not MP3, is empty or
	// cannot be decoded yields a domain.Permanent error whose message says
	// what the file is ("the file is WAV audio, not MP3").
	Probe(ctx context.Context, r io.Reader) (domain.AudioInfo, error)
}

// ChannelSplitter decodes audio for recognition of each channel on its own.
type ChannelSplitter interface {
	// SplitChannels decodes the MP3 in r and writes each of its channels as a
	// 16 kHz mono 16-bit WAV file in dir, returning the paths in channel order
	// (one path for mono). Undecodable audio is a domain.Permanent error.
	SplitChannels(ctx context.Context, r io.Reader, dir string) ([]string, error)
}

// AudioFile is audio handed to a speech engine.
type AudioFile struct {
	Name string // file name with its extension: "audio.mp3", "left.wav"
	// Open opens the audio anew for every attempt. A reader whose length is
	// known (a Blob, or an *os.File of a regular file) lets the recognizer
	// send it with a Content-Length, which some engines and proxies require.
	Open func() (io.ReadCloser, error)
	// Whose work this is, for an engine shared fairly among accounts and
	// their jobs; Seconds is the audio's length (0: unknown), so that the
	// pieces of one recording go longest first. Zero values share one queue.
	Account domain.AccountID
	Job     domain.DocID
	Seconds float64
}

// SpeechRecognizer turns Armenian speech into text with timestamps.
type SpeechRecognizer interface {
	// Recognize sends the audio to the engine. Transient failures the adapter
	// already retried are returned wrapping domain.ErrUnavailable; failures no
	// retry can fix are domain.Permanent. Errors carry a readable message.
	Recognize(ctx context.Context, audio AudioFile) (domain.Recognition, error)
}

// Summarizer writes a title (one line, at most 80 characters) and a summary
// (one paragraph, at most 600 characters) of an Armenian transcript.
type Summarizer interface {
	Summarize(ctx context.Context, transcript string) (title, resolution string, err error)
}

// WebhookRequest is one event to POST to a customer's receiver.
type WebhookRequest struct {
	URL       string
	EventID   string // webhook-id header, stable across repeats of one event
	Body      []byte // the JSON payload
	Secret    string // key of the webhook-signature header; empty: no signature
	Timestamp time.Time
	// Account is whose event it is: a receiver's health is judged per
	// account, so one account's failing receiver never delays or fails
	// another account's deliveries to the same host.
	Account domain.AccountID
	// Test marks a test event (domain.EventTest): its outcome is kept apart
	// from the account's real deliveries to the same receiver.
	Test bool
}

// WebhookResult is the outcome of one POST.
type WebhookResult struct {
	Status  int // HTTP status, 0 if none was received
	Latency time.Duration
	Err     error // nil only for a 2xx answer
}

// WebhookSender POSTs events to receivers, once each: no automatic retry
// (spec §6). A dead or slow receiver must not delay sends to other receivers.
type WebhookSender interface {
	Send(ctx context.Context, req WebhookRequest) WebhookResult
}

// Clock tells the time; tests pass a fixed or stepped one.
type Clock interface{ Now() time.Time }

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns the current time.
func (SystemClock) Now() time.Time { return time.Now() }

// Diarizer tells the two speakers of a mono call apart.
type Diarizer interface {
	// Diarize reads the 16 kHz mono 16-bit WAV at wavPath (as
	// ChannelSplitter writes it) and returns who speaks when: turns in time
	// order, not overlapping, with at most two distinct opaque speaker keys.
	// A recording without speech gives no turns and no error. Errors are
	// read failures or a done ctx; they are never the customer's fault.
	Diarize(ctx context.Context, wavPath string) ([]domain.Turn, error)
}

// ChannelInspector tells a stereo call whose channels are two speakers
// from one that carries the call on one channel: the same mix on both
// (dual mono) or the call beside a silent channel.
type ChannelInspector interface {
	// InspectChannels reads the two 16 kHz mono 16-bit WAV files of a
	// stereo recording (as ChannelSplitter writes them). Errors are read
	// failures or a done ctx.
	InspectChannels(ctx context.Context, left, right string) (domain.ChannelLayout, error)
}

// ChunkLimits bound one request to a speech engine; zero means no bound.
// PieceSeconds, WholeSeconds and Slots size the pieces of a long recording for an engine
// of Slots requests at once (domain.PieceSizing); zero PieceSeconds cuts
// only what the bounds require.
type ChunkLimits struct {
	MaxBytes     int64
	MaxSeconds   float64
	PieceSeconds float64
	WholeSeconds float64
	Slots        int
}

// Chunk is one piece of a recording, as a file of the recording's format.
// Start is where the piece's audio begins in the recording, in seconds
// (negative by the encoder delay for a first piece that lost the header
// saying how long it is); times the engine reports for the piece are
// relative to Start. The piece may begin with a little audio already at
// the end of the previous piece (decoder warm-up, always in a silence):
// From is where the piece's own part begins, End where it ends.
type Chunk struct {
	Path             string
	Start, From, End float64
}

// SpeechFinder finds where people speak in a decoded channel.
type SpeechFinder interface {
	// Speech returns the stretches of speech in the 16 kHz mono 16-bit WAV
	// at wavPath (as ChannelSplitter writes it), in time order; none for
	// silence. Errors are read failures or a done ctx.
	Speech(ctx context.Context, wavPath string) ([]domain.Span, error)
}

// SpanCutter writes stretches of a decoded channel as files of their own,
// for an engine that gives text without times: each piece's time is then
// known from its cut.
type SpanCutter interface {
	// Cut writes spans (seconds, in order, within the file) of the 16-bit
	// PCM WAV at wavPath as WAV files in dir (which exists) and returns
	// their paths, one per span. Nothing is left in dir on error.
	Cut(ctx context.Context, wavPath, dir string, spans []domain.Span) ([]string, error)
}

// AudioChunker cuts a long recording into pieces within an engine's limits.
type AudioChunker interface {
	// Chunk reads the recording (open may be called more than once) and
	// writes it to dir as consecutive pieces, each within limits, cut in
	// silences so that no word is cut in two. Pieces cover the recording
	// without gaps or overlap (From to End). A recording within limits is
	// one Chunk with an empty Path: send the original. Audio that cannot be
	// read as MP3 is a domain.Permanent error, and so is audio that holds
	// nothing at all (domain.ErrNoSpeech); nothing is left in dir on error.
	// dir need not exist: it is made (0700, its parent must exist) when
	// there are pieces to write.
	Chunk(ctx context.Context, open func() (io.ReadCloser, error), dir string, limits ChunkLimits) ([]Chunk, error)
}
