package features

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cucumber/godog"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// initScenario gives every scenario a fresh world and binds the steps to it.
func (s *suite) initScenario(sc *godog.ScenarioContext) {
	w := newWorld(s)
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		w.close()
		return ctx, nil
	})

	w.analysisSteps(sc)
	w.integratorSteps(sc)
	w.exportSteps(sc)
	w.reconcileSteps(sc)

	// Accounts, set up with the hyscribe CLI as an operator would.
	sc.Step(`^I have a (Business|Free) account with (\d+(?:\.\d+)?) seconds? of audio remaining$`, w.iHaveAccount)
	sc.Step(`^another customer "([^"]+)" has a (Business|Free) account with (\d+(?:\.\d+)?) seconds? of audio remaining$`, w.anotherCustomer)
	sc.Step(`^I have a second API key for my account$`, w.secondKey)
	sc.Step(`^my account is moved to the Free plan$`, w.moveToFree)
	sc.Step(`^my account (?:sends|starts sending) events to my receiver with the secret "([^"]*)"$`, w.myReceiver)
	sc.Step(`^"([^"]+)" sends events to their receiver with the secret "([^"]*)"$`, w.theirReceiver)
	sc.Step(`^my account sends events to a receiver that answers every request with status (\d+)$`, w.failingReceiver)
	sc.Step(`^my account sends events to an address where nothing is listening$`, w.deadReceiver)
	sc.Step(`^my account stops sending events$`, w.stopEvents)
	sc.Step(`^my account asks to be told about failed jobs$`, w.notifyFailures)
	sc.Step(`^my account still has (\d+(?:\.\d+)?) seconds? of audio remaining$`, w.balanceIs)
	sc.Step(`^my account's balance went down by the job's duration$`, w.balanceWentDown)
	sc.Step(`^I have a checklist "([^"]*)" in my account$`, w.createChecklist)
	sc.Step(`^I submit "([^"]*)" as a "([^"]*)" job with that checklist$`, w.submitWithChecklist)
	sc.Step(`^upload addresses are valid for only (\d+) seconds$`, w.shortUploadWindow)

	// Creating jobs.
	sc.Step(`^I create a "([^"]*)" job$`, w.createPlain)
	sc.Step(`^I have created a "([^"]*)" job$`, w.createPlain)
	sc.Step(`^"([^"]+)" creates a "([^"]*)" job$`, w.theyCreate)
	sc.Step(`^I create a "([^"]*)" job with the metadata:$`, w.createWithMetadata)
	sc.Step(`^I create a job with the request body:\s*(.*)$`, w.createRaw)
	sc.Step(`^I create a "([^"]*)" job whose metadata is (\d+) (KiB|MiB) large$`, w.createBigMetadata)
	sc.Step(`^I create a "([^"]*)" job (without an API key|with the API key "[^"]*"|with a well-formed API key that was never issued|sending my API key with the "Basic" scheme)$`, w.createWithCredentials)
	sc.Step(`^I send a GET request to createTranscription$`, w.getCreate)
	sc.Step(`^the response gives a docId and an upload address$`, w.createAnswered)

	// Uploading.
	sc.Step(`^I upload "([^"]*)" to the job's upload address$`, w.uploadToJob)
	sc.Step(`^I upload "([^"]*)" to the job's upload address with (the signature|the expiry time|the docId, to that of another of my jobs) changed$`, w.uploadTampered)
	sc.Step(`^I upload "([^"]*)" and "([^"]*)" to the job's upload address at the same moment$`, w.uploadTwiceAtOnce)
	sc.Step(`^exactly one upload is accepted and the other is refused with status (\d+)$`, w.oneUploadWon)
	sc.Step(`^the job's duration is that of the accepted recording$`, w.durationOfWinner)
	sc.Step(`^the upload is accepted$`, w.uploadAccepted)
	sc.Step(`^the upload is refused with status (\d+)$`, w.uploadRefused)
	sc.Step(`^I submit "([^"]*)" as a "([^"]*)" job$`, w.iSubmit)
	sc.Step(`^I submit "([^"]*)" as a "([^"]*)" job with the metadata:$`, w.iSubmitWithMetadata)
	sc.Step(`^"([^"]+)" (?:submits|has submitted) "([^"]*)" as a "([^"]*)" job$`, w.theySubmit)
	sc.Step(`^the job's upload address is an absolute http address outside of "([^"]*)"$`, w.uploadAddressOutside)
	sc.Step(`^I wait until the job's upload address has expired$`, w.waitUploadExpired)

	// Polling.
	sc.Step(`^I check the job$`, w.checkJob)
	sc.Step(`^I poll the job until it is finished$`, w.pollUntilFinished)
	sc.Step(`^"([^"]+)" polls their job until it is finished$`, w.theyPollUntilFinished)
	sc.Step(`^I ask for the job$`, w.checkJobAny)
	sc.Step(`^I ask for the job (without an API key|with the API key "[^"]*"|with a well-formed API key that was never issued|sending my API key with the "Basic" scheme)$`, w.askWithCredentials)
	sc.Step(`^I ask for a job without giving its docId$`, w.askWithoutDocID)
	sc.Step(`^I ask for a job that does not exist$`, w.askUnknown)
	sc.Step(`^"([^"]+)" asks for a job that does not exist$`, w.theyAskUnknown)
	sc.Step(`^I ask for "([^"]+)"'s job$`, w.askTheirJob)
	sc.Step(`^I send a (POST|PUT|DELETE|PATCH) request to getTranscription for the job$`, w.wrongMethodPoll)
	sc.Step(`^the response body is identical to the one for a job that does not exist$`, w.identicalToUnknown)

	// The job as polled.
	sc.Step(`^the job is "([^"]*)"$`, w.jobIs)
	sc.Step(`^the job shows exactly the fields (.+)$`, w.jobFields)
	sc.Step(`^while the job was unfinished, no answer showed a transcription, title, resolution, language code or error$`, w.noEarlyFields)
	sc.Step(`^the job's docId is the one given at creation$`, w.jobDocID)
	sc.Step(`^the job's type is "([^"]*)"$`, w.jobType)
	sc.Step(`^the job's language code is "([^"]*)"$`, w.jobLanguage)
	sc.Step(`^the job's duration is null$`, w.durationNull)
	sc.Step(`^the job's duration is about (\d+(?:\.\d+)?) seconds$`, w.durationAbout)
	sc.Step(`^the job's metadata is exactly what I sent$`, w.jobMetadataAsSent)
	sc.Step(`^the job's metadata is \{\}$`, w.jobMetadataEmpty)
	sc.Step(`^the job's creation time is an ISO 8601 timestamp of when I created it$`, w.createdAtISO)
	sc.Step(`^the job's transcription, title and resolution are Armenian text$`, w.armenianTexts)
	sc.Step(`^the job's title is one line of at most (\d+) characters$`, w.titleShape)
	sc.Step(`^the job's resolution is one paragraph of at most (\d+) characters$`, w.resolutionShape)
	sc.Step(`^the job's transcription has no speaker labels$`, w.noSpeakerLabels)
	sc.Step(`^the job's transcription has one line per turn, labelled in this order:$`, w.turnsInOrder)
	sc.Step(`^the job's transcription uses exactly the two labels "([^"]*)" and "([^"]*)"$`, w.jobTwoLabels)
	sc.Step(`^the job's error mentions (".*")$`, w.errorMentions)
	sc.Step(`^the job's error says the recording is about (\d+(?:\.\d+)?) seconds long and (\d+(?:\.\d+)?) seconds remain$`, w.balanceError)

	// Answers of the service.
	sc.Step(`^the response status is (\d+)$`, w.statusIs)
	sc.Step(`^the response is a JSON error with a message and a code$`, w.jsonError)
	sc.Step(`^the response is a JSON error whose message mentions "([^"]*)"$`, w.jsonErrorMentions)

	// Rate limit.
	sc.Step(`^at least (\d+) seconds remain in the current minute$`, w.secondsLeftInMinute)
	sc.Step(`^I poll the job (\d+) times in a row$`, w.burstPolls)
	sc.Step(`^all of those polls are answered with status (\d+) within the same minute$`, w.burstAnswered)
	sc.Step(`^I poll the job once more$`, w.checkJobAny)
	sc.Step(`^the response has a Retry-After header of whole seconds between 1 and 60, no more than the seconds left in the current minute$`, w.retryAfter)
	sc.Step(`^I poll the job with my second API key$`, w.pollWithSecondKey)
	sc.Step(`^I wait as many seconds as Retry-After said$`, w.waitRetryAfter)

	// Events at receivers.
	sc.Step(`^my receiver gets a "([^"]*)" event for the job$`, w.myEvent)
	sc.Step(`^"([^"]+)"'s receiver gets a "([^"]*)" event for their job$`, w.theirEvent)
	sc.Step(`^the event is a JSON POST$`, w.eventIsJSONPost)
	sc.Step(`^the event has exactly the fields (.+)$`, w.eventFields)
	sc.Step(`^the event's secret is "([^"]*)"$`, w.eventSecret)
	sc.Step(`^the event is about the job$`, w.eventAboutJob)
	sc.Step(`^the event's metadata is exactly what I sent$`, w.eventMetadata)
	sc.Step(`^the event's link is the job's page in the web application$`, w.eventLink)
	sc.Step(`^the event carries the headers webhook-id, webhook-timestamp and webhook-signature$`, w.eventHeaders)
	sc.Step(`^the event's webhook-signature is valid for the secret "([^"]*)"$`, w.eventSignature)
	sc.Step(`^the event's transcription, title and resolution are those of the job$`, w.eventMatchesJob)
	sc.Step(`^the event's error is that of the job$`, w.eventErrorMatchesJob)
	sc.Step(`^the event's transcription uses exactly the two labels "([^"]*)" and "([^"]*)"$`, w.eventTwoLabels)
	sc.Step(`^my receiver gets nothing about the job within (\d+) seconds$`, w.nothingAboutJob)
	sc.Step(`^my receiver was sent the event for the job exactly once, as the service does not retry$`, w.sentOnce)
}

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
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	if a.checklistID == "" {
		return errors.New("I have no checklist")
	}
	body, err := json.Marshal(map[string]any{"type": typ, "checklistId": a.checklistID})
	if err != nil {
		return err
	}
	r, err := w.create(a, body)
	if err != nil {
		return err
	}
	if r.status != http.StatusOK {
		return fmt.Errorf("createTranscription with my checklist answered %d %s, want 200", r.status, clip(r.body))
	}
	j, err := w.recordJob(a, r)
	if err != nil {
		return err
	}
	j.typ = typ
	return w.uploadTo(j, recording)
}

// ---- creating jobs ----

func (w *world) createPlain(typ string) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	_, err = w.createJob(a, typ, nil)
	return err
}

func (w *world) theyCreate(name, typ string) error {
	a, err := w.actor(name)
	if err != nil {
		return err
	}
	_, err = w.create(a, []byte(`{"type": "`+typ+`"}`))
	return err
}

func (w *world) createWithMetadata(typ string, doc *godog.DocString) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	meta := json.RawMessage(doc.Content)
	if !json.Valid(meta) {
		return fmt.Errorf("the metadata in the scenario is not JSON: %s", doc.Content)
	}
	body, err := json.Marshal(map[string]any{"type": typ, "metadata": meta})
	if err != nil {
		return err
	}
	r, err := w.create(a, body)
	if err != nil || r.status != http.StatusOK {
		return err // the status is checked by the next step
	}
	j, err := w.recordJob(a, r)
	if err != nil {
		return err
	}
	j.typ, j.metadata = typ, meta
	return nil
}

func (w *world) createRaw(body string) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	_, err = w.create(a, []byte(body))
	return err
}

func (w *world) createBigMetadata(typ string, n int, unit string) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	size := n << 10
	if unit == "MiB" {
		size = n << 20
	}
	// Armenian and ASCII text, so the size is in bytes of real UTF-8.
	chunk := "Բարև ձեզ, hello. "
	text := strings.Repeat(chunk, size/len(chunk)+1)
	meta, err := json.Marshal(map[string]any{"note": text, "crmId": "C-big"})
	if err != nil {
		return err
	}
	body, err := json.Marshal(map[string]any{"type": typ, "metadata": json.RawMessage(meta)})
	if err != nil {
		return err
	}
	r, err := w.create(a, body)
	if err != nil {
		return err
	}
	if r.status == http.StatusOK {
		j, err := w.recordJob(a, r)
		if err != nil {
			return err
		}
		j.typ, j.metadata = typ, meta
	}
	return nil
}

// credentials turns a phrase of the scenario into an Authorization header
// value ("" for none).
func (w *world) credentials(phrase string) (string, error) {
	a, err := w.actor(me)
	if err != nil {
		return "", err
	}
	switch {
	case phrase == "without an API key":
		return "", nil
	case strings.HasPrefix(phrase, `with the API key "`):
		return "Bearer " + strings.TrimSuffix(strings.TrimPrefix(phrase, `with the API key "`), `"`), nil
	case phrase == "with a well-formed API key that was never issued":
		return "Bearer " + neverIssuedKey(), nil
	case phrase == `sending my API key with the "Basic" scheme`:
		return "Basic " + a.apiKey, nil
	}
	return "", fmt.Errorf("unknown credentials %q", phrase)
}

// neverIssuedKey looks exactly like a key ("hsk_" + 40 base62) but is random.
func neverIssuedKey() string {
	const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 40)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = base62[int(b[i])%len(base62)]
	}
	return "hsk_" + string(b)
}

func (w *world) doWithAuth(method, rawURL, auth string, body []byte, header map[string]string) (*response, error) {
	h := map[string]string{}
	for k, v := range header {
		h[k] = v
	}
	if auth != "" {
		h["Authorization"] = auth
	}
	return w.do(method, rawURL, "", body, h)
}

func (w *world) createWithCredentials(typ, phrase string) error {
	auth, err := w.credentials(phrase)
	if err != nil {
		return err
	}
	_, err = w.doWithAuth(http.MethodPost, w.api("/api/createTranscription"), auth, []byte(`{"type": "`+typ+`"}`), map[string]string{"Content-Type": "application/json"})
	return err
}

func (w *world) getCreate() error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	_, err = w.do(http.MethodGet, w.api("/api/createTranscription"), a.apiKey, nil, nil)
	return err
}

func (w *world) createAnswered() error {
	if w.last == nil || w.last.status != http.StatusOK {
		return errors.New("the job was not created")
	}
	j, err := w.myJob()
	if err != nil {
		return err
	}
	if len(j.docID) < 16 {
		return fmt.Errorf("the docId %q is too short to be unguessable", j.docID)
	}
	if _, err := url.Parse(j.uploadURL); err != nil {
		return fmt.Errorf("the upload address %q is not a URL: %v", j.uploadURL, err)
	}
	return nil
}

// ---- uploading ----

func (w *world) uploadToJob(recording string) error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	r, err := w.upload(j.uploadURL, recording)
	if err != nil {
		return err
	}
	if r.status == http.StatusOK && j.recording == "" {
		j.recording = recording
	}
	return nil
}

// tamper changes one part of an upload address. The address's shape is the
// service's own business; what it holds is the docId, an expiry time and a
// signature, each of which this finds wherever it is.
func tamper(raw, part, otherDocID, docID string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	q := u.Query()
	switch part {
	case "the signature":
		for k, vs := range q {
			if strings.Contains(strings.ToLower(k), "sig") && len(vs) == 1 && vs[0] != "" {
				v := []byte(vs[0])
				// Change one character to another of the same alphabet.
				i := len(v) / 2
				switch {
				case v[i] >= '0' && v[i] <= '8', v[i] >= 'a' && v[i] <= 'e', v[i] >= 'A' && v[i] <= 'E':
					v[i]++
				default:
					v[i] = '0'
				}
				q.Set(k, string(v))
				u.RawQuery = q.Encode()
				return u.String(), nil
			}
		}
		return "", fmt.Errorf("found no signature in the upload address %s", redact(raw))
	case "the expiry time":
		for k, vs := range q {
			if !strings.Contains(strings.ToLower(k), "exp") || len(vs) != 1 {
				continue
			}
			if n, err := strconv.ParseInt(vs[0], 10, 64); err == nil {
				q.Set(k, strconv.FormatInt(n+24*3600, 10)) // a day longer
			} else if t, err := time.Parse(time.RFC3339, vs[0]); err == nil {
				q.Set(k, t.Add(24*time.Hour).Format(time.RFC3339))
			} else {
				return "", fmt.Errorf("cannot read the expiry %q of the upload address", vs[0])
			}
			u.RawQuery = q.Encode()
			return u.String(), nil
		}
		return "", fmt.Errorf("found no expiry time in the upload address %s", redact(raw))
	case "the docId, to that of another of my jobs":
		if !strings.Contains(raw, docID) {
			return "", fmt.Errorf("the upload address %s does not contain the docId", redact(raw))
		}
		return strings.ReplaceAll(raw, docID, otherDocID), nil
	}
	return "", fmt.Errorf("unknown part %q", part)
}

func (w *world) uploadTampered(recording, part string) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	j, err := w.myJob()
	if err != nil {
		return err
	}
	other := ""
	if strings.HasPrefix(part, "the docId") {
		o, err := w.createJob(a, "single_voice", nil)
		if err != nil {
			return err
		}
		other = o.docID
		// The job being tampered with stays the scenario's job.
		a.jobs = append(slices.DeleteFunc(a.jobs, func(x *job) bool { return x == j }), j)
	}
	u, err := tamper(j.uploadURL, part, other, j.docID)
	if err != nil {
		return err
	}
	if _, err := w.upload(u, recording); err != nil {
		return err
	}
	if other != "" {
		// The other job must not have received the audio either.
		saved := w.last
		oj := a.jobs[len(a.jobs)-2]
		r, err := w.getJob(oj, a.apiKey)
		if err != nil {
			return err
		}
		if r.status != http.StatusOK {
			return fmt.Errorf("polling the other job answered %d %s", r.status, clip(r.body))
		}
		if st := oj.polls[len(oj.polls)-1].status(); st != "uploading" {
			return fmt.Errorf("the other job is %q after an upload to a tampered address, want uploading", st)
		}
		w.last = saved
	}
	return nil
}

// fixtureSeconds are the durations of the recordings in testdata/audio.
var fixtureSeconds = map[string]float64{
	"speech-mono-16k.mp3": 5.58,
	"call-stereo-22k.mp3": 6.06,
	"id3-stereo-44k.mp3":  2.04,
	"vbr-stereo-44k.mp3":  3.03,
}

func (w *world) uploadTwiceAtOnce(first, second string) error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	names := []string{first, second}
	bodies := make([][]byte, 2)
	for i, n := range names {
		if bodies[i], err = w.audio(n); err != nil {
			return err
		}
	}
	start := make(chan struct{})
	results := make([]*response, 2)
	errs := make([]error, 2)
	done := make(chan int)
	for i := range names {
		go func() {
			<-start
			results[i], errs[i] = send(http.MethodPut, j.uploadURL, "", bodies[i], map[string]string{"Content-Type": "audio/mpeg"})
			done <- i
		}()
	}
	close(start)
	<-done
	<-done
	w.burst = w.burst[:0]
	for i := range names {
		if errs[i] != nil {
			return errs[i]
		}
		if err := results[i].failed(); err != nil {
			return err
		}
		w.burst = append(w.burst, results[i])
		if results[i].status == http.StatusOK {
			j.recording = names[i]
		}
	}
	w.last = results[1]
	return nil
}

func (w *world) oneUploadWon(status int) error {
	if len(w.burst) != 2 {
		return errors.New("two uploads were not made")
	}
	a, b := w.burst[0], w.burst[1]
	if a.status == http.StatusOK {
		a, b = b, a
	}
	// Now b should be the accepted one and a the refused one.
	if b.status != http.StatusOK || a.status != status {
		return fmt.Errorf("the two uploads answered %d %s and %d %s, want one 200 and one %d",
			w.burst[0].status, clip(w.burst[0].body), w.burst[1].status, clip(w.burst[1].body), status)
	}
	w.last = a
	return w.jsonError()
}

func (w *world) durationOfWinner() error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	want, ok := fixtureSeconds[j.recording]
	if !ok {
		return fmt.Errorf("the duration of %q is not known", j.recording)
	}
	return w.durationAbout(want)
}

func (w *world) uploadAccepted() error {
	if w.last == nil || w.last.method != http.MethodPut {
		return errors.New("no upload was made")
	}
	if w.last.status != http.StatusOK {
		return fmt.Errorf("the upload answered %d %s, want 200", w.last.status, clip(w.last.body))
	}
	if len(w.last.body) != 0 {
		return fmt.Errorf("the upload answered 200 with a body %s; the upload answer has an empty body", clip(w.last.body))
	}
	return nil
}

func (w *world) uploadRefused(status int) error {
	if w.last == nil || w.last.method != http.MethodPut {
		return errors.New("no upload was made")
	}
	if err := w.statusIs(status); err != nil {
		return err
	}
	return w.jsonError()
}

func (w *world) iSubmit(recording, typ string) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	_, err = w.submit(a, recording, typ, nil)
	return err
}

func (w *world) iSubmitWithMetadata(recording, typ string, doc *godog.DocString) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	meta := json.RawMessage(doc.Content)
	if !json.Valid(meta) {
		return fmt.Errorf("the metadata in the scenario is not JSON: %s", doc.Content)
	}
	_, err = w.submit(a, recording, typ, meta)
	return err
}

func (w *world) theySubmit(name, recording, typ string) error {
	a, err := w.actor(name)
	if err != nil {
		return err
	}
	_, err = w.submit(a, recording, typ, nil)
	return err
}

func (w *world) uploadAddressOutside(prefix string) error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	u, err := url.Parse(j.uploadURL)
	if err != nil {
		return fmt.Errorf("the upload address %q is not a URL: %v", j.uploadURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("the upload address %s is not an absolute http(s) address", redact(j.uploadURL))
	}
	if u.Path == prefix || strings.HasPrefix(u.Path, strings.TrimRight(prefix, "/")+"/") {
		return fmt.Errorf("the upload address %s is under %s", redact(j.uploadURL), prefix)
	}
	return nil
}

func (w *world) waitUploadExpired() error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	if w.inst.uploadTTL > time.Minute {
		return fmt.Errorf("this service's upload window is %s: too long to wait for", w.inst.uploadTTL)
	}
	// The address is signed to the second; wait one more to be past it.
	time.Sleep(time.Until(j.created.Add(w.inst.uploadTTL + 1100*time.Millisecond)))
	return nil
}

// ---- polling ----

func (w *world) checkJob() error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	w.subject = j
	w.pace(j.owner.apiKey, time.Now().Add(time.Minute))
	r, err := w.getJob(j, j.owner.apiKey)
	if err != nil {
		return err
	}
	if r.status != http.StatusOK {
		return fmt.Errorf("polling the job answered %d %s, want 200", r.status, clip(r.body))
	}
	return nil
}

// checkJobAny polls once and leaves the answer, whatever it is, to the next steps.
func (w *world) checkJobAny() error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	w.subject = j
	_, err = w.getJob(j, j.owner.apiKey)
	return err
}

func (w *world) pollUntilFinished() error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	w.subject = j
	_, err = w.waitFinished(j)
	return err
}

func (w *world) theyPollUntilFinished(name string) error {
	j, err := w.lastJob(name)
	if err != nil {
		return err
	}
	w.subject = j
	_, err = w.waitFinished(j)
	return err
}

func (w *world) askWithCredentials(phrase string) error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	auth, err := w.credentials(phrase)
	if err != nil {
		return err
	}
	_, err = w.doWithAuth(http.MethodGet, w.pollURL(j.docID), auth, nil, nil)
	return err
}

func (w *world) askWithoutDocID() error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	_, err = w.do(http.MethodGet, w.api("/api/getTranscription"), a.apiKey, nil, nil)
	return err
}

// unknownDocID looks like a docId but names no job.
func unknownDocID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (w *world) askUnknown() error { return w.theyAskUnknown(me) }

func (w *world) theyAskUnknown(name string) error {
	a, err := w.actor(name)
	if err != nil {
		return err
	}
	_, err = w.do(http.MethodGet, w.pollURL(unknownDocID()), a.apiKey, nil, nil)
	return err
}

func (w *world) askTheirJob(name string) error {
	return w.onTheirJob(name, func(mine *actor, j *job) error {
		_, err := w.do(http.MethodGet, w.pollURL(j.docID), mine.apiKey, nil, nil)
		return err
	})
}

// sameAsUnknown checks that the last answer, about another customer's job,
// has the status and body of the one ask gets about a job that does not
// exist, and returns both. The last answer stays theirs.
func (w *world) sameAsUnknown(ask func() error) (theirs, unknown *response, err error) {
	theirs = w.last
	if err := ask(); err != nil {
		return nil, nil, err
	}
	unknown = w.last
	w.last = theirs
	if theirs.status != unknown.status || string(theirs.body) != string(unknown.body) {
		return nil, nil, fmt.Errorf("another customer's job answers %d %s, a job that does not exist answers %d %s",
			theirs.status, clip(theirs.body), unknown.status, clip(unknown.body))
	}
	return theirs, unknown, nil
}

func (w *world) identicalToUnknown() error {
	theirs, unknown, err := w.sameAsUnknown(w.askUnknown)
	if err != nil {
		return err
	}
	if ct1, ct2 := theirs.header.Get("Content-Type"), unknown.header.Get("Content-Type"); ct1 != ct2 {
		return fmt.Errorf("the Content-Types differ: %q and %q", ct1, ct2)
	}
	return nil
}

func (w *world) wrongMethodPoll(method string) error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	_, err = w.do(method, w.pollURL(j.docID), j.owner.apiKey, []byte(`{}`), map[string]string{"Content-Type": "application/json"})
	return err
}

// ---- the job as polled ----

// lastPoll is the latest answer about the job the scenario last polled.
func (w *world) lastPoll() (*job, poll, error) {
	j := w.subject
	if j == nil {
		return nil, poll{}, errors.New("no job has been polled yet")
	}
	p, err := j.lastPoll()
	return j, p, err
}

func (w *world) jobIs(status string) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	if got := p.status(); got != status {
		detail := ""
		if e := p.str("error"); e != "" {
			detail = fmt.Sprintf(" with the error %q", e)
		}
		return fmt.Errorf("the job is %q%s, want %q", got, detail, status)
	}
	return nil
}

func (w *world) jobFields(list string) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	if got, want := fieldNames(p.fields), nameList(list); !slices.Equal(got, want) {
		return fmt.Errorf("the job shows the fields %v, want exactly %v (answer: %s)", got, want, clip(p.body))
	}
	return nil
}

var alwaysFields = []string{"createdAt", "docId", "duration", "metadata", "status", "type"}

func (w *world) noEarlyFields() error {
	j := w.subject
	if j == nil {
		return errors.New("no job has been polled yet")
	}
	early := 0
	for i, p := range j.polls {
		switch p.status() {
		case "transcribed", "failed":
			continue
		}
		early++
		if got := fieldNames(p.fields); !slices.Equal(got, alwaysFields) {
			return fmt.Errorf("poll %d, status %q, showed the fields %v, want exactly %v", i+1, p.status(), got, alwaysFields)
		}
	}
	if early == 0 {
		return errors.New("no answer was seen while the job was unfinished")
	}
	return nil
}

func (w *world) jobDocID() error {
	j, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	if got := p.str("docId"); got != j.docID {
		return fmt.Errorf("the job's docId is %q, but creation gave %q", got, j.docID)
	}
	return nil
}

func (w *world) jobType(typ string) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	if got := p.str("type"); got != typ {
		return fmt.Errorf("the job's type is %q, want %q", got, typ)
	}
	return nil
}

func (w *world) jobLanguage(code string) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	if got := p.str("languageCode"); got != code {
		return fmt.Errorf("the job's languageCode is %q, want %q", got, code)
	}
	return nil
}

func (w *world) durationNull() error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	raw, ok := p.fields["duration"]
	if !ok || string(raw) != "null" {
		return fmt.Errorf("the job's duration is %s, want null", raw)
	}
	return nil
}

func (w *world) jobDuration() (float64, error) {
	_, p, err := w.lastPoll()
	if err != nil {
		return 0, err
	}
	var d *float64
	if err := json.Unmarshal(p.fields["duration"], &d); err != nil || d == nil {
		return 0, fmt.Errorf("the job's duration is %s, not a number", p.fields["duration"])
	}
	return *d, nil
}

func (w *world) durationAbout(want float64) error {
	d, err := w.jobDuration()
	if err != nil {
		return err
	}
	if math.Abs(d-want) > 0.15 {
		return fmt.Errorf("the job's duration is %v seconds, want about %v", d, want)
	}
	return nil
}

func (w *world) jobMetadataAsSent() error {
	j, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	if j.metadata == nil {
		return errors.New("no metadata was sent for this job")
	}
	same, err := sameJSON(j.metadata, p.fields["metadata"])
	if err != nil {
		return err
	}
	if !same {
		return fmt.Errorf("the job's metadata is %s, but %s was sent", clip(p.fields["metadata"]), clip(j.metadata))
	}
	return nil
}

func (w *world) jobMetadataEmpty() error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	if same, err := sameJSON([]byte(`{}`), p.fields["metadata"]); err != nil || !same {
		return fmt.Errorf("the job's metadata is %s, want {}", p.fields["metadata"])
	}
	return nil
}

func (w *world) createdAtISO() error {
	j, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	s := p.str("createdAt")
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("createdAt %s is not an ISO 8601 date-time: %v", p.fields["createdAt"], err)
	}
	// The request was sent at j.created; the server stamps it a moment later.
	if t.Before(j.created.Add(-2*time.Second)) || t.After(j.created.Add(10*time.Second)) {
		return fmt.Errorf("createdAt is %s, but the job was created at %s", s, j.created.UTC().Format(time.RFC3339Nano))
	}
	return nil
}

func isArmenian(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Armenian, r) && unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

func (w *world) armenianTexts() error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	for _, f := range []string{"transcription", "title", "resolution"} {
		v := strings.TrimSpace(p.str(f))
		if v == "" || !isArmenian(v) {
			return fmt.Errorf("the job's %s is %s, want Armenian text", f, p.fields[f])
		}
	}
	return nil
}

func (w *world) titleShape(n int) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	t := p.str("title")
	if strings.ContainsAny(t, "\r\n") || utf8.RuneCountInString(t) > n || strings.TrimSpace(t) == "" {
		return fmt.Errorf("the title %q is not one non-empty line of at most %d characters", t, n)
	}
	return nil
}

func (w *world) resolutionShape(n int) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	t := p.str("resolution")
	if strings.Contains(t, "\n\n") || utf8.RuneCountInString(t) > n || strings.TrimSpace(t) == "" {
		return fmt.Errorf("the resolution %q is not one non-empty paragraph of at most %d characters", t, n)
	}
	return nil
}

var labelRE = regexp.MustCompile(`Խոսնակ\s*\d+\s*:`)

func (w *world) noSpeakerLabels() error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	if t := p.str("transcription"); labelRE.MatchString(t) || strings.TrimSpace(t) == "" {
		return fmt.Errorf("the transcription %q is empty or has speaker labels", t)
	}
	return nil
}

func (w *world) turnsInOrder(table *godog.Table) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	t := p.str("transcription")
	lines := strings.Split(strings.TrimSpace(t), "\n")
	if len(lines) != len(table.Rows) {
		return fmt.Errorf("the transcription has %d lines, want %d:\n%s", len(lines), len(table.Rows), t)
	}
	for i, row := range table.Rows {
		label := row.Cells[0].Value + ":"
		if !strings.HasPrefix(lines[i], label) || strings.TrimSpace(strings.TrimPrefix(lines[i], label)) == "" {
			return fmt.Errorf("line %d of the transcription is %q, want %q followed by what was said:\n%s", i+1, lines[i], label, t)
		}
	}
	return nil
}

func twoLabels(text, a, b string) error {
	found := map[string]bool{}
	for _, m := range labelRE.FindAllString(text, -1) {
		found[strings.TrimSuffix(m, ":")] = true
	}
	if len(found) != 2 || !found[a] || !found[b] {
		return fmt.Errorf("the transcription uses the labels %v, want exactly %q and %q:\n%s", found, a, b, text)
	}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if !strings.HasPrefix(line, a+":") && !strings.HasPrefix(line, b+":") {
			return fmt.Errorf("the transcription line %q does not start with a speaker label", line)
		}
	}
	return nil
}

func (w *world) jobTwoLabels(a, b string) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	return twoLabels(p.str("transcription"), a, b)
}

var quotedRE = regexp.MustCompile(`"([^"]*)"`)

// errorMentions accepts `"a"` or `"a" or "b"`: the error must contain one of
// them, ignoring case.
func (w *world) errorMentions(alternatives string) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	msg := p.str("error")
	if strings.TrimSpace(msg) == "" {
		return fmt.Errorf("the job has no error message (answer: %s)", clip(p.body))
	}
	var want []string
	for _, m := range quotedRE.FindAllStringSubmatch(alternatives, -1) {
		want = append(want, m[1])
		if strings.Contains(strings.ToLower(msg), strings.ToLower(m[1])) {
			return nil
		}
	}
	return fmt.Errorf("the job's error %q mentions none of %q", msg, want)
}

var balanceRE = regexp.MustCompile(`recording is (\d+(?:\.\d+)?) s, (\d+(?:\.\d+)?) s remain`)

func (w *world) balanceError(length, remain float64) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	msg := p.str("error")
	m := balanceRE.FindStringSubmatch(msg)
	if m == nil {
		return fmt.Errorf("the job's error %q does not say \"recording is N s, M s remain\"", msg)
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	r, _ := strconv.ParseFloat(m[2], 64)
	if math.Abs(n-length) > 0.15 || math.Abs(r-remain) > 0.05 {
		return fmt.Errorf("the job's error %q names %v s and %v s remaining, want about %v s and %v s", msg, n, r, length, remain)
	}
	return nil
}

// ---- answers ----

func (w *world) statusIs(status int) error {
	if w.last == nil {
		return errors.New("no request was made")
	}
	if w.last.status != status {
		return fmt.Errorf("%s %s answered %d %s, want %d", w.last.method, redact(w.last.url), w.last.status, clip(w.last.body), status)
	}
	return nil
}

func (w *world) jsonErrorBody() (map[string]json.RawMessage, error) {
	if w.last == nil {
		return nil, errors.New("no request was made")
	}
	mt, _, _ := mime.ParseMediaType(w.last.header.Get("Content-Type"))
	if mt != "application/json" {
		return nil, fmt.Errorf("the %d answer has Content-Type %q, want application/json (body %s)", w.last.status, w.last.header.Get("Content-Type"), clip(w.last.body))
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(w.last.body, &body); err != nil {
		return nil, fmt.Errorf("the %d answer %s is not a JSON object: %v", w.last.status, clip(w.last.body), err)
	}
	return body, nil
}

func (w *world) jsonError() error {
	body, err := w.jsonErrorBody()
	if err != nil {
		return err
	}
	for _, f := range []string{"error", "code"} {
		var s string
		if err := json.Unmarshal(body[f], &s); err != nil || strings.TrimSpace(s) == "" {
			return fmt.Errorf("the %d answer %s has no non-empty string %q", w.last.status, clip(w.last.body), f)
		}
	}
	return nil
}

func (w *world) jsonErrorMentions(text string) error {
	body, err := w.jsonErrorBody()
	if err != nil {
		return err
	}
	var msg string
	if err := json.Unmarshal(body["error"], &msg); err != nil || !strings.Contains(msg, text) {
		return fmt.Errorf("the error %s does not mention %q", body["error"], text)
	}
	return nil
}

// ---- rate limit ----

func (w *world) secondsLeftInMinute(n int) error {
	now := time.Now()
	next := now.Truncate(time.Minute).Add(time.Minute)
	if next.Sub(now) < time.Duration(n)*time.Second {
		time.Sleep(time.Until(next) + 200*time.Millisecond)
	}
	return nil
}

func (w *world) burstPolls(n int) error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	w.burst = w.burst[:0]
	for range n {
		r, err := w.getJob(j, j.owner.apiKey)
		if err != nil {
			return err
		}
		w.burst = append(w.burst, r)
	}
	return nil
}

func (w *world) burstAnswered(status int) error {
	if len(w.burst) == 0 {
		return errors.New("no polls were made")
	}
	first := w.burst[0].sent.Truncate(time.Minute)
	for i, r := range w.burst {
		if r.status != status {
			return fmt.Errorf("poll %d of %d answered %d %s, want %d", i+1, len(w.burst), r.status, clip(r.body), status)
		}
	}
	if last := w.burst[len(w.burst)-1].recvd.Truncate(time.Minute); !last.Equal(first) {
		return fmt.Errorf("the polls took from %s to %s, more than one wall-clock minute; the test needs them in one",
			w.burst[0].sent.Format(time.RFC3339Nano), w.burst[len(w.burst)-1].recvd.Format(time.RFC3339Nano))
	}
	return nil
}

func (w *world) retryAfter() error {
	if w.last == nil {
		return errors.New("no request was made")
	}
	h := w.last.header.Values("Retry-After")
	if len(h) != 1 {
		return fmt.Errorf("the answer has Retry-After %q, want one value", h)
	}
	secs, err := strconv.Atoi(h[0])
	if err != nil {
		return fmt.Errorf("Retry-After %q is not a whole number of seconds", h[0])
	}
	if secs < 1 || secs > 60 {
		return fmt.Errorf("Retry-After is %d, want 1 to 60", secs)
	}
	// Seconds to the top of the minute, as seen when the request was sent
	// (an upper bound) and when the answer came (a lower bound).
	next := w.last.sent.Truncate(time.Minute).Add(time.Minute)
	upper := int(math.Ceil(next.Sub(w.last.sent).Seconds()))
	lower := int(math.Floor(next.Sub(w.last.recvd).Seconds()))
	if secs > upper {
		return fmt.Errorf("Retry-After is %d, but only %d seconds were left in the minute", secs, upper)
	}
	if secs < lower {
		return fmt.Errorf("Retry-After is %d, but the next minute starts in %d seconds", secs, lower)
	}
	return nil
}

func (w *world) pollWithSecondKey() error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	if a.secondKey == "" {
		return errors.New("I have no second API key")
	}
	j, err := w.myJob()
	if err != nil {
		return err
	}
	_, err = w.getJob(j, a.secondKey)
	return err
}

func (w *world) waitRetryAfter() error {
	r := w.limited
	if r == nil {
		return errors.New("no request was refused with 429")
	}
	secs, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil {
		return fmt.Errorf("Retry-After %q is not a whole number of seconds", r.header.Get("Retry-After"))
	}
	time.Sleep(time.Until(r.recvd.Add(time.Duration(secs) * time.Second)))
	return nil
}

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
