package domain

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The pipeline's Kafka topics, one per stage (docs/architecture.md, Pipeline). Records are keyed by
// docId so one job's events stay in order.
const (
	TopicAudioUploaded        = "hyscribe.audio.uploaded.v1"
	TopicAudioProcessed       = "hyscribe.audio.processed.v1"
	TopicTranscriptRecognized = "hyscribe.transcript.recognised.v1"
	TopicTranscriptReady      = "hyscribe.transcript.ready.v1"
	TopicAnalysisReady        = "hyscribe.analysis.ready.v1"
	TopicJobStatus            = "hyscribe.job.status.v1"
)

// Topics lists every pipeline topic.
var Topics = []string{
	TopicAudioUploaded, TopicAudioProcessed, TopicTranscriptRecognized,
	TopicTranscriptReady, TopicAnalysisReady, TopicJobStatus,
	TopicJobDeleted, TopicAnalysisReviewed,
}

// DLQ names the dead-letter topic of topic.
func DLQ(topic string) string { return topic + ".dlq" }

// EnvelopeVersion is the version of the JSON envelope in docs/events.md.
const EnvelopeVersion = 1

// Event is one pipeline event: a versioned JSON envelope published to Topic
// with Key as the record key. ID is deterministic (docId and what happened),
// so a consumer can recognise a repeat.
type Event struct {
	ID         string          `json:"id"`
	Topic      string          `json:"-"`
	Type       string          `json:"type"`
	Version    int             `json:"version"`
	OccurredAt time.Time       `json:"occurredAt"`
	DocID      DocID           `json:"docId"`
	AccountID  AccountID       `json:"accountId"`
	Data       json.RawMessage `json:"data"`
}

// Key is the record key: the job's docId.
func (e Event) Key() string { return string(e.DocID) }

// Marshal encodes the envelope.
func (e Event) Marshal() []byte {
	b, _ := json.Marshal(e) // fields are plain data; cannot fail
	return b
}

// ParseEvent decodes an envelope read from topic.
func ParseEvent(topic string, b []byte) (Event, error) {
	var e Event
	if err := json.Unmarshal(b, &e); err != nil {
		return Event{}, fmt.Errorf("event on %s is not JSON: %w", topic, err)
	}
	if e.DocID == "" || e.Type == "" {
		return Event{}, fmt.Errorf("event on %s lacks docId or type", topic)
	}
	e.Topic = topic
	return e, nil
}

// ValidateEvents refuses events a relay could not publish or a consumer
// could not read: a record that does not decode would block its doc's later
// records in the outbox forever. Stores call it before writing events.
func ValidateEvents(events []Event) error {
	for _, e := range events {
		if e.Topic == "" || e.DocID == "" || e.Type == "" {
			return fmt.Errorf("event %q lacks a topic, docId or type", e.ID)
		}
		if len(e.Data) > 0 && !json.Valid(e.Data) {
			return fmt.Errorf("event %q: data is not JSON", e.ID)
		}
	}
	return nil
}

// DecodeData decodes the event's data into v.
func (e Event) DecodeData(v any) error {
	if err := json.Unmarshal(e.Data, v); err != nil {
		return fmt.Errorf("event %s data: %w", e.ID, err)
	}
	return nil
}

// eventType derives "audio.uploaded" from "hyscribe.audio.uploaded.v1".
func eventType(topic string) string {
	t := strings.TrimPrefix(topic, "hyscribe.")
	if i := strings.LastIndex(t, ".v"); i > 0 {
		t = t[:i]
	}
	return t
}

func newEvent(topic string, j *Job, now time.Time, data any) Event {
	b, _ := json.Marshal(data) // plain data; cannot fail
	typ := eventType(topic)
	id := string(j.ID) + "/" + typ
	if topic == TopicJobStatus {
		id += "/" + string(j.Status)
	}
	return Event{
		ID: id, Topic: topic, Type: typ, Version: EnvelopeVersion, OccurredAt: now.UTC(),
		DocID: j.ID, AccountID: j.AccountID, Data: b,
	}
}

// AudioUploadedData is the data of hyscribe.audio.uploaded.v1.
type AudioUploadedData struct {
	BlobKey string  `json:"blobKey"`
	Bytes   int64   `json:"bytes"`
	Type    JobType `json:"type"`
}

// AudioProcessedData is the data of hyscribe.audio.processed.v1.
type AudioProcessedData struct {
	Audio AudioInfo `json:"audio"`
	Type  JobType   `json:"type"`
}

// RecognizedData is the data of hyscribe.transcript.recognised.v1.
type RecognizedData struct {
	Type          JobType   `json:"type"`
	Transcription string    `json:"transcription"`
	Segments      []Segment `json:"segments"`
	Note          string    `json:"note,omitempty"` // for operators: how the audio was taken
}

// TranscriptReadyData is the data of hyscribe.transcript.ready.v1.
type TranscriptReadyData struct {
	Type             JobType         `json:"type"`
	Transcription    string          `json:"transcription"`
	Title            string          `json:"title"`
	Resolution       string          `json:"resolution"`
	LanguageCode     string          `json:"languageCode"`
	ChecklistID      string          `json:"checklistId,omitempty"`
	ChecklistVersion int             `json:"checklistVersion,omitempty"`
	Metadata         json.RawMessage `json:"metadata"`
}

// JobStatusData is the data of hyscribe.job.status.v1, one per state change.
type JobStatusData struct {
	Status      Status   `json:"status"`
	Previous    Status   `json:"previous,omitempty"`
	Type        JobType  `json:"type"`
	Duration    *float64 `json:"duration"`
	Error       string   `json:"error,omitempty"`
	ChecklistID string   `json:"checklistId,omitempty"`
}

// TopicStorageEvents carries the object store's own notifications (MinIO's
// bucket events, s3:ObjectCreated:*) when uploads go straight to an
// S3-compatible store. The store, not hyscribe, writes it; it is not one of
// Topics, which hyscribe publishes.
const TopicStorageEvents = "hyscribe.storage.events.v1"

// EventTypeObjectCreated is the Type of an Event decoded from a storage
// notification; its Data is ObjectCreatedData.
const EventTypeObjectCreated = "storage.object_created"

// ObjectCreatedData says that an object finished uploading to the store.
type ObjectCreatedData struct {
	Key  string `json:"key"`
	Size int64  `json:"size"`
}
