package domain

import (
	"encoding/json"
	"strings"
)

// Event types sent to customers' receivers (spec §6; docs/decisions.md, Events to receivers).
const (
	EventTranscriptReady  = "transcript_ready"
	EventAnalysisReady    = "analysis_ready"
	EventTranscriptFailed = "transcript_failed"
)

// TranscriptReadyPayload is exactly spec §6.1.
type TranscriptReadyPayload struct {
	EventType     string          `json:"event_type"`
	Secret        string          `json:"secret"`
	DocID         DocID           `json:"docId"`
	Transcription string          `json:"transcription"`
	Metadata      json.RawMessage `json:"metadata"`
	Title         string          `json:"title"`
	Resolution    string          `json:"resolution"`
	Link          string          `json:"link"`
}

// AnalysisReadyPayload is exactly spec §6.2.
type AnalysisReadyPayload struct {
	EventType     string                    `json:"event_type"`
	Secret        string                    `json:"secret"`
	DocID         DocID                     `json:"docId"`
	AnalysisID    string                    `json:"analysisId"`
	Metadata      json.RawMessage           `json:"metadata"`
	ChecklistID   *string                   `json:"checklistId"`
	ChecklistName *string                   `json:"checklistName"`
	Results       map[string]QuestionResult `json:"results"`
	Link          string                    `json:"link"`
}

// TranscriptFailedPayload is the opt-in failure event.
type TranscriptFailedPayload struct {
	EventType string          `json:"event_type"`
	Secret    string          `json:"secret"`
	DocID     DocID           `json:"docId"`
	Error     string          `json:"error"`
	Metadata  json.RawMessage `json:"metadata"`
	Link      string          `json:"link"`
}

// RecordingLink is the web application's page of a recording (docs/decisions.md, Events to receivers).
func RecordingLink(publicURL string, id DocID) string {
	return strings.TrimRight(publicURL, "/") + "/app/recordings/" + string(id)
}

// NewTranscriptReady builds the transcript_ready payload of a transcribed job.
func NewTranscriptReady(j Job, secret, publicURL string) TranscriptReadyPayload {
	return TranscriptReadyPayload{
		EventType: EventTranscriptReady, Secret: secret, DocID: j.ID, Transcription: j.Transcription,
		Metadata: objectOrEmpty(j.Metadata), Title: j.Title, Resolution: j.Resolution, Link: RecordingLink(publicURL, j.ID),
	}
}

// NewTranscriptFailed builds the transcript_failed payload of a failed job.
func NewTranscriptFailed(j Job, secret, publicURL string) TranscriptFailedPayload {
	return TranscriptFailedPayload{
		EventType: EventTranscriptFailed, Secret: secret, DocID: j.ID, Error: j.Error,
		Metadata: objectOrEmpty(j.Metadata), Link: RecordingLink(publicURL, j.ID),
	}
}

func objectOrEmpty(m json.RawMessage) json.RawMessage {
	if len(m) == 0 {
		return json.RawMessage(`{}`)
	}
	return m
}

// EventTest is the event a person sends from Settings to check a receiver
// (not in the spec: the receiver should answer 2xx and may ignore it).
const EventTest = "test"

// TestPayload is the body of a test event: the spec's envelope (event_type,
// secret) and a sentence saying what it is.
type TestPayload struct {
	EventType string    `json:"event_type"`
	Secret    string    `json:"secret"`
	AccountID AccountID `json:"accountId"`
	Message   string    `json:"message"`
	SentAt    string    `json:"sentAt"`
}
