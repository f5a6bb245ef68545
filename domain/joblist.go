package domain

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Page sizes of GET /api/listTranscriptions.
const (
	DefaultListLimit = 20
	MaxListLimit     = 100
)

// ListCursor is where a page of the API's job list ended: the creation
// time (milliseconds, as stored) and docId of its last job. The next page
// holds the jobs listed after it — created earlier, or at the same
// millisecond with a smaller docId — so jobs created meanwhile, which are
// newer than every listed one, never shift a later page (keyset
// pagination, not offsets).
type ListCursor struct {
	CreatedAt time.Time
	ID        DocID
}

// cursorPrefix versions the cursor's encoding.
const cursorPrefix = "c1:"

// CursorAfter is the cursor of a page whose last job was created at
// created with docId id.
func CursorAfter(created time.Time, id DocID) ListCursor {
	return ListCursor{CreatedAt: time.UnixMilli(created.UnixMilli()).UTC(), ID: id}
}

// String is the opaque nextCursor clients pass back.
func (c ListCursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(c.CreatedAt.UnixMilli(), 10) + ":" + string(c.ID)))
}

// IsZero reports whether c is no cursor (the first page).
func (c ListCursor) IsZero() bool { return c.ID == "" }

// Key is c's place in the newest-first order (SortNewest), which the API
// lists in.
func (c ListCursor) Key() HistoryKey { return HistoryKey{CreatedAt: c.CreatedAt, ID: c.ID} }

// Listed reports whether a job created at created with docId id comes
// after c in the list's order (newest first, ties by docId descending).
func (c ListCursor) Listed(created time.Time, id DocID) bool {
	if c.IsZero() {
		return true
	}
	ms, cms := created.UnixMilli(), c.CreatedAt.UnixMilli()
	return ms < cms || ms == cms && id < c.ID
}

// maxCursorMillis is the latest creation time a cursor may name: the end
// of year 9999, the last one both stores hold (Postgres refuses later
// timestamps with an error, which a client's cursor must never cause).
const maxCursorMillis = 253402300799999

// ParseListCursor reads a cursor given by a client. Every field is
// checked for its syntax, not only the length: a cursor reaches the
// store's query, and NUL or invalid UTF-8 there is an error of the
// store (a 500) instead of the client's 400. The milliseconds are decimal
// digits from 0 to maxCursorMillis, the docId is 1 to 64 of the URL-safe
// characters docIds are made of, and the cursor must be exactly the one
// String gives for them.
func ParseListCursor(s string) (ListCursor, error) {
	bad := Invalid("invalid_cursor", "cursor is not one this service gave: pass nextCursor of the previous page unchanged")
	if len(s) > 128 {
		return ListCursor{}, bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return ListCursor{}, bad
	}
	rest, ok := strings.CutPrefix(string(raw), cursorPrefix)
	if !ok {
		return ListCursor{}, bad
	}
	msText, id, ok := strings.Cut(rest, ":")
	if !ok || msText == "" || len(msText) > 15 || strings.Trim(msText, "0123456789") != "" || !docIDSyntax(id) {
		return ListCursor{}, bad
	}
	ms, err := strconv.ParseInt(msText, 10, 64)
	if err != nil || ms > maxCursorMillis {
		return ListCursor{}, bad
	}
	c := ListCursor{CreatedAt: time.UnixMilli(ms).UTC(), ID: DocID(id)}
	if c.String() != s {
		return ListCursor{}, bad
	}
	return c, nil
}

// docIDSyntax reports whether id is made of what docIds are made of: 1
// to 64 characters of the base64url alphabet.
func docIDSyntax(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch b := id[i]; {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9', b == '-', b == '_':
		default:
			return false
		}
	}
	return true
}

// ListRequest is GET /api/listTranscriptions's query.
type ListRequest struct {
	Status       Status
	CreatedSince time.Time // inclusive; zero: no bound
	CreatedUntil time.Time // exclusive; zero: no bound
	Limit        int
	Cursor       ListCursor
}

// ParseListRequest reads the query parameters of GET
// /api/listTranscriptions; each bad value is a ValidationError naming it.
func ParseListRequest(status, since, until, limit, cursor string) (ListRequest, error) {
	r := ListRequest{Limit: DefaultListLimit}
	if status != "" {
		switch s := Status(status); s {
		case StatusUploading, StatusProcessing, StatusConverting, StatusTranscribed, StatusFailed:
			r.Status = s
		default:
			return ListRequest{}, Invalid("invalid_status", "status must be one of uploading, processing, converting, transcribed, failed; got %q", clipText(status, 20))
		}
	}
	for _, p := range []struct {
		name, v string
		to      *time.Time
	}{{"createdSince", since, &r.CreatedSince}, {"createdUntil", until, &r.CreatedUntil}} {
		if p.v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, p.v)
		if err != nil {
			return ListRequest{}, Invalid("invalid_"+strings.ToLower(p.name[:7])+"_"+strings.ToLower(p.name[7:]),
				"%s must be a date-time such as 2026-11-21T10:00:00Z; got %q", p.name, clipText(p.v, 40))
		}
		*p.to = t.UTC()
	}
	if !r.CreatedSince.IsZero() && !r.CreatedUntil.IsZero() && !r.CreatedSince.Before(r.CreatedUntil) {
		return ListRequest{}, Invalid("invalid_period", "createdSince must be before createdUntil")
	}
	if limit != "" {
		n, err := strconv.Atoi(limit)
		if err != nil || n < 1 || n > MaxListLimit {
			return ListRequest{}, Invalid("invalid_limit", "limit must be a whole number from 1 to %d; got %q", MaxListLimit, clipText(limit, 20))
		}
		r.Limit = n
	}
	if cursor != "" {
		c, err := ParseListCursor(cursor)
		if err != nil {
			return ListRequest{}, err
		}
		r.Cursor = c
	}
	return r, nil
}

// MaxListedMetadataBytes is the largest metadata a listed job carries.
// A page of MaxListLimit jobs then holds at most ~400 KiB of metadata,
// instead of 100 × 256 KiB built in memory per request (16 such pages at
// once took the API past its 512 MiB). 4 KiB holds what integrations put
// there to match a job — CRM, call and order ids, a phone number, an
// agent — many times over; a job with more is listed with metadata {}
// and metadataOmitted true, and getTranscription returns all of it.
const MaxListedMetadataBytes = 4096

// NewJobSummary is the list item of a job with these fields; omitted
// says the store left out its metadata (over MaxListedMetadataBytes).
func NewJobSummary(id DocID, status Status, created time.Time, typ JobType, duration *float64, metadata json.RawMessage, omitted bool, title, errText string) JobSummary {
	c := FormatTime(created)
	if omitted || len(metadata) > MaxListedMetadataBytes {
		metadata, omitted = nil, true
	}
	if len(metadata) == 0 {
		metadata = json.RawMessage(`{}`)
	}
	s := JobSummary{DocID: id, Status: status, CreatedAt: c, Type: typ, Duration: duration, Metadata: metadata, MetadataOmitted: omitted}
	switch status {
	case StatusTranscribed:
		s.Title = &title
	case StatusFailed:
		s.Error = &errText
	}
	return s
}

// ParseResendRequest reads and checks POST /api/resendEvent's body.
func ParseResendRequest(body []byte) (ResendRequest, error) {
	var r ResendRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return ResendRequest{}, Invalid("invalid_json", "the body must be a JSON object {\"docId\": \"…\", \"event\": \"transcript_ready\"}")
	}
	if r.DocID == "" {
		return ResendRequest{}, Invalid("missing_doc_id", "docId is required")
	}
	switch r.Event {
	case EventTranscriptReady, EventAnalysisReady, EventTranscriptFailed:
	case "":
		return ResendRequest{}, Invalid("missing_event", "event is required: transcript_ready, analysis_ready or transcript_failed")
	default:
		return ResendRequest{}, Invalid("invalid_event", "event must be transcript_ready, analysis_ready or transcript_failed; got %q", clipText(r.Event, 30))
	}
	return r, nil
}

// NewResendResult describes the attempt d.
func NewResendResult(d Delivery) ResendResult {
	r := ResendResult{DocID: d.DocID, Event: d.EventType, WebhookID: d.WebhookID(), Delivered: d.Status == DeliveryDelivered}
	if d.HTTPStatus != 0 {
		s := d.HTTPStatus
		r.StatusCode = &s
	}
	if d.Error != "" {
		e := d.Error
		r.Error = &e
	}
	at := d.CreatedAt
	if d.AttemptedAt != nil {
		at = *d.AttemptedAt
	}
	r.AttemptedAt = FormatTime(at)
	return r
}
