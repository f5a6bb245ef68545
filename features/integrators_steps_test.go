package features

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/cucumber/godog"

	"github.com/hyscribe/hyscribe/adapters/httpapi/openapicheck"
)

// integratorSteps binds the steps of idempotency.feature, and checks, at
// the end of every scenario, that each event a receiver got matches the
// schemas of the service's OpenAPI document (w.do checks each answer).
func (w *world) integratorSteps(sc *godog.ScenarioContext) {
	sc.Step(`^I create a "([^"]*)" job with the Idempotency-Key "([^"]*)"$`, func(typ, key string) error { return w.createKeyed(me, typ, key) })
	sc.Step(`^"([^"]+)" creates a "([^"]*)" job with the Idempotency-Key "([^"]*)"$`, w.createKeyed)
	sc.Step(`^I create a "([^"]*)" job with no Idempotency-Key$`, func(typ string) error { return w.createKeyed(me, typ, "") })
	sc.Step(`^I submit "([^"]*)" as a "([^"]*)" job with the Idempotency-Key "([^"]*)"$`, w.submitKeyed)
	sc.Step(`^I send (\d+) requests creating a "([^"]*)" job with the Idempotency-Key "([^"]*)" at the same moment$`, w.createKeyedAtOnce)
	sc.Step(`^every answer gives the same docId and upload address$`, w.sameAnswers)
	sc.Step(`^all answers but one are marked as replays$`, func() error { return w.replays(len(w.keyed) - 1) })
	sc.Step(`^no answer is marked as a replay$`, func() error { return w.replays(0) })
	sc.Step(`^the answers give (\d+) docIds?$`, w.distinctDocIDs)
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		if err != nil {
			return ctx, nil
		}
		return ctx, w.eventsMatchDocument()
	})
}

// createKeyed creates a job for actor name, with the Idempotency-Key key
// unless it is "", and keeps the answer.
func (w *world) createKeyed(name, typ, key string) error {
	a, err := w.actor(name)
	if err != nil {
		return err
	}
	h := map[string]string{"Content-Type": "application/json"}
	if key != "" {
		h["Idempotency-Key"] = key
	}
	r, err := w.do(http.MethodPost, w.api("/api/createTranscription"), a.apiKey, []byte(`{"type": "`+typ+`"}`), h)
	if err != nil {
		return err
	}
	w.keyed = append(w.keyed, r)
	if r.status != http.StatusOK {
		return nil // the scenario says what it expects of a refusal
	}
	return w.recordKeyed(a, r)
}

// recordKeyed records the job of an answer, once however often it is given.
func (w *world) recordKeyed(a *actor, r *response) error {
	var out struct {
		DocID string `json:"docId"`
	}
	if err := json.Unmarshal(r.body, &out); err != nil {
		return fmt.Errorf("createTranscription answered %s, not JSON: %v", clip(r.body), err)
	}
	for _, j := range a.jobs {
		if j.docID == out.DocID {
			return nil
		}
	}
	_, err := w.recordJob(a, r)
	return err
}

func (w *world) submitKeyed(recording, typ, key string) error {
	if err := w.createKeyed(me, typ, key); err != nil {
		return err
	}
	if r := w.keyed[len(w.keyed)-1]; r.status != http.StatusOK {
		return fmt.Errorf("createTranscription answered %d %s, want 200", r.status, clip(r.body))
	}
	j, err := w.myJob()
	if err != nil {
		return err
	}
	return w.uploadTo(j, recording)
}

// createKeyedAtOnce sends n creations with one key together, each on its
// own connection, released at the same moment.
func (w *world) createKeyedAtOnce(n int, typ, key string) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	answers := make([]*response, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			answers[i], errs[i] = send(http.MethodPost, w.api("/api/createTranscription"), a.apiKey, []byte(`{"type": "`+typ+`"}`),
				map[string]string{"Content-Type": "application/json", "Idempotency-Key": key, "Connection": "close"})
		}()
	}
	close(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, r := range answers {
		if err := conforms(r); err != nil {
			return err
		}
		w.keyed = append(w.keyed, r)
		if r.status == http.StatusOK {
			if err := w.recordKeyed(a, r); err != nil {
				return err
			}
		}
	}
	w.last = answers[n-1]
	return nil
}

func (w *world) sameAnswers() error {
	if len(w.keyed) < 2 {
		return fmt.Errorf("%d creations were sent, want at least 2", len(w.keyed))
	}
	first := w.keyed[0]
	for i, r := range w.keyed {
		if r.status != http.StatusOK {
			return fmt.Errorf("answer %d is %d %s, want 200", i+1, r.status, clip(r.body))
		}
		if string(r.body) != string(first.body) {
			return fmt.Errorf("answer %d is %s, the first was %s", i+1, clip(r.body), clip(first.body))
		}
	}
	return nil
}

func (w *world) replays(want int) error {
	got := 0
	for _, r := range w.keyed {
		if r.header.Get("Idempotent-Replayed") == "true" {
			got++
		}
	}
	if got != want {
		return fmt.Errorf("%d of %d answers carry Idempotent-Replayed: true, want %d", got, len(w.keyed), want)
	}
	return nil
}

func (w *world) distinctDocIDs(want int) error {
	ids := map[string]bool{}
	for _, r := range w.keyed {
		var out struct {
			DocID string `json:"docId"`
		}
		if r.status == http.StatusOK && json.Unmarshal(r.body, &out) == nil {
			ids[out.DocID] = true
		}
	}
	if len(ids) != want {
		return fmt.Errorf("the answers gave %d different docIds, want %d", len(ids), want)
	}
	return nil
}

// apiDoc is the OpenAPI document the service serves, read once.
var apiDoc struct {
	once sync.Once
	doc  *openapicheck.Doc
	err  error
}

// documentOf reads the document from the service at base.
func documentOf(base string) (*openapicheck.Doc, error) {
	apiDoc.once.Do(func() {
		resp, err := http.Get(base + "/api/openapi.json")
		if err != nil {
			apiDoc.err = err
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			apiDoc.err = err
			return
		}
		apiDoc.doc, apiDoc.err = openapicheck.New(b)
	})
	return apiDoc.doc, apiDoc.err
}

// conforms checks an answer of the API against the document: a documented
// status, and a body that matches its schema. Paths and methods the
// document does not describe (the web application, a wrong method) are
// left to the scenarios.
func conforms(r *response) error {
	u, err := url.Parse(r.url)
	if err != nil || r.method == http.MethodHead {
		return nil
	}
	tmpl := u.Path
	if strings.HasPrefix(tmpl, "/upload/") {
		tmpl = "/upload/{docId}"
	}
	if !strings.HasPrefix(tmpl, "/api/") && tmpl != "/upload/{docId}" {
		return nil
	}
	doc, err := documentOf(u.Scheme + "://" + u.Host)
	if err != nil {
		return fmt.Errorf("the service's OpenAPI document: %w", err)
	}
	err = doc.Response(r.method, tmpl, r.status, r.header.Get("Content-Type"), r.body)
	if err != nil && !strings.Contains(err.Error(), "is not documented") {
		return fmt.Errorf("the answer does not match the OpenAPI document: %w", err)
	}
	if err != nil && r.status != http.StatusMethodNotAllowed {
		return fmt.Errorf("the answer is not in the OpenAPI document: %w", err)
	}
	return nil
}

// eventsMatchDocument checks every event the scenario's receivers got
// against the document's webhooks.
func (w *world) eventsMatchDocument() error {
	doc, err := documentOf(w.inst.base)
	if err != nil {
		return fmt.Errorf("the service's OpenAPI document: %w", err)
	}
	for _, rc := range w.receivers {
		rc.mu.Lock()
		reqs := append([]received(nil), rc.reqs...)
		rc.mu.Unlock()
		for _, r := range reqs {
			if err := doc.Event(r.body); err != nil {
				return fmt.Errorf("an event at a receiver does not match the OpenAPI document's webhooks: %w", err)
			}
		}
	}
	return nil
}
