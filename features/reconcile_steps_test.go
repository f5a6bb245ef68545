package features

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/cucumber/godog"
)

// reconcileSteps are the steps of the webhook feature's reconciliation:
// listing my jobs and having an event sent again.
func (w *world) reconcileSteps(sc *godog.ScenarioContext) {
	sc.Step(`^I list my "([^"]*)" jobs$`, w.listMine)
	sc.Step(`^the list holds the job and no job of "([^"]+)"$`, w.listHoldsMine)
	sc.Step(`^I ask for the job's "([^"]*)" event to be sent again$`, w.resendMine)
	sc.Step(`^the answer says my receiver took it$`, w.resendDelivered)
	sc.Step(`^the event my receiver got carries the webhook-id the answer names$`, w.resentWebhookID)
}

func (w *world) listMine(status string) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	r, err := w.do(http.MethodGet, w.api("/api/listTranscriptions?status="+url.QueryEscape(status)+"&limit=100"), a.apiKey, nil, nil)
	if err != nil {
		return err
	}
	if r.status != http.StatusOK {
		return fmt.Errorf("listTranscriptions answered %d: %s", r.status, clip(r.body))
	}
	return nil
}

func (w *world) listHoldsMine(other string) error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	theirs, err := w.lastJob(other)
	if err != nil {
		return err
	}
	var page struct {
		Items []struct {
			DocID string `json:"docId"`
		} `json:"items"`
	}
	if err := json.Unmarshal(w.last.body, &page); err != nil {
		return fmt.Errorf("the list %s is not JSON", clip(w.last.body))
	}
	found := false
	for _, it := range page.Items {
		switch it.DocID {
		case j.docID:
			found = true
		case theirs.docID:
			return fmt.Errorf("my list shows %s's job %s", other, theirs.docID)
		}
	}
	if !found {
		return fmt.Errorf("my list %s lacks the job %s", clip(w.last.body), j.docID)
	}
	return nil
}

// resendMine asks for the event; the notify stage records its first
// attempt shortly after the job is transcribed, so a 409 (nothing
// attempted yet) is asked again until the deadline.
func (w *world) resendMine(event string) error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	body := []byte(fmt.Sprintf(`{"docId":%q,"event":%q}`, j.docID, event))
	deadline := time.Now().Add(eventDeadline)
	for {
		r, err := w.do(http.MethodPost, w.api("/api/resendEvent"), j.owner.apiKey, body, map[string]string{"Content-Type": "application/json"})
		if err != nil {
			return err
		}
		if r.status == http.StatusOK {
			return nil
		}
		if r.status != http.StatusConflict || time.Now().After(deadline) {
			return fmt.Errorf("resendEvent answered %d: %s", r.status, clip(r.body))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (w *world) resendAnswer() (map[string]any, error) {
	var got map[string]any
	if err := json.Unmarshal(w.last.body, &got); err != nil {
		return nil, fmt.Errorf("the answer %s is not JSON", clip(w.last.body))
	}
	return got, nil
}

func (w *world) resendDelivered() error {
	got, err := w.resendAnswer()
	if err != nil {
		return err
	}
	if got["delivered"] != true || got["statusCode"] != float64(200) {
		return fmt.Errorf("the resend answered %s", clip(w.last.body))
	}
	return nil
}

func (w *world) resentWebhookID() error {
	got, err := w.resendAnswer()
	if err != nil {
		return err
	}
	if w.event == nil {
		return fmt.Errorf("no event was received yet")
	}
	if id := w.event.header.Get("webhook-id"); id == "" || id != got["webhookId"] {
		return fmt.Errorf("the event's webhook-id %q, the answer's %v", id, got["webhookId"])
	}
	return nil
}
