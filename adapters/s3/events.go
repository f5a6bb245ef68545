package s3

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// EventTypeIgnored is the Type ParseEvent gives a notification that is not
// an upload of this bucket (another bucket, another event, another key):
// handlers skip it.
const EventTypeIgnored = "storage.ignored"

// notificationMessage is the part of an S3 event notification (the JSON
// MinIO writes to its Kafka target, the shape of AWS's S3 events) we read.
type notificationMessage struct {
	EventName string `json:"EventName"`
	Records   []struct {
		EventName string    `json:"eventName"`
		EventTime time.Time `json:"eventTime"`
		S3        struct {
			Bucket struct {
				Name string `json:"name"`
			} `json:"bucket"`
			Object struct {
				Key       string `json:"key"` // URL-encoded, as in AWS's events
				Size      int64  `json:"size"`
				ETag      string `json:"eTag"`
				Sequencer string `json:"sequencer"`
			} `json:"object"`
		} `json:"s3"`
	} `json:"Records"`
}

// EventParser decodes the store's notifications about one bucket; its Parse
// method is a kafka.ConsumerConfig.Decode.
type EventParser struct{ Bucket string }

// Parse turns a notification into a domain.Event of type
// domain.EventTypeObjectCreated for the job whose AudioKey was created,
// with domain.ObjectCreatedData; a notification about anything else becomes
// an EventTypeIgnored event. Only bytes that are not an S3 notification at
// all are an error. The event ID is the object's key and sequencer, so a
// repeated notification has the same ID.
func (p EventParser) Parse(topic string, b []byte) (domain.Event, error) {
	var m notificationMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return domain.Event{}, fmt.Errorf("storage notification on %s is not JSON: %w", topic, err)
	}
	if len(m.Records) == 0 {
		return domain.Event{}, fmt.Errorf("storage notification on %s has no Records", topic)
	}
	// MinIO sends one record per message; AWS may batch, but never across
	// objects of different jobs in a way that matters here: the first
	// record is the event.
	r := m.Records[0]
	ignored := domain.Event{ID: "storage/ignored", Topic: topic, Type: EventTypeIgnored, Version: domain.EnvelopeVersion, OccurredAt: r.EventTime}
	if r.S3.Bucket.Name != p.Bucket || !strings.HasPrefix(r.EventName, "s3:ObjectCreated:") {
		return ignored, nil
	}
	key, err := url.QueryUnescape(r.S3.Object.Key)
	if err != nil {
		return ignored, nil
	}
	id, ok := DocIDFromKey(key)
	if !ok {
		return ignored, nil
	}
	data, _ := json.Marshal(domain.ObjectCreatedData{Key: key, Size: r.S3.Object.Size}) // plain data; cannot fail
	return domain.Event{
		ID:         "storage/" + key + "/" + r.S3.Object.Sequencer,
		Topic:      topic,
		Type:       domain.EventTypeObjectCreated,
		Version:    domain.EnvelopeVersion,
		OccurredAt: r.EventTime,
		DocID:      id,
		Data:       data,
	}, nil
}
