package domain

import (
	"encoding/json"
	"time"
)

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
