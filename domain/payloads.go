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
