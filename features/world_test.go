package features

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Deadlines and paces of the asynchronous checks.
const (
	finishDeadline = 45 * time.Second // a job reaches a terminal state
	eventDeadline  = 30 * time.Second // an event reaches a receiver

	// Waiting polls start fast, to see the states a job passes through, and
	// slow down to at most 46 a minute; pollBudget caps them per key and
	// wall-clock minute in any case, under the service's limit of 60.
	pollFirst  = 100 * time.Millisecond
	pollMax    = 1300 * time.Millisecond
	pollBudget = 50
)

// world is one scenario's state: created fresh for every scenario.
type world struct {
	s       *suite
	inst    *instance
	started time.Time

	actors    map[string]*actor // "me" and the other customers named in the scenario
	receivers []*receiver       // closed when the scenario ends

	last    *response   // the last answer from the service
	limited *response   // the last 429 answer
	burst   []*response // the answers of a burst of polls
	event   *received   // the event last looked at
	jobOf   *job        // the job the event is about
	subject *job        // the job last polled: what "the job is …" steps look at

	budgets map[string]*budget // polls per API key in the current minute
	keyed   []*response        // answers of the creations of idempotency.feature
}

// me is the customer the scenario is told by.
const me = "me"

type actor struct {
	name        string
	plan        string
	seconds     string
	accountID   string
	apiKey      string
	secondKey   string
	checklistID string
	receiver    *receiver // nil when events go to an address that is not listening
	jobs        []*job
}

// job is a transcription job as its owner knows it.
type job struct {
	owner     *actor
	docID     string
	uploadURL string
	typ       string
	metadata  json.RawMessage // as sent; nil when none was sent
	recording string          // the file uploaded, if any
	created   time.Time       // when the create request was sent

	polls []poll // every successful poll answer, in order
}

// poll is one 200 answer of getTranscription.
type poll struct {
	fields map[string]json.RawMessage
	body   []byte
}

func (p poll) str(name string) string {
	var s string
	_ = json.Unmarshal(p.fields[name], &s)
	return s
}

func (p poll) status() string { return p.str("status") }

// response is one HTTP exchange with the service.
type response struct {
	method, url string
	status      int
	header      http.Header
	body        []byte
	sent, recvd time.Time
}

type budget struct {
	minute time.Time
	n      int
}

func newWorld(s *suite) *world {
	return &world{s: s, inst: s.main, started: time.Now(), actors: map[string]*actor{}, budgets: map[string]*budget{}}
}

func (w *world) close() {
	for _, r := range w.receivers {
		r.srv.Close()
	}
}

func (w *world) actor(name string) (*actor, error) {
	a, ok := w.actors[name]
	if !ok {
		if name == me {
			return nil, errors.New("the scenario has no account of mine yet")
		}
		return nil, fmt.Errorf("the scenario has no customer %q", name)
	}
	return a, nil
}

// lastJob is the actor's most recent job.
func (w *world) lastJob(name string) (*job, error) {
	a, err := w.actor(name)
	if err != nil {
		return nil, err
	}
	if len(a.jobs) == 0 {
		return nil, fmt.Errorf("%s has created no job yet", name)
	}
	return a.jobs[len(a.jobs)-1], nil
}

func (w *world) myJob() (*job, error) { return w.lastJob(me) }

// onTheirJob runs a step in which I reach for another actor's job: fn gets
// me and name's last job.
func (w *world) onTheirJob(name string, fn func(mine *actor, theirs *job) error) error {
	mine, err := w.actor(me)
	if err != nil {
		return err
	}
	j, err := w.lastJob(name)
	if err != nil {
		return err
	}
	return fn(mine, j)
}

// provision creates the actor's account with the hyscribe CLI.
func (w *world) provision(name, plan, seconds string) (*actor, error) {
	var out struct {
		AccountID string `json:"accountId"`
		APIKey    string `json:"apiKey"`
	}
	label := fmt.Sprintf("%s-%d", strings.ReplaceAll(name, " ", "-"), time.Now().UnixNano())
	if err := w.inst.cli(&out, "account", "create", "--name", label, "--plan", plan, "--seconds", seconds); err != nil {
		return nil, err
	}
	if out.AccountID == "" || out.APIKey == "" {
		return nil, fmt.Errorf("account create printed no accountId or apiKey: %+v", out)
	}
	a := &actor{name: name, plan: plan, seconds: seconds, accountID: out.AccountID, apiKey: out.APIKey}
	w.actors[name] = a
	return a, nil
}

// accountView is what `hyscribe account update` prints.
type accountView struct {
	AccountID          string  `json:"accountId"`
	Plan               string  `json:"plan"`
	SecondsRemaining   float64 `json:"secondsRemaining"`
	WebhookURL         string  `json:"webhookURL"`
	AnalysisWebhookURL string  `json:"analysisWebhookURL"`
	NotifyFailures     bool    `json:"notifyFailures"`
}

func (w *world) updateAccount(a *actor, flags ...string) (accountView, error) {
	var v accountView
	err := w.inst.cli(&v, append([]string{"account", "update", "--account", a.accountID}, flags...)...)
	return v, err
}

// do sends one request to the service and keeps the answer as the last one.
// Any 5xx answer is an error at once: no scenario expects the service to fail.
func (w *world) do(method, rawURL, apiKey string, body []byte, header map[string]string) (*response, error) {
	r, err := send(method, rawURL, apiKey, body, header)
	if err != nil {
		return nil, err
	}
	w.last = r
	if r.status == http.StatusTooManyRequests {
		w.limited = r
	}
	if err := conforms(r); err != nil {
		return r, err
	}
	return r, r.failed()
}

// failed is the error of a 5xx answer.
func (r *response) failed() error {
	if r.status >= 500 {
		return fmt.Errorf("the service failed: %s %s answered %d %s", r.method, redact(r.url), r.status, clip(r.body))
	}
	return nil
}

// send makes one HTTP exchange; safe for concurrent use.
func send(method, rawURL, apiKey string, body []byte, header map[string]string) (*response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, rawURL, rd)
	if err != nil {
		return nil, err
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	r := &response{method: method, url: rawURL, sent: time.Now()}
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, redact(rawURL), err)
	}
	defer resp.Body.Close()
	r.body, err = io.ReadAll(resp.Body)
	r.recvd = time.Now()
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", method, redact(rawURL), err)
	}
	r.status, r.header = resp.StatusCode, resp.Header
	return r, nil
}

var httpClient = &http.Client{Timeout: 30 * time.Second}

func (w *world) api(path string) string { return w.inst.base + path }

// create sends createTranscription with the given body on behalf of a.
func (w *world) create(a *actor, body []byte) (*response, error) {
	return w.do(http.MethodPost, w.api("/api/createTranscription"), a.apiKey, body, map[string]string{"Content-Type": "application/json"})
}

// createJob creates a job of type typ with optional metadata and records it.
func (w *world) createJob(a *actor, typ string, metadata json.RawMessage) (*job, error) {
	req := map[string]any{"type": typ}
	if metadata != nil {
		req["metadata"] = metadata
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	sent := time.Now()
	r, err := w.create(a, body)
	if err != nil {
		return nil, err
	}
	if r.status != http.StatusOK {
		return nil, fmt.Errorf("createTranscription answered %d %s, want 200", r.status, clip(r.body))
	}
	j, err := w.recordJob(a, r)
	if err != nil {
		return nil, err
	}
	j.typ, j.metadata, j.created = typ, metadata, sent
	return j, nil
}

// recordJob reads a successful creation answer.
func (w *world) recordJob(a *actor, r *response) (*job, error) {
	var out struct {
		DocID     string `json:"docId"`
		UploadURL string `json:"uploadUrl"`
	}
	if err := json.Unmarshal(r.body, &out); err != nil {
		return nil, fmt.Errorf("createTranscription answered %s, not JSON: %v", clip(r.body), err)
	}
	if out.DocID == "" || out.UploadURL == "" {
		return nil, fmt.Errorf("createTranscription answered %s: docId or uploadUrl missing or empty", clip(r.body))
	}
	j := &job{owner: a, docID: out.DocID, uploadURL: out.UploadURL, created: r.sent}
	a.jobs = append(a.jobs, j)
	return j, nil
}

func (w *world) audio(name string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(w.s.audioDir, name))
	if err != nil {
		return nil, fmt.Errorf("recording %q: %w", name, err)
	}
	return b, nil
}

// upload PUTs a recording to an upload address.
func (w *world) upload(rawURL, recording string) (*response, error) {
	b, err := w.audio(recording)
	if err != nil {
		return nil, err
	}
	return w.do(http.MethodPut, rawURL, "", b, map[string]string{"Content-Type": "audio/mpeg"})
}

// submit creates a job and uploads the recording, both of which must succeed.
func (w *world) submit(a *actor, recording, typ string, metadata json.RawMessage) (*job, error) {
	j, err := w.createJob(a, typ, metadata)
	if err != nil {
		return nil, err
	}
	return j, w.uploadTo(j, recording)
}

// uploadTo uploads a recording to the job's address, which must succeed.
func (w *world) uploadTo(j *job, recording string) error {
	r, err := w.upload(j.uploadURL, recording)
	if err != nil {
		return err
	}
	if r.status != http.StatusOK {
		return fmt.Errorf("uploading %s answered %d %s, want 200", recording, r.status, clip(r.body))
	}
	j.recording = recording
	return nil
}

func (w *world) pollURL(docID string) string {
	return w.api("/api/getTranscription?docId=" + url.QueryEscape(docID))
}

// getJob polls the job once with key; a 200 answer is recorded on the job.
func (w *world) getJob(j *job, key string) (*response, error) {
	r, err := w.do(http.MethodGet, w.pollURL(j.docID), key, nil, nil)
	if err != nil {
		return nil, err
	}
	if r.status == http.StatusOK {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(r.body, &fields); err != nil {
			return r, fmt.Errorf("getTranscription answered 200 with %s, not a JSON object: %v", clip(r.body), err)
		}
		j.polls = append(j.polls, poll{fields: fields, body: r.body})
	}
	return r, nil
}

// pace keeps waiting polls under the rate limit: at most pollBudget per key
// in one wall-clock minute, sleeping into the next minute when it is used up.
func (w *world) pace(key string, deadline time.Time) {
	b := w.budgets[key]
	if b == nil {
		b = &budget{}
		w.budgets[key] = b
	}
	now := time.Now()
	minute := now.Truncate(time.Minute)
	if !b.minute.Equal(minute) {
		b.minute, b.n = minute, 0
	}
	if b.n >= pollBudget {
		next := minute.Add(time.Minute + 100*time.Millisecond)
		if next.After(deadline) {
			next = deadline
		}
		time.Sleep(time.Until(next))
		b.minute, b.n = time.Now().Truncate(time.Minute), 0
	}
	b.n++
}

// waitFinished polls the job with its owner's key until it is transcribed or
// failed, and returns that last answer.
func (w *world) waitFinished(j *job) (poll, error) {
	deadline := time.Now().Add(finishDeadline)
	every := pollFirst
	for {
		w.pace(j.owner.apiKey, deadline)
		r, err := w.getJob(j, j.owner.apiKey)
		if err != nil {
			return poll{}, err
		}
		if r.status != http.StatusOK {
			return poll{}, fmt.Errorf("polling the job answered %d %s, want 200", r.status, clip(r.body))
		}
		p := j.polls[len(j.polls)-1]
		switch st := p.status(); st {
		case "transcribed", "failed":
			return p, nil
		case "uploading", "processing", "converting":
		default:
			return p, fmt.Errorf("the job's status is %q, which is not one of the five states", st)
		}
		if time.Now().After(deadline) {
			return p, fmt.Errorf("the job was still %q after %s: stuck", p.status(), finishDeadline)
		}
		time.Sleep(every)
		every = min(every*3/2, pollMax)
	}
}

// lastPoll is the job's latest poll answer.
func (j *job) lastPoll() (poll, error) {
	if len(j.polls) == 0 {
		return poll{}, errors.New("the job has not been polled yet")
	}
	return j.polls[len(j.polls)-1], nil
}

// receiver is a customer's webhook receiver: it records every request and
// answers each with status.
type receiver struct {
	srv    *httptest.Server
	status int

	mu   sync.Mutex
	reqs []received
}

type received struct {
	method string
	path   string
	header http.Header
	body   []byte
	at     time.Time
}

func (w *world) newReceiver(status int) *receiver {
	rc := &receiver{status: status}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, received{method: r.Method, path: r.URL.Path, header: r.Header.Clone(), body: body, at: time.Now()})
		rc.mu.Unlock()
		rw.WriteHeader(rc.status)
	}))
	w.receivers = append(w.receivers, rc)
	return rc
}

// forDoc returns the requests whose JSON body names docID.
func (rc *receiver) forDoc(docID string) []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []received
	for _, r := range rc.reqs {
		var b struct {
			DocID string `json:"docId"`
		}
		if json.Unmarshal(r.body, &b) == nil && b.DocID == docID {
			out = append(out, r)
		}
	}
	return out
}

// waitEvent waits for an event about docID at the receiver.
func (rc *receiver) waitEvent(docID string) (received, error) {
	deadline := time.Now().Add(eventDeadline)
	for {
		if got := rc.forDoc(docID); len(got) > 0 {
			return got[0], nil
		}
		if time.Now().After(deadline) {
			rc.mu.Lock()
			n := len(rc.reqs)
			rc.mu.Unlock()
			return received{}, fmt.Errorf("no event about the job reached the receiver within %s (%d other requests arrived)", eventDeadline, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// deadAddress is an http URL on a loopback port nothing listens on.
func deadAddress() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		return "", err
	}
	return "http://" + addr + "/hooks/hyscribe", nil
}

// fieldNames is the sorted key set of a JSON object.
func fieldNames(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// nameList reads "a, b, c and d" as a sorted list.
func nameList(s string) []string {
	s = strings.ReplaceAll(s, " and ", ",")
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b []byte) (bool, error) {
	var va, vb any
	da := json.NewDecoder(bytes.NewReader(a))
	da.UseNumber()
	if err := da.Decode(&va); err != nil {
		return false, fmt.Errorf("%s is not JSON: %v", clip(a), err)
	}
	db := json.NewDecoder(bytes.NewReader(b))
	db.UseNumber()
	if err := db.Decode(&vb); err != nil {
		return false, fmt.Errorf("%s is not JSON: %v", clip(b), err)
	}
	return jsonEqual(va, vb), nil
}

func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if yv, ok := y[k]; !ok || !jsonEqual(v, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

func clip(b []byte) string {
	s := string(b)
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	if s == "" {
		return "(empty body)"
	}
	return s
}

// redact hides an upload address's signature in messages.
func redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.RawQuery == "" {
		return rawURL
	}
	q := u.Query()
	for k := range q {
		if strings.Contains(strings.ToLower(k), "sig") {
			q.Set(k, "…")
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}
