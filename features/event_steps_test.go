package features

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// ---- events ----

func (w *world) waitEvent(name, eventType string) error {
	a, err := w.actor(name)
	if err != nil {
		return err
	}
	if a.receiver == nil {
		return fmt.Errorf("%s has no receiver listening", name)
	}
	j, err := w.lastJob(name)
	if err != nil {
		return err
	}
	ev, err := a.receiver.waitEvent(j.docID)
	if err != nil {
		return err
	}
	var b struct {
		EventType string `json:"event_type"`
	}
	if err := json.Unmarshal(ev.body, &b); err != nil {
		return fmt.Errorf("the event %s is not JSON: %v", clip(ev.body), err)
	}
	if b.EventType != eventType {
		return fmt.Errorf("the receiver got a %q event, want %q: %s", b.EventType, eventType, clip(ev.body))
	}
	w.event, w.jobOf = &ev, j
	return nil
}

func (w *world) myEvent(eventType string) error { return w.waitEvent(me, eventType) }

func (w *world) theirEvent(name, eventType string) error { return w.waitEvent(name, eventType) }

func (w *world) eventFieldsMap() (map[string]json.RawMessage, error) {
	if w.event == nil {
		return nil, errors.New("no event was received")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(w.event.body, &m); err != nil {
		return nil, fmt.Errorf("the event %s is not a JSON object: %v", clip(w.event.body), err)
	}
	return m, nil
}

func (w *world) eventStr(name string) (string, error) {
	m, err := w.eventFieldsMap()
	if err != nil {
		return "", err
	}
	var s string
	if err := json.Unmarshal(m[name], &s); err != nil {
		return "", fmt.Errorf("the event's %s is %s, not a string", name, m[name])
	}
	return s, nil
}

func (w *world) eventIsJSONPost() error {
	if w.event == nil {
		return errors.New("no event was received")
	}
	if w.event.method != http.MethodPost {
		return fmt.Errorf("the event came as %s, want POST", w.event.method)
	}
	if mt, _, _ := mime.ParseMediaType(w.event.header.Get("Content-Type")); mt != "application/json" {
		return fmt.Errorf("the event came with Content-Type %q, want application/json", w.event.header.Get("Content-Type"))
	}
	return nil
}

func (w *world) eventFields(list string) error {
	m, err := w.eventFieldsMap()
	if err != nil {
		return err
	}
	if got, want := fieldNames(m), nameList(list); !slices.Equal(got, want) {
		return fmt.Errorf("the event has the fields %v, want exactly %v", got, want)
	}
	return nil
}

func (w *world) eventSecret(secret string) error {
	got, err := w.eventStr("secret")
	if err != nil {
		return err
	}
	if got != secret {
		return fmt.Errorf("the event's secret is %q, want %q", got, secret)
	}
	return nil
}

func (w *world) eventAboutJob() error {
	got, err := w.eventStr("docId")
	if err != nil {
		return err
	}
	if got != w.jobOf.docID {
		return fmt.Errorf("the event's docId is %q, want %q", got, w.jobOf.docID)
	}
	return nil
}

func (w *world) eventMetadata() error {
	m, err := w.eventFieldsMap()
	if err != nil {
		return err
	}
	if w.jobOf.metadata == nil {
		return errors.New("no metadata was sent for this job")
	}
	same, err := sameJSON(w.jobOf.metadata, m["metadata"])
	if err != nil {
		return err
	}
	if !same {
		return fmt.Errorf("the event's metadata is %s, but %s was sent", clip(m["metadata"]), clip(w.jobOf.metadata))
	}
	return nil
}

func (w *world) eventLink() error {
	got, err := w.eventStr("link")
	if err != nil {
		return err
	}
	want := strings.TrimRight(w.inst.svc.PublicURL(), "/") + "/app/recordings/" + w.jobOf.docID
	if got != want {
		return fmt.Errorf("the event's link is %q, want %q", got, want)
	}
	return nil
}

func (w *world) eventHeaders() error {
	if w.event == nil {
		return errors.New("no event was received")
	}
	for _, h := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
		if strings.TrimSpace(w.event.header.Get(h)) == "" {
			return fmt.Errorf("the event has no %s header", h)
		}
	}
	return nil
}

// eventSignature checks the Standard Webhooks signature: HMAC-SHA256, keyed
// with the configured secret, of "webhook-id.webhook-timestamp.body", sent
// base64-encoded as "v1,<signature>".
func (w *world) eventSignature(secret string) error {
	if err := w.eventHeaders(); err != nil {
		return err
	}
	id, ts, sigs := w.event.header.Get("webhook-id"), w.event.header.Get("webhook-timestamp"), w.event.header.Get("webhook-signature")
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("webhook-timestamp %q is not unix seconds", ts)
	}
	if d := w.event.at.Sub(time.Unix(unix, 0)); d < -5*time.Second || d > time.Minute {
		return fmt.Errorf("webhook-timestamp %s is %s away from when the event arrived", ts, d)
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(w.event.body)
	want := mac.Sum(nil)
	for _, part := range strings.Fields(sigs) {
		version, b64, ok := strings.Cut(part, ",")
		if !ok || version != "v1" {
			continue
		}
		if got, err := base64.StdEncoding.DecodeString(b64); err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return fmt.Errorf("webhook-signature %q is not a v1 signature of the event made with the secret", sigs)
}

func (w *world) eventMatchesJob() error {
	j := w.jobOf
	p, err := j.lastPoll()
	if err != nil {
		return err
	}
	for _, f := range []string{"transcription", "title", "resolution"} {
		got, err := w.eventStr(f)
		if err != nil {
			return err
		}
		if want := p.str(f); got != want || got == "" {
			return fmt.Errorf("the event's %s is %q, but polling shows %q", f, got, want)
		}
	}
	return nil
}

func (w *world) eventErrorMatchesJob() error {
	p, err := w.jobOf.lastPoll()
	if err != nil {
		return err
	}
	got, err := w.eventStr("error")
	if err != nil {
		return err
	}
	if want := p.str("error"); got != want || got == "" {
		return fmt.Errorf("the event's error is %q, but polling shows %q", got, want)
	}
	return nil
}

func (w *world) eventTwoLabels(a, b string) error {
	t, err := w.eventStr("transcription")
	if err != nil {
		return err
	}
	return twoLabels(t, a, b)
}

func (w *world) nothingAboutJob(seconds int) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	j, err := w.myJob()
	if err != nil {
		return err
	}
	rc := a.receiver
	if rc == nil {
		for _, r := range w.receivers {
			rc = r // the receiver I had before I stopped sending events
		}
	}
	if rc == nil {
		return errors.New("I have no receiver")
	}
	// The premise: notify has handled the job's last event (the one that
	// would be sent), so "nothing arrived" is its decision, not its delay.
	want := func(domain.Event) bool { return true } // a job deleted before its upload: any event
	if len(j.polls) > 0 {
		switch status := j.polls[len(j.polls)-1].str("status"); status {
		case "transcribed":
			want = func(ev domain.Event) bool { return ev.Topic == domain.TopicTranscriptReady }
		case "failed":
			want = func(ev domain.Event) bool {
				var st domain.JobStatusData
				return ev.Topic == domain.TopicJobStatus && ev.DecodeData(&st) == nil && st.Status == domain.StatusFailed
			}
		}
	}
	if _, err := w.inst.waitConsumed(app.StageNotify, j.docID, want); err != nil {
		return err
	}
	time.Sleep(time.Duration(seconds) * time.Second) // a delivery it started would arrive meanwhile
	if got := rc.forDoc(j.docID); len(got) > 0 {
		return fmt.Errorf("my receiver got %d request(s) about the job: %s", len(got), clip(got[0].body))
	}
	return nil
}

func (w *world) sentOnce() error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	j, err := w.myJob()
	if err != nil {
		return err
	}
	if a.receiver == nil {
		return errors.New("I have no receiver listening")
	}
	if _, err := a.receiver.waitEvent(j.docID); err != nil {
		return err
	}
	time.Sleep(2 * time.Second) // time enough for a retry, were there one
	if got := a.receiver.forDoc(j.docID); len(got) != 1 {
		return fmt.Errorf("my receiver got %d requests about the job, want exactly 1", len(got))
	}
	return nil
}
