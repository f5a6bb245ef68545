package features

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ---- accounts ----

func (w *world) iHaveAccount(plan, seconds string) error {
	_, err := w.provision(me, strings.ToLower(plan), seconds)
	return err
}

func (w *world) anotherCustomer(name, plan, seconds string) error {
	_, err := w.provision(name, strings.ToLower(plan), seconds)
	return err
}

func (w *world) secondKey() error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	var out struct {
		APIKey string `json:"apiKey"`
	}
	if err := w.inst.cli(&out, "account", "key", "--account", a.accountID); err != nil {
		return err
	}
	if out.APIKey == "" || out.APIKey == a.apiKey {
		return fmt.Errorf("account key printed no new key: %+v", out)
	}
	a.secondKey = out.APIKey
	return nil
}

func (w *world) moveToFree() error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	v, err := w.updateAccount(a, "--plan", "free")
	if err != nil {
		return err
	}
	if v.Plan != "free" {
		return fmt.Errorf("the account is still on %q", v.Plan)
	}
	// The CLI is another process: the API's cached copy of the key (and
	// its account) is trusted for keyCacheTTL, the documented bound
	// (docs/performance.md). Wait it out.
	time.Sleep(keyCacheTTL)
	return nil
}

func (w *world) setReceiver(name string, status int, secret string) error {
	a, err := w.actor(name)
	if err != nil {
		return err
	}
	rc := w.newReceiver(status)
	a.receiver = rc
	v, err := w.updateAccount(a, "--webhook-url", rc.srv.URL+"/hooks/hyscribe", "--webhook-secret", secret)
	if err != nil {
		return err
	}
	if v.WebhookURL != rc.srv.URL+"/hooks/hyscribe" {
		return fmt.Errorf("the account's webhook URL is %q after the update", v.WebhookURL)
	}
	return nil
}

func (w *world) myReceiver(secret string) error { return w.setReceiver(me, http.StatusOK, secret) }

func (w *world) theirReceiver(name, secret string) error {
	return w.setReceiver(name, http.StatusOK, secret)
}

func (w *world) failingReceiver(status int) error {
	return w.setReceiver(me, status, "failing-receiver-secret")
}

func (w *world) deadReceiver() error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	u, err := deadAddress()
	if err != nil {
		return err
	}
	a.receiver = nil
	_, err = w.updateAccount(a, "--webhook-url", u, "--webhook-secret", "dead-receiver-secret")
	return err
}

func (w *world) stopEvents() error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	v, err := w.updateAccount(a, "--webhook-url", "")
	if err != nil {
		return err
	}
	if v.WebhookURL != "" {
		return fmt.Errorf("the account still sends events to %q", v.WebhookURL)
	}
	return nil
}

func (w *world) notifyFailures() error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	v, err := w.updateAccount(a, "--notify-failures", "true")
	if err != nil {
		return err
	}
	if !v.NotifyFailures {
		return errors.New("the account does not show notifyFailures after the update")
	}
	return nil
}

// balance reads the account with `hyscribe account update` and no changes.
func (w *world) balance() (float64, error) {
	a, err := w.actor(me)
	if err != nil {
		return 0, err
	}
	v, err := w.updateAccount(a)
	if err != nil {
		return 0, err
	}
	return v.SecondsRemaining, nil
}

func (w *world) balanceIs(want float64) error {
	got, err := w.balance()
	if err != nil {
		return err
	}
	if math.Abs(got-want) > 0.0005 {
		return fmt.Errorf("the account has %v seconds remaining, want %v", got, want)
	}
	return nil
}

func (w *world) balanceWentDown() error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	initial, err := strconv.ParseFloat(a.seconds, 64)
	if err != nil {
		return err
	}
	d, err := w.jobDuration()
	if err != nil {
		return err
	}
	got, err := w.balance()
	if err != nil {
		return err
	}
	if used := initial - got; math.Abs(used-d) > 0.002 {
		return fmt.Errorf("the balance went from %v to %v seconds (%.3f used), but the job's duration is %v seconds", initial, got, used, d)
	}
	return nil
}

func (w *world) shortUploadWindow(seconds int) error {
	in, err := w.s.shortWindow(time.Duration(seconds) * time.Second)
	if err != nil {
		return err
	}
	// Accounts live in one service's data: create them again in the other.
	old := w.actors
	w.inst, w.actors = in, map[string]*actor{}
	for name, a := range old {
		if a.receiver != nil || len(a.jobs) > 0 || a.secondKey != "" {
			return errors.New("the short upload window must be set before receivers, keys or jobs")
		}
		if _, err := w.provision(name, a.plan, a.seconds); err != nil {
			return err
		}
	}
	return nil
}

func (w *world) createChecklist(name string) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	def, err := json.Marshal(map[string]any{"name": name, "questions": []map[string]any{
		{"id": "greeting", "text": "Did the agent greet the customer?", "expect": []string{"Բարև"}},
		{"id": "order", "text": "Was the order discussed?", "expect": []string{"պատվեր"}},
	}})
	if err != nil {
		return err
	}
	file := filepath.Join(w.s.root, fmt.Sprintf("checklist-%d.json", time.Now().UnixNano()))
	if err := os.WriteFile(file, def, 0o600); err != nil {
		return err
	}
	var out struct {
		ChecklistID string `json:"checklistId"`
	}
	if err := w.inst.cli(&out, "checklist", "create", "--account", a.accountID, "--file", file); err != nil {
		return err
	}
	if out.ChecklistID == "" {
		return errors.New("checklist create printed no checklistId")
	}
	a.checklistID = out.ChecklistID
	return nil
}

func (w *world) submitWithChecklist(recording, typ string) error {
	r, j, err := w.createNamingMyChecklist(typ)
	if err != nil {
		return err
	}
	if j == nil {
		return fmt.Errorf("createTranscription with my checklist answered %d %s, want 200", r.status, clip(r.body))
	}
	return w.uploadTo(j, recording)
}
