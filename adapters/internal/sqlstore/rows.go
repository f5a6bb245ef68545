package sqlstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/adapters/internal/webquery"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Jobs.

// jobRow is a job as stored: a field per column, its db tag the column's
// name, in the order the statements list them. It is the one list of a
// job's columns: JobCols, JobRow and JobScan.Dest are made from it. The
// mapping to and from domain.Job is the pair toJobRow/toDomainJob below,
// so a new column is a field here, one line in each of the pair, and the
// two migrations; TestRowMappingsComplete fails when either line is left
// out.
type jobRow struct {
	ID               string  `db:"id"`
	AccountID        string  `db:"account_id"`
	Type             string  `db:"type"`
	Status           string  `db:"status"`
	Metadata         *string `db:"metadata"`
	ChecklistID      string  `db:"checklist_id"`
	CreatedAt        int64   `db:"created_at"`
	UpdatedAt        int64   `db:"updated_at"`
	UploadExpiresAt  int64   `db:"upload_expires_at"`
	BlobKey          string  `db:"blob_key"`
	AudioBytes       int64   `db:"audio_bytes"`
	Audio            *string `db:"audio"`
	ReservedMs       int64   `db:"reserved_ms"`
	Transcription    string  `db:"transcription"`
	Segments         *string `db:"segments"`
	Title            string  `db:"title"`
	Resolution       string  `db:"resolution"`
	LanguageCode     string  `db:"language_code"`
	Error            string  `db:"error"`
	Redrives         int     `db:"redrives"`
	ChecklistVersion int     `db:"checklist_version"`
	Filename         string  `db:"filename"`
	Speakers         *string `db:"speakers"`
}

// JobCols are the columns a job is read from (jobRow's).
var JobCols = Columns[jobRow]()

// JobWriteCols are the columns a job row is written with: JobCols,
// search_text, which only the history's search reads, and list_duration,
// which the history sorts by (migration 29).
var JobWriteCols = append(slices.Clone(JobCols), "search_text", "list_duration")

// toJobRow is j as stored: its JSON values encoded, an absent one NULL.
func toJobRow(j domain.Job) (jobRow, error) {
	audio, errA := nullJSON("audio", j.Audio != nil, j.Audio)
	segments, errS := nullJSON("segments", len(j.Segments) > 0, j.Segments)
	speakers, errP := nullJSON("speakers", len(j.Speakers) > 0, j.Speakers)
	if err := errors.Join(errA, errS, errP); err != nil {
		return jobRow{}, err
	}
	return jobRow{
		ID: string(j.ID), AccountID: string(j.AccountID), Type: string(j.Type), Status: string(j.Status),
		Metadata: nullRaw(j.Metadata), ChecklistID: j.ChecklistID, CreatedAt: ToMs(j.CreatedAt),
		UpdatedAt: ToMs(j.UpdatedAt), UploadExpiresAt: ToMs(j.UploadExpiresAt), BlobKey: j.BlobKey,
		AudioBytes: j.AudioBytes, Audio: audio, ReservedMs: j.ReservedMs, Transcription: j.Transcription,
		Segments: segments, Title: j.Title, Resolution: j.Resolution, LanguageCode: j.LanguageCode,
		Error: j.Error, Redrives: j.Redrives, ChecklistVersion: j.ChecklistVersion, Filename: j.Filename,
		Speakers: speakers,
	}, nil
}

// toDomainJob is the job stored as r. A JSON column that cannot be decoded
// is an error, and is left out of the job returned beside it, which has
// every other column.
func toDomainJob(r jobRow) (domain.Job, error) {
	j := domain.Job{
		ID: domain.DocID(r.ID), AccountID: domain.AccountID(r.AccountID), Type: domain.JobType(r.Type),
		Status: domain.Status(r.Status), Metadata: rawOrNil(r.Metadata), ChecklistID: r.ChecklistID,
		CreatedAt: FromMs(r.CreatedAt), UpdatedAt: FromMs(r.UpdatedAt), UploadExpiresAt: FromMs(r.UploadExpiresAt),
		BlobKey: r.BlobKey, AudioBytes: r.AudioBytes, ReservedMs: r.ReservedMs, Transcription: r.Transcription,
		Title: r.Title, Resolution: r.Resolution, LanguageCode: r.LanguageCode, Error: r.Error,
		Redrives: r.Redrives, ChecklistVersion: r.ChecklistVersion, Filename: r.Filename,
	}
	err := errors.Join(
		decodeJSON("audio", r.Audio, &j.Audio),
		decodeJSON("segments", r.Segments, &j.Segments),
		decodeJSON("speakers", r.Speakers, &j.Speakers),
	)
	if err != nil {
		return j, fmt.Errorf("job %s: %w", j.ID, err)
	}
	return j, nil
}

// JobRow lists j's values in JobWriteCols order.
func JobRow(j domain.Job) ([]any, error) {
	r, err := toJobRow(j)
	if err != nil {
		return nil, err
	}
	return append(Values(&r), searchText(j), listDuration(j)), nil
}

// JobScan holds a job row's columns (JobCols) as scanned, before decoding:
// scan into Dest, then call Job.
type JobScan struct{ r jobRow }

// Dest lists the scan destinations in JobCols order.
func (s *JobScan) Dest() []any { return Pointers(&s.r) }

// ID is the scanned job's ID, known even when the row does not decode.
func (s *JobScan) ID() domain.DocID { return domain.DocID(s.r.ID) }

// Job decodes the scanned row.
func (s *JobScan) Job() (domain.Job, error) {
	j, err := toDomainJob(s.r)
	if err != nil {
		return domain.Job{}, err
	}
	return j, nil
}

// nullJSON is v as JSON text when present, else NULL (nil).
func nullJSON(col string, present bool, v any) (*string, error) {
	if !present {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", col, err)
	}
	return new(string(b)), nil
}

// decodeJSON decodes a JSON column into dst, leaving dst as it is when the
// column is NULL.
func decodeJSON[T any](col string, v *string, dst *T) error {
	if v == nil {
		return nil
	}
	if err := json.Unmarshal([]byte(*v), dst); err != nil {
		return fmt.Errorf("decode %s: %w", col, err)
	}
	return nil
}

// nullRaw is raw JSON as stored, NULL (nil) when there is none.
func nullRaw(raw json.RawMessage) *string {
	if raw == nil {
		return nil
	}
	return new(string(raw))
}

// rawOrNil is a stored raw JSON column.
func rawOrNil(v *string) json.RawMessage {
	if v == nil {
		return nil
	}
	return json.RawMessage(*v)
}

// ScanJob reads one job row (JobCols).
func ScanJob(sc Scanner) (domain.Job, error) {
	var r JobScan
	if err := sc.Scan(r.Dest()...); err != nil {
		return domain.Job{}, err
	}
	return r.Job()
}

// ScanStaleJob reads one row of the sweeper's list (JobCols). A row whose
// JSON cannot be decoded is listed all the same, without that column: the
// sweeper then fails to update that job, logs it and goes on, where an
// error here would stop every sweep at that row (the list is oldest first).
func ScanStaleJob(sc Scanner) (domain.Job, error) {
	var r JobScan
	if err := sc.Scan(r.Dest()...); err != nil {
		return domain.Job{}, err
	}
	j, _ := toDomainJob(r.r)
	return j, nil
}

// Listed jobs (the history page).

// ListedCols are the columns of a ports.ListedJob in ListedScan.Dest
// order; of the audio details only the duration is read, as JSON text, in
// the engine's JSON syntax. Metadata over domain.MaxListedMetadataBytes
// is read as the empty string (stored metadata is JSON, never empty), so a page never
// carries it (ports.ListedJob.MetadataOmitted); Postgres takes the length
// from the value's header without reading it.
func (d Dialect) ListedCols() string {
	duration, size := "audio -> '$.duration'", "length(CAST(metadata AS BLOB))"
	if d == Postgres {
		duration, size = "audio::json ->> 'duration'", "octet_length(metadata)"
	}
	meta := "CASE WHEN " + size + " > " + strconv.Itoa(domain.MaxListedMetadataBytes) + " THEN '' ELSE metadata END"
	return "id, account_id, type, status, " + meta + ", checklist_id, created_at, title, error, filename, " + duration + ", list_score, list_duration"
}

// ListedScan holds a ports.ListedJob row as scanned: scan into Dest (and
// the excerpt into &Excerpt), then call Listed.
type ListedScan struct {
	l              ports.ListedJob
	meta, duration *string
	created        int64
	Excerpt        string
}

// Dest lists the scan destinations of ListedCols.
func (r *ListedScan) Dest() []any {
	l := &r.l
	return []any{&l.ID, &l.AccountID, &l.Type, &l.Status, &r.meta, &l.ChecklistID, &r.created, &l.Title, &l.Error, &l.Filename, &r.duration, &l.Score, &l.SortDuration}
}

// Listed decodes the scanned row.
func (r *ListedScan) Listed() (ports.ListedJob, error) {
	l := r.l
	l.CreatedAt, l.Excerpt = FromMs(r.created), r.Excerpt
	switch {
	case r.meta != nil && *r.meta == "":
		l.MetadataOmitted = true
	case r.meta != nil:
		l.Metadata = json.RawMessage(*r.meta)
	}
	if r.duration != nil {
		d, err := strconv.ParseFloat(*r.duration, 64)
		if err != nil {
			return ports.ListedJob{}, fmt.Errorf("job %s: decode duration %q: %w", l.ID, *r.duration, err)
		}
		l.Duration = &d
	}
	return l, nil
}

// Accounts.

// accountRow is an account as stored (see jobRow).
type accountRow struct {
	ID                 string `db:"id"`
	Name               string `db:"name"`
	Plan               string `db:"plan"`
	BalanceMs          int64  `db:"balance_ms"`
	WebhookURL         string `db:"webhook_url"`
	WebhookSecret      string `db:"webhook_secret"`
	AnalysisWebhookURL string `db:"analysis_webhook_url"`
	NotifyFailures     bool   `db:"notify_failures"`
	CreatedAt          int64  `db:"created_at"`
	TimeZone           string `db:"time_zone"`
	AgentChannel       string `db:"agent_channel"`
	ListColumns        string `db:"list_columns"`
	AgentKey           string `db:"agent_key"`
	TrialEmail         string `db:"trial_email"`
	TrialTokenHash     string `db:"trial_token_hash"`
	TrialGrantedAt     *int64 `db:"trial_granted_at"`
}

// AccountCols are an account's columns (accountRow's).
var AccountCols = Columns[accountRow]()

// AccountRow lists a's values in AccountCols order.
func AccountRow(a domain.Account) []any {
	return Values(&accountRow{
		ID: string(a.ID), Name: a.Name, Plan: string(a.Plan), BalanceMs: a.BalanceMs, WebhookURL: a.WebhookURL,
		WebhookSecret: a.WebhookSecret, AnalysisWebhookURL: a.AnalysisWebhookURL, NotifyFailures: a.NotifyFailures,
		CreatedAt: ToMs(a.CreatedAt), TimeZone: a.TimeZone, AgentChannel: a.AgentChannel,
		ListColumns: a.ListColumns, AgentKey: a.AgentKey,
		TrialEmail: a.TrialEmail, TrialTokenHash: a.TrialTokenHash, TrialGrantedAt: ToNullMs(a.TrialGrantedAt),
	})
}

// AccountScan holds an account row (AccountCols) as scanned: scan into
// Dest, then call Account. It reads an account selected beside other
// columns.
type AccountScan struct{ r accountRow }

// Dest lists the scan destinations in AccountCols order.
func (s *AccountScan) Dest() []any { return Pointers(&s.r) }

// Account decodes the scanned row.
func (s *AccountScan) Account() domain.Account {
	r := &s.r
	return domain.Account{
		ID: domain.AccountID(r.ID), Name: r.Name, Plan: domain.Plan(r.Plan), BalanceMs: r.BalanceMs,
		WebhookURL: r.WebhookURL, WebhookSecret: r.WebhookSecret, AnalysisWebhookURL: r.AnalysisWebhookURL,
		NotifyFailures: r.NotifyFailures, CreatedAt: FromMs(r.CreatedAt), TimeZone: r.TimeZone,
		AgentChannel: r.AgentChannel, ListColumns: r.ListColumns, AgentKey: r.AgentKey, TrialEmail: r.TrialEmail, TrialTokenHash: r.TrialTokenHash,
		TrialGrantedAt: FromNullMs(r.TrialGrantedAt),
	}
}

// ScanAccount reads one account row (AccountCols).
func ScanAccount(sc Scanner) (domain.Account, error) {
	var r AccountScan
	if err := sc.Scan(r.Dest()...); err != nil {
		return domain.Account{}, err
	}
	return r.Account(), nil
}

// Users.

// userRow is a user as stored (see jobRow); no invitation expiry is NULL.
type userRow struct {
	ID              string `db:"id"`
	AccountID       string `db:"account_id"`
	Email           string `db:"email"`
	PasswordHash    string `db:"password_hash"`
	Role            string `db:"role"`
	InviteHash      string `db:"invite_hash"`
	InviteExpiresAt *int64 `db:"invite_expires_at"`
	CreatedAt       int64  `db:"created_at"`
	Lang            string `db:"lang"`
}

// UserCols are a user's columns (userRow's).
var UserCols = Columns[userRow]()

// UserRow lists u's values in UserCols order.
func UserRow(u domain.User) []any {
	r := userRow{ID: u.ID, AccountID: string(u.AccountID), Email: u.Email, PasswordHash: u.PasswordHash,
		Role: string(u.Role), InviteHash: u.InviteHash, CreatedAt: ToMs(u.CreatedAt), Lang: u.Lang}
	if !u.InviteExpiresAt.IsZero() {
		r.InviteExpiresAt = ToNullMs(&u.InviteExpiresAt)
	}
	return Values(&r)
}

// ScanUser reads one user row (UserCols).
func ScanUser(sc Scanner) (domain.User, error) {
	var r userRow
	if err := sc.Scan(Pointers(&r)...); err != nil {
		return domain.User{}, err
	}
	u := domain.User{ID: r.ID, AccountID: domain.AccountID(r.AccountID), Email: r.Email, PasswordHash: r.PasswordHash,
		Role: domain.Role(r.Role), InviteHash: r.InviteHash, CreatedAt: FromMs(r.CreatedAt), Lang: r.Lang}
	if t := FromNullMs(r.InviteExpiresAt); t != nil {
		u.InviteExpiresAt = *t
	}
	return u, nil
}

// Analyses.

// analysisRow is an analysis as stored (see jobRow); its results are JSON.
type analysisRow struct {
	ID               string   `db:"id"`
	DocID            string   `db:"doc_id"`
	AccountID        string   `db:"account_id"`
	ChecklistID      string   `db:"checklist_id"`
	ChecklistVersion int      `db:"checklist_version"`
	ChecklistName    string   `db:"checklist_name"`
	Status           string   `db:"status"`
	Error            string   `db:"error"`
	Results          string   `db:"results"`
	CreatedAt        int64    `db:"created_at"`
	ListScore        *float64 `db:"list_score"`
	// NeedsNames is 1 when domain.NeedsSpeakerNames holds of the results
	// (the history's filter), computed on every write.
	NeedsNames int `db:"needs_names"`
}

// AnalysisCols are an analysis's columns (analysisRow's).
var AnalysisCols = Columns[analysisRow]()

// AnalysisRow lists a's values in AnalysisCols order; no results are
// written as an empty object.
func AnalysisRow(a domain.Analysis) ([]any, error) {
	if a.Results == nil {
		a.Results = map[string]domain.QuestionResult{}
	}
	results, err := json.Marshal(a.Results)
	if err != nil {
		return nil, fmt.Errorf("encode results: %w", err)
	}
	return Values(&analysisRow{ID: a.ID, DocID: string(a.DocID), AccountID: string(a.AccountID),
		ChecklistID: a.ChecklistID, ChecklistVersion: a.ChecklistVersion, ChecklistName: a.ChecklistName,
		Status: a.Status, Error: a.Error, Results: string(results), CreatedAt: ToMs(a.CreatedAt), ListScore: a.ListScore,
		NeedsNames: boolInt(domain.NeedsSpeakerNames(a.Results))}), nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ScanAnalysis reads one analysis row (AnalysisCols).
func ScanAnalysis(sc Scanner) (domain.Analysis, error) {
	var r analysisRow
	if err := sc.Scan(Pointers(&r)...); err != nil {
		return domain.Analysis{}, err
	}
	return analysisOf(r)
}

func analysisOf(r analysisRow) (domain.Analysis, error) {
	a := domain.Analysis{ID: r.ID, DocID: domain.DocID(r.DocID), AccountID: domain.AccountID(r.AccountID),
		ChecklistID: r.ChecklistID, ChecklistVersion: r.ChecklistVersion, ChecklistName: r.ChecklistName,
		Status: r.Status, Error: r.Error, CreatedAt: FromMs(r.CreatedAt), ListScore: r.ListScore}
	if err := json.Unmarshal([]byte(r.Results), &a.Results); err != nil {
		return domain.Analysis{}, fmt.Errorf("analysis %s: decode results: %w", a.ID, err)
	}
	return a, nil
}

// callAnalysisRow is an analysis joined with what reports read of its
// job: its creation (the call's day) and its speakers' names.
type callAnalysisRow struct {
	analysisRow
	CallAt   int64   `db:"call_at"`
	Speakers *string `db:"speakers"`
}

// CallAnalysisSelect reads analyses (alias a) with their jobs (alias j),
// to be followed by a WHERE.
var CallAnalysisSelect = func() string {
	cols := make([]string, 0, len(AnalysisCols)+2)
	for _, c := range AnalysisCols {
		cols = append(cols, "a."+c)
	}
	cols = append(cols, "j.created_at AS call_at", "j.speakers")
	return "SELECT " + strings.Join(cols, ", ") + " FROM analyses a JOIN jobs j ON j.id = a.doc_id"
}()

// ScanCallAnalysis reads one row of CallAnalysisSelect.
func ScanCallAnalysis(sc Scanner) (domain.CallAnalysis, error) {
	var r callAnalysisRow
	if err := sc.Scan(append(Pointers(&r.analysisRow), &r.CallAt, &r.Speakers)...); err != nil {
		return domain.CallAnalysis{}, err
	}
	a, err := analysisOf(r.analysisRow)
	if err != nil {
		return domain.CallAnalysis{}, err
	}
	j := domain.Job{}
	if err := decodeJSON("speakers", r.Speakers, &j.Speakers); err != nil {
		return domain.CallAnalysis{}, fmt.Errorf("analysis %s: %w", a.ID, err)
	}
	return domain.CallAnalysis{Analysis: a, CallAt: FromMs(r.CallAt), Agent: j.AgentName()}, nil
}

// Deliveries.

// deliveryRow is a delivery as stored (see jobRow); no payload (nil) is
// NULL, as both drivers bind a nil []byte.
type deliveryRow struct {
	ID          string `db:"id"`
	EventID     string `db:"event_id"`
	DocID       string `db:"doc_id"`
	AccountID   string `db:"account_id"`
	EventType   string `db:"event_type"`
	URL         string `db:"url"`
	Payload     []byte `db:"payload"`
	Status      string `db:"status"`
	HTTPStatus  int    `db:"http_status"`
	LatencyMs   int64  `db:"latency_ms"`
	Error       string `db:"error"`
	CreatedAt   int64  `db:"created_at"`
	AttemptedAt *int64 `db:"attempted_at"`
}

// DeliveryCols are a delivery's columns (deliveryRow's).
var DeliveryCols = Columns[deliveryRow]()

// DeliveryWriteCols are the columns a new delivery is inserted with:
// DeliveryCols and payload_of, the delivery whose payload a resend shares
// (its own payload then NULL), so the log keeps one copy per event.
var DeliveryWriteCols = append(slices.Clip(DeliveryCols), "payload_of")

// DeliveryReadCols are DeliveryCols as read: a shared payload is taken
// from the delivery that holds it.
var DeliveryReadCols = func() []string {
	out := slices.Clone(DeliveryCols)
	for i, c := range out {
		if c == "payload" {
			out[i] = "COALESCE(payload, (SELECT o.payload FROM deliveries o WHERE o.id = deliveries.payload_of))"
		}
	}
	return out
}()

// DeliverySelect is "SELECT DeliveryReadCols FROM deliveries".
var DeliverySelect = Select("deliveries", DeliveryReadCols)

// SharedPayload is d with its payload dropped when it is a resend whose
// payload is byte for byte its event's first delivery's (first, with
// payload firstPayload), and the ID of the delivery that holds it; d as it
// is and "" otherwise.
func SharedPayload(d domain.Delivery, first string, firstPayload []byte) (domain.Delivery, string) {
	if !d.IsResend() || first == "" || firstPayload == nil || !bytes.Equal(d.Payload, firstPayload) {
		return d, ""
	}
	d.Payload = nil
	return d, first
}

// FirstDeliveryQuery reads the ID and payload of an event's first delivery
// (by webhook id; ? is the store's placeholder).
const FirstDeliveryQuery = `SELECT id, payload FROM deliveries WHERE event_id = `

// toDeliveryRow is d as stored.
func toDeliveryRow(d domain.Delivery) deliveryRow {
	return deliveryRow{ID: d.ID, EventID: d.EventID, DocID: string(d.DocID), AccountID: string(d.AccountID),
		EventType: d.EventType, URL: d.URL, Payload: d.Payload, Status: d.Status, HTTPStatus: d.HTTPStatus,
		LatencyMs: d.LatencyMs, Error: d.Error, CreatedAt: ToMs(d.CreatedAt), AttemptedAt: ToNullMs(d.AttemptedAt)}
}

// toDomainDelivery is the delivery stored as r.
func toDomainDelivery(r deliveryRow) domain.Delivery {
	return domain.Delivery{ID: r.ID, EventID: r.EventID, DocID: domain.DocID(r.DocID), AccountID: domain.AccountID(r.AccountID),
		EventType: r.EventType, URL: r.URL, Payload: r.Payload, Status: r.Status, HTTPStatus: r.HTTPStatus,
		LatencyMs: r.LatencyMs, Error: r.Error, CreatedAt: FromMs(r.CreatedAt), AttemptedAt: FromNullMs(r.AttemptedAt)}
}

// DeliveryRow lists d's values in DeliveryWriteCols order; payloadOf is
// the delivery whose payload d shares ("": d holds its own).
func DeliveryRow(d domain.Delivery, payloadOf string) []any {
	r := toDeliveryRow(d)
	var of *string
	if payloadOf != "" {
		of = &payloadOf
	}
	return append(Values(&r), of)
}

// ScanDelivery reads one delivery row (DeliveryCols).
func ScanDelivery(sc Scanner) (domain.Delivery, error) {
	var r deliveryRow
	if err := sc.Scan(Pointers(&r)...); err != nil {
		return domain.Delivery{}, err
	}
	return toDomainDelivery(r), nil
}

// Checklists.

// checklistRow is a checklist version as stored (see jobRow); its
// questions are JSON.
type checklistRow struct {
	ID        string `db:"id"`
	Version   int    `db:"version"`
	AccountID string `db:"account_id"`
	Name      string `db:"name"`
	Questions string `db:"questions"`
	Archived  bool   `db:"archived"`
	CreatedAt int64  `db:"created_at"`
}

// ChecklistCols are a checklist version's columns (checklistRow's).
var ChecklistCols = Columns[checklistRow]()

// ChecklistRow lists c's values in ChecklistCols order.
func ChecklistRow(c domain.Checklist) ([]any, error) {
	questions, err := json.Marshal(c.Questions)
	if err != nil {
		return nil, fmt.Errorf("encode questions: %w", err)
	}
	return Values(&checklistRow{ID: c.ID, Version: c.Version, AccountID: string(c.AccountID), Name: c.Name,
		Questions: string(questions), Archived: c.Archived, CreatedAt: ToMs(c.CreatedAt)}), nil
}

// ScanChecklist reads one checklist row (ChecklistCols).
func ScanChecklist(sc Scanner) (domain.Checklist, error) {
	var r checklistRow
	if err := sc.Scan(Pointers(&r)...); err != nil {
		return domain.Checklist{}, err
	}
	c := domain.Checklist{ID: r.ID, Version: r.Version, AccountID: domain.AccountID(r.AccountID), Name: r.Name,
		Archived: r.Archived, CreatedAt: FromMs(r.CreatedAt)}
	if err := json.Unmarshal([]byte(r.Questions), &c.Questions); err != nil {
		return domain.Checklist{}, fmt.Errorf("checklist %s: decode questions: %w", c.ID, err)
	}
	return c, nil
}

// API keys.

// apiKeyRow is an API key as stored (see jobRow).
type apiKeyRow struct {
	ID         string `db:"id"`
	AccountID  string `db:"account_id"`
	Prefix     string `db:"prefix"`
	Hash       string `db:"hash"`
	CreatedAt  int64  `db:"created_at"`
	LastUsedAt *int64 `db:"last_used_at"`
	RevokedAt  *int64 `db:"revoked_at"`
}

// APIKeyCols are an API key's columns (apiKeyRow's).
var APIKeyCols = Columns[apiKeyRow]()

// APIKeyRow lists k's values in APIKeyCols order.
func APIKeyRow(k domain.APIKey) []any {
	return Values(&apiKeyRow{ID: k.ID, AccountID: string(k.AccountID), Prefix: k.Prefix, Hash: k.Hash,
		CreatedAt: ToMs(k.CreatedAt), LastUsedAt: ToNullMs(k.LastUsedAt), RevokedAt: ToNullMs(k.RevokedAt)})
}

// APIKeyScan holds a key row (APIKeyCols) as scanned: scan into Dest, then
// call Key.
type APIKeyScan struct{ r apiKeyRow }

// Dest lists the scan destinations in APIKeyCols order.
func (s *APIKeyScan) Dest() []any { return Pointers(&s.r) }

// Key decodes the scanned row.
func (s *APIKeyScan) Key() domain.APIKey {
	r := &s.r
	return domain.APIKey{ID: r.ID, AccountID: domain.AccountID(r.AccountID), Prefix: r.Prefix, Hash: r.Hash,
		CreatedAt: FromMs(r.CreatedAt), LastUsedAt: FromNullMs(r.LastUsedAt), RevokedAt: FromNullMs(r.RevokedAt)}
}

// ScanAPIKey reads one key row (APIKeyCols).
func ScanAPIKey(sc Scanner) (domain.APIKey, error) {
	var r APIKeyScan
	if err := sc.Scan(r.Dest()...); err != nil {
		return domain.APIKey{}, err
	}
	return r.Key(), nil
}

// The outbox.

// OutboxCols are the columns an event is written to the outbox with.
var OutboxCols = []string{"event_id", "topic", "doc_id", "payload", "created_at"}

// OutboxRow lists e's values in OutboxCols order, written at now.
func OutboxRow(e domain.Event, now time.Time) []any {
	return []any{e.ID, e.Topic, string(e.DocID), string(e.Marshal()), ToMs(now)}
}

// FindUserQuery is the query that finds the user whose one key by sets,
// with the column it looks in and the value.
func (d Dialect) FindUserQuery(by ports.UserKey) (query, column, value string, err error) {
	column, value, err = webquery.UserColumn(by)
	if err != nil {
		return "", "", "", err
	}
	query = Select("users", UserCols) + " WHERE " + column + " = " + d.Param(1)
	switch column {
	case "invite_hash":
		// Restates what UserColumn ensures (the value is not ''), so that
		// the partial index users_invite applies.
		query += " AND invite_hash <> ''"
	case "email":
		// Invitations reserve no address (migration 11): an address may
		// have a signed-up person and invitations in other accounts. The
		// person comes first, then the newest invitation.
		query += " ORDER BY (password_hash = '') ASC, created_at DESC, id LIMIT 1"
	}
	return query, column, value, nil
}

// searchText is the job's search_text: only what people may see of it
// (domain.Job.Shown), so that a search finds no word of a transcript
// before the job is transcribed.
func searchText(j domain.Job) string {
	j = j.Shown()
	return webquery.SearchText(j.Title, j.Transcription, j.Metadata, j.Filename)
}

// listDuration is the job's list_duration: its seconds, or
// domain.NoValue before it is measured.
func listDuration(j domain.Job) float64 {
	if d := j.Duration(); d != nil {
		return *d
	}
	return domain.NoValue
}

// SetListScore writes a job's list_score ($1) beside its analysis, in the
// analysis's transaction; $2 is the job's ID. Both engines number their
// parameters this way.
const SetListScore = "UPDATE jobs SET list_score = $1 WHERE id = $2"

// BackfillAnalysisScore gives an analysis ($2, a docId) the list_score
// ($1) a backfill computed; -1 (none) stays NULL.
const BackfillAnalysisScore = "UPDATE analyses SET list_score = CASE WHEN CAST($1 AS DOUBLE PRECISION) >= 0 THEN CAST($1 AS DOUBLE PRECISION) END WHERE doc_id = $2"

// ListScore is the list_score an analysis gives its job
// (domain.Analysis.ListScore; domain.NoValue without one).
func ListScore(a domain.Analysis) float64 {
	if a.ListScore == nil || a.Status != domain.AnalysisOK {
		return domain.NoValue
	}
	return *a.ListScore
}

// FilenameMigration is the migration that added jobs.filename (14): a
// search text backfill of an earlier migration has no file names to read.
const FilenameMigration = 14

// BackfillSearchText is a stored job's search_text from the columns the
// stores' backfills read.
func BackfillSearchText(status, title, transcription string, metadata json.RawMessage, filename string) string {
	return searchText(domain.Job{Status: domain.Status(status), Title: title, Transcription: transcription, Metadata: metadata, Filename: filename})
}
