package s3

import (
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/domain"
)

// minioEvent is what MinIO writes to its Kafka target for a PUT (trimmed of
// fields we do not read, shape as in MinIO's docs).
const minioEvent = `{"EventName":"s3:ObjectCreated:Put","Key":"uploads/audio/Doc_-1.mp3","Records":[{"eventVersion":"2.0","eventSource":"minio:s3","awsRegion":"","eventTime":"2026-11-21T14:00:00.123Z","eventName":"s3:ObjectCreated:Put","userIdentity":{"principalId":"minioadmin"},"requestParameters":{"principalId":"minioadmin","region":"","sourceIPAddress":"127.0.0.1"},"responseElements":{"x-amz-id-2":"x","x-amz-request-id":"1","x-minio-origin-endpoint":"http://127.0.0.1:19900"},"s3":{"s3SchemaVersion":"1.0","configurationId":"Config","bucket":{"name":"uploads","ownerIdentity":{"principalId":"minioadmin"},"arn":"arn:aws:s3:::uploads"},"object":{"key":"audio%2FDoc_-1.mp3","size":4096,"eTag":"d41d8cd98f00b204e9800998ecf8427e","contentType":"audio/mpeg","userMetadata":{"content-type":"audio/mpeg"},"sequencer":"1879A0C7A9E5B1F2"}},"source":{"host":"127.0.0.1","port":"","userAgent":"curl/8"}}]}`

func TestParseEventOfAnUpload(t *testing.T) {
	ev, err := EventParser{Bucket: "uploads"}.Parse(domain.TopicStorageEvents, []byte(minioEvent))
	if err != nil {
		t.Fatal(err)
	}
	var d domain.ObjectCreatedData
	if err := ev.DecodeData(&d); err != nil {
		t.Fatal(err)
	}
	if ev.Type != domain.EventTypeObjectCreated || ev.DocID != "Doc_-1" || d.Key != "audio/Doc_-1.mp3" || d.Size != 4096 {
		t.Fatalf("event %+v data %+v", ev, d)
	}
	if ev.ID != "storage/audio/Doc_-1.mp3/1879A0C7A9E5B1F2" || ev.OccurredAt.IsZero() || ev.Topic != domain.TopicStorageEvents {
		t.Fatalf("id %q at %v topic %q", ev.ID, ev.OccurredAt, ev.Topic)
	}
}

func TestParseEventIgnoresWhatIsNotAnUploadOfTheBucket(t *testing.T) {
	for name, msg := range map[string]string{
		"other bucket": strings.Replace(minioEvent, `"name":"uploads"`, `"name":"other"`, 1),
		"delete":       strings.ReplaceAll(minioEvent, `ObjectCreated:Put`, `ObjectRemoved:Delete`),
		"other key":    strings.Replace(minioEvent, `audio%2FDoc_-1.mp3`, `reports%2Fx.csv`, 1),
		"nested key":   strings.Replace(minioEvent, `audio%2FDoc_-1.mp3`, `audio%2Fa%2Fb.mp3`, 1),
		"bad escape":   strings.Replace(minioEvent, `audio%2FDoc_-1.mp3`, `audio%zz.mp3`, 1),
	} {
		ev, err := EventParser{Bucket: "uploads"}.Parse(domain.TopicStorageEvents, []byte(msg))
		if err != nil || ev.Type != EventTypeIgnored || ev.DocID != "" {
			t.Errorf("%s: %+v, %v; want an ignored event", name, ev, err)
		}
	}
}

func TestParseEventRefusesWhatIsNoNotification(t *testing.T) {
	for _, msg := range []string{"", "not json", `{"Records":[]}`, `[]`} {
		if _, err := (EventParser{Bucket: "uploads"}).Parse("t", []byte(msg)); err == nil {
			t.Errorf("%q: no error", msg)
		}
	}
}

func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(minioEvent))
	f.Add([]byte(`{"Records":[{"s3":{"bucket":{"name":"uploads"},"object":{"key":"audio%2F..%2Fx.mp3"}},"eventName":"s3:ObjectCreated:Put"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := EventParser{Bucket: "uploads"}.Parse("t", b)
		if err != nil || ev.Type != domain.EventTypeObjectCreated {
			return
		}
		var d domain.ObjectCreatedData
		if err := ev.DecodeData(&d); err != nil {
			t.Fatal(err)
		}
		if id, ok := DocIDFromKey(d.Key); !ok || id != ev.DocID || AudioKey(id) != d.Key {
			t.Fatalf("key %q gave docId %q", d.Key, ev.DocID)
		}
	})
}

func TestAudioKeyRoundTrip(t *testing.T) {
	if id, ok := DocIDFromKey(AudioKey("Ab-_9")); !ok || id != "Ab-_9" {
		t.Fatal(id, ok)
	}
	for _, k := range []string{"audio/.mp3", "audio/x.wav", "x/y.mp3", "audio/a/b.mp3", "audio/...mp3", "audio/a%2F.mp3"} {
		if _, ok := DocIDFromKey(k); ok {
			t.Errorf("%q accepted", k)
		}
	}
}
