package domain

import (
	"encoding/json"
	"time"
)

// PollView is the job object of GET /api/getTranscription (spec §2.1). The
// always-present fields are never omitted (null where unknown); the fields of
// a terminal state are present only in that state.
type PollView struct {
	DocID     DocID           `json:"docId"`
	Status    Status          `json:"status"`
	CreatedAt *string         `json:"createdAt"`
	Type      *JobType        `json:"type"`
	Duration  *float64        `json:"duration"`
	Metadata  json.RawMessage `json:"metadata"`

	Transcription *string `json:"transcription,omitempty"`
	Title         *string `json:"title,omitempty"`
	Resolution    *string `json:"resolution,omitempty"`
	LanguageCode  *string `json:"languageCode,omitempty"`

	Error *string `json:"error,omitempty"`
}

// TimeFormat is how times appear in the API: ISO 8601, UTC, milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// NewPollView applies the field availability rules to j.
func NewPollView(j Job) PollView {
	created := j.CreatedAt.UTC().Format(TimeFormat)
	typ := j.Type
	meta := j.Metadata
	if len(meta) == 0 {
		meta = json.RawMessage(`{}`)
	}
	v := PollView{DocID: j.ID, Status: j.Status, CreatedAt: &created, Type: &typ, Duration: j.Duration(), Metadata: meta}
	switch j.Status {
	case StatusTranscribed:
		v.Transcription, v.Title, v.Resolution, v.LanguageCode = ptr(j.Transcription), ptr(j.Title), ptr(j.Resolution), ptr(j.LanguageCode)
	case StatusFailed:
		v.Error = ptr(j.Error)
	}
	return v
}

func ptr[T any](v T) *T { return &v }

// FormatTime writes t as the API does.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }
