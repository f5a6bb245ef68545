package features

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cucumber/godog"
)

// analysisSteps binds the steps of analysis.feature.
func (w *world) analysisSteps(sc *godog.ScenarioContext) {
	sc.Step(`^I archive that checklist$`, w.archiveChecklist)
	sc.Step(`^I change that checklist to "([^"]*)" with the single question "([^"]*)"$`, w.changeChecklist)
	sc.Step(`^I create a "([^"]*)" job with that checklist$`, w.createWithChecklist)
	sc.Step(`^my account sends analysis events to an address where nothing is listening$`, w.deadAnalysisReceiver)
	sc.Step(`^my receiver gets an? "(analysis_ready)" event for the job$`, w.myEventOfType)
	sc.Step(`^the event's checklist is mine, named "([^"]*)"$`, w.eventChecklist)
	sc.Step(`^the event's results are keyed by exactly the question ids (.+)$`, w.eventResultKeys)
	sc.Step(`^every result has the question, an answer of yes, no or unclear, a score from 0 to 1 and its evidence$`, w.eventResultShape)
	sc.Step(`^my receiver gets no "([^"]*)" event about the job within (\d+) seconds?$`, w.noEventOfType)
}

func (w *world) archiveChecklist() error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	return w.inst.cli(nil, "checklist", "archive", "--account", a.accountID, "--checklist", a.checklistID)
}

func (w *world) changeChecklist(name, question string) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	def, err := json.Marshal(map[string]any{"name": name, "questions": []map[string]any{
		{"id": question, "text": "Was the agent polite?", "expect": []string{"շնորհակալություն"}},
	}})
	if err != nil {
		return err
	}
	file := filepath.Join(w.s.root, fmt.Sprintf("checklist-%d.json", time.Now().UnixNano()))
	if err := os.WriteFile(file, def, 0o600); err != nil {
		return err
	}
	var out struct {
		Version int `json:"version"`
	}
	if err := w.inst.cli(&out, "checklist", "update", "--account", a.accountID, "--checklist", a.checklistID, "--file", file); err != nil {
		return err
	}
	if out.Version != 2 {
		return fmt.Errorf("checklist update made version %d, want 2", out.Version)
	}
	return nil
}

// createWithChecklist creates a job naming my checklist and records it when
// it is accepted; the answer is the last response either way.
func (w *world) createWithChecklist(typ string) error {
	_, _, err := w.createNamingMyChecklist(typ)
	return err
}

// createNamingMyChecklist creates a job of type typ naming my checklist and
// returns the answer, and the job recorded when it was accepted (else nil).
func (w *world) createNamingMyChecklist(typ string) (*response, *job, error) {
	a, err := w.actor(me)
	if err != nil {
		return nil, nil, err
	}
	if a.checklistID == "" {
		return nil, nil, errors.New("I have no checklist")
	}
	body, err := json.Marshal(map[string]any{"type": typ, "checklistId": a.checklistID})
	if err != nil {
		return nil, nil, err
	}
	r, err := w.create(a, body)
	if err != nil || r.status != http.StatusOK {
		return r, nil, err
	}
	j, err := w.recordJob(a, r)
	if err != nil {
		return r, nil, err
	}
	j.typ = typ
	return r, j, nil
}

func (w *world) deadAnalysisReceiver() error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	u, err := deadAddress()
	if err != nil {
		return err
	}
	v, err := w.updateAccount(a, "--analysis-webhook-url", u)
	if err != nil {
		return err
	}
	if v.AnalysisWebhookURL != u {
		return fmt.Errorf("the account's analysis receiver is %q after the update", v.AnalysisWebhookURL)
	}
	return nil
}

// eventsOfType returns the receiver's events of eventType about docID.
func eventsOfType(rc *receiver, docID, eventType string) []received {
	var out []received
	for _, r := range rc.forDoc(docID) {
		var b struct {
			EventType string `json:"event_type"`
		}
		if json.Unmarshal(r.body, &b) == nil && b.EventType == eventType {
			out = append(out, r)
		}
	}
	return out
}

func (w *world) myEventOfType(eventType string) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	if a.receiver == nil {
		return errors.New("I have no receiver listening")
	}
	j, err := w.lastJob(me)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(eventDeadline)
	for {
		if got := eventsOfType(a.receiver, j.docID, eventType); len(got) > 0 {
			w.event, w.jobOf = &got[0], j
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no %q event about the job reached my receiver within %s (%d events about it did)", eventType, eventDeadline, len(a.receiver.forDoc(j.docID)))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (w *world) noEventOfType(eventType string, seconds int) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	j, err := w.lastJob(me)
	if err != nil {
		return err
	}
	time.Sleep(time.Duration(seconds) * time.Second) // the scenario's "within N seconds" is a wall-clock promise to a receiver
	if a.receiver != nil {
		if got := eventsOfType(a.receiver, j.docID, eventType); len(got) > 0 {
			return fmt.Errorf("my receiver got %d %q events about the job: %s", len(got), eventType, clip(got[0].body))
		}
	}
	return nil
}

func (w *world) eventChecklist(name string) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	id, err := w.eventStr("checklistId")
	if err != nil {
		return err
	}
	got, err := w.eventStr("checklistName")
	if err != nil {
		return err
	}
	if id != a.checklistID || got != name {
		return fmt.Errorf("the event names checklist %q %q, want %q %q", id, got, a.checklistID, name)
	}
	return nil
}

func (w *world) eventResults() (map[string]map[string]json.RawMessage, error) {
	m, err := w.eventFieldsMap()
	if err != nil {
		return nil, err
	}
	var results map[string]map[string]json.RawMessage
	if err := json.Unmarshal(m["results"], &results); err != nil {
		return nil, fmt.Errorf("the event's results %s are not an object of objects: %v", clip(m["results"]), err)
	}
	return results, nil
}

func (w *world) eventResultKeys(list string) error {
	results, err := w.eventResults()
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(results))
	for k := range results {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := nameList(list); !slices.Equal(keys, want) {
		return fmt.Errorf("the results are keyed by %v, want %v", keys, want)
	}
	return nil
}

func (w *world) eventResultShape() error {
	results, err := w.eventResults()
	if err != nil {
		return err
	}
	for id, r := range results {
		var q, answer string
		var score float64
		var evidence []struct {
			Speaker *string  `json:"speaker"`
			Text    string   `json:"text"`
			Start   *float64 `json:"start"`
		}
		if json.Unmarshal(r["question"], &q) != nil || q == "" {
			return fmt.Errorf("result %s has no question text", id)
		}
		if json.Unmarshal(r["answer"], &answer) != nil || (answer != "yes" && answer != "no" && answer != "unclear") {
			return fmt.Errorf("result %s answers %s", id, r["answer"])
		}
		if json.Unmarshal(r["score"], &score) != nil || score < 0 || score > 1 {
			return fmt.Errorf("result %s has the score %s", id, r["score"])
		}
		if json.Unmarshal(r["evidence"], &evidence) != nil || evidence == nil {
			return fmt.Errorf("result %s has the evidence %s, want a list", id, r["evidence"])
		}
		if answer == "yes" && len(evidence) == 0 {
			return fmt.Errorf("result %s answers yes without evidence", id)
		}
	}
	return nil
}
