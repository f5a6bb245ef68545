package domain

import "encoding/json"

// The JSON of the pipeline's events (docs/events.md) follows the API's
// conventions: times in TimeFormat (UTC, milliseconds), and every field a
// topic documents present in every record, null when the job has no value
// for it, never left out. Decoding needs nothing special: null leaves a Go
// field at its zero value.

// MarshalJSON writes the envelope with occurredAt in TimeFormat.
func (e Event) MarshalJSON() ([]byte, error) {
	type fields Event // without this method
	return json.Marshal(struct {
		fields
		OccurredAt string `json:"occurredAt"`
	}{fields(e), FormatTime(e.OccurredAt)})
}

// MarshalJSON writes previous, error and checklistId as null when the job
// has none (the first state; a state that is not failed; no checklist).
func (d JobStatusData) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Status      Status   `json:"status"`
		Previous    *Status  `json:"previous"`
		Type        JobType  `json:"type"`
		Duration    *float64 `json:"duration"`
		Error       *string  `json:"error"`
		ChecklistID *string  `json:"checklistId"`
	}{d.Status, nullIfZero(d.Previous), d.Type, d.Duration, nullIfZero(d.Error), nullIfZero(d.ChecklistID)})
}

// MarshalJSON writes checklistId and checklistVersion as null for a job
// without a checklist.
func (d TranscriptReadyData) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type             JobType         `json:"type"`
		Transcription    string          `json:"transcription"`
		Title            string          `json:"title"`
		Resolution       string          `json:"resolution"`
		LanguageCode     string          `json:"languageCode"`
		ChecklistID      *string         `json:"checklistId"`
		ChecklistVersion *int            `json:"checklistVersion"`
		Metadata         json.RawMessage `json:"metadata"`
	}{d.Type, d.Transcription, d.Title, d.Resolution, d.LanguageCode, nullIfZero(d.ChecklistID), nullIfZero(d.ChecklistVersion), objectOrEmpty(d.Metadata)})
}

// wireSegment is a segment in an event: speaker null for single_voice,
// channel null unless a stereo call's.
type wireSegment struct {
	Start   float64 `json:"start"`
	End     float64 `json:"end"`
	Text    string  `json:"text"`
	Speaker *string `json:"speaker"`
	Channel *string `json:"channel"`
}

// MarshalJSON writes every segment's speaker (null for single_voice) and
// channel (null but on a stereo call), and the note (null without one).
func (d RecognizedData) MarshalJSON() ([]byte, error) {
	segs := make([]wireSegment, len(d.Segments))
	for i, s := range d.Segments {
		segs[i] = wireSegment{Start: s.Start, End: s.End, Text: s.Text, Speaker: nullIfZero(s.Speaker), Channel: nullIfZero(s.Channel)}
	}
	return json.Marshal(struct {
		Type          JobType       `json:"type"`
		Transcription string        `json:"transcription"`
		Segments      []wireSegment `json:"segments"`
		Note          *string       `json:"note"`
	}{d.Type, d.Transcription, segs, nullIfZero(d.Note)})
}

func nullIfZero[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

// MarshalJSON writes createdAt in TimeFormat.
func (d JobDeletedData) MarshalJSON() ([]byte, error) {
	type fields JobDeletedData
	return json.Marshal(struct {
		fields
		CreatedAt string `json:"createdAt"`
	}{fields(d), FormatTime(d.CreatedAt)})
}

// MarshalJSON writes analysedAt and callAt in TimeFormat (callAt only when
// known).
func (d AnalysisReadyData) MarshalJSON() ([]byte, error) {
	type fields AnalysisReadyData
	callAt := ""
	if !d.CallAt.IsZero() {
		callAt = FormatTime(d.CallAt)
	}
	return json.Marshal(struct {
		fields
		AnalysedAt string `json:"analysedAt"`
		CallAt     string `json:"callAt,omitempty"`
	}{fields(d), FormatTime(d.AnalysedAt), callAt})
}
