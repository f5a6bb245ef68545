package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

func TestCreateThenPoll(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanBusiness)

	r := e.create(key, `{"type":"phone_call","metadata":{"crmId":"A-1","nested":{"n":[1,2]}}}`)
	if r.status != 200 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q", ct)
	}
	created := r.json(t)
	if len(created) != 2 {
		t.Fatalf("create answered %v, want exactly docId and uploadUrl", created)
	}
	id := created["docId"].(string)

	p := e.poll(key, id)
	if p.status != 200 {
		t.Fatalf("poll: %d %s", p.status, p.body)
	}
	job := p.json(t)
	wantJob(t, job, "uploading")
	if job["docId"] != id || job["type"] != "phone_call" || job["createdAt"] != "2025-03-01T12:00:45.200Z" || job["duration"] != nil {
		t.Fatalf("job %v", job)
	}
	if meta, _ := json.Marshal(job["metadata"]); string(meta) != `{"crmId":"A-1","nested":{"n":[1,2]}}` {
		t.Fatalf("metadata %s not returned unchanged", meta)
	}

	// Without metadata, metadata is {} rather than absent.
	r = e.create(key, `{"type":"single_voice"}`)
	if m := e.poll(key, r.json(t)["docId"].(string)).json(t); m["metadata"] == nil {
		t.Fatalf("metadata missing: %v", m)
	}
}

// wantJob checks the spec's field availability rules (§2.1) on a job object.
func wantJob(t *testing.T, job map[string]any, status string) {
	t.Helper()
	if job["status"] != status {
		t.Fatalf("status %v, want %s", job["status"], status)
	}
	for _, f := range []string{"docId", "status", "createdAt", "type", "duration", "metadata"} {
		if _, ok := job[f]; !ok {
			t.Fatalf("always-present field %s missing: %v", f, job)
		}
	}
	extra := map[string]bool{"transcription": status == "transcribed", "title": status == "transcribed",
		"resolution": status == "transcribed", "languageCode": status == "transcribed", "error": status == "failed"}
	for f, want := range extra {
		if _, ok := job[f]; ok != want {
			t.Fatalf("field %s present=%v in a %s job: %v", f, ok, status, job)
		}
	}
}

func TestPollTerminalJobs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanBusiness)
	done, _ := e.newJob(key)
	failed, _ := e.newJob(key)
	e.transcribe(done)
	e.fail(failed)

	job := e.poll(key, done).json(t)
	wantJob(t, job, "transcribed")
	if job["transcription"] != "Բարև Ձեզ" || job["title"] != "Ողջույն" || job["languageCode"] != "hy-AM" || job["duration"] != 9.5 {
		t.Fatalf("transcribed job %v", job)
	}
	r := e.poll(key, failed)
	if r.status != 200 {
		t.Fatalf("a failed job is a 200, got %d", r.status)
	}
	job = r.json(t)
	wantJob(t, job, "failed")
	if job["error"] != "the file is WAV audio, not MP3" {
		t.Fatalf("failed job %v", job)
	}
}

func TestCreateErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	acct, key := e.account(domain.PlanBusiness)
	other, _ := e.account(domain.PlanBusiness)
	ctx := context.Background()
	def := []byte(`{"name":"QA","questions":[{"id":"q1","text":"Greeted?"}]}`)
	mine, err := app.NewCreateChecklist(e.store, e.store, e.clock).Handle(ctx, acct.ID, domain.RoleOwner, def)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := app.NewCreateChecklist(e.store, e.store, e.clock).Handle(ctx, other.ID, domain.RoleOwner, def)
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name, body string
		status     int
		code       string
	}{
		{"malformed JSON", `{"type":`, 400, "invalid_json"},
		{"not an object", `["single_voice"]`, 400, "invalid_json"},
		{"a string", `"single_voice"`, 400, "invalid_json"},
		{"null", `null`, 400, "invalid_json"},
		{"empty", ``, 400, "empty_body"},
		{"missing type", `{"metadata":{}}`, 400, "missing_type"},
		{"type wrong JSON type", `{"type":5}`, 400, "invalid_type"},
		{"type unknown", `{"type":"video"}`, 400, "invalid_type"},
		{"metadata array", `{"type":"single_voice","metadata":[1]}`, 400, "invalid_metadata"},
		{"metadata string", `{"type":"single_voice","metadata":"x"}`, 400, "invalid_metadata"},
		{"checklistId number", `{"type":"single_voice","checklistId":5}`, 400, "invalid_checklist"},
		{"checklistId unknown", `{"type":"single_voice","checklistId":"nope"}`, 400, "unknown_checklist"},
		{"checklistId of another account", `{"type":"single_voice","checklistId":"` + theirs.ID + `"}`, 400, "unknown_checklist"},
		{"checklistId own", `{"type":"phone_call","checklistId":"` + mine.ID + `"}`, 200, ""},
		{"metadata null", `{"type":"single_voice","metadata":null}`, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.create(key, c.body)
			if c.status == 200 {
				if r.status != 200 {
					t.Fatalf("%d %s", r.status, r.body)
				}
				return
			}
			msg := r.wantError(t, c.status, c.code)
			if strings.Contains(msg, ": forbidden") || strings.Contains(msg, "validation failed") {
				t.Fatalf("message %q carries internal wording", msg)
			}
		})
	}
}

func TestCreateBodyLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanBusiness)
	big := `{"type":"single_voice","metadata":{"blob":"` + strings.Repeat("x", 2<<20) + `"}}`

	// Known length: refused before reading.
	msg := e.create(key, big).wantError(t, 413, "too_large")
	if !strings.Contains(msg, "256 KiB") {
		t.Fatalf("message %q does not name the limit", msg)
	}
	// Chunked: refused once 256 KiB have arrived.
	h := bearer(key)
	h["Content-Type"] = "application/json"
	h["Content-Length"] = "-1"
	e.do("POST", "/api/createTranscription", h, onlyReader{strings.NewReader(big)}).wantError(t, 413, "too_large")

	// Just under the limit is fine.
	pad := domain.MaxCreateBody - len(`{"type":"single_voice","metadata":{"p":""}}`)
	ok := `{"type":"single_voice","metadata":{"p":"` + strings.Repeat("y", pad) + `"}}`
	if r := e.create(key, ok); r.status != 200 {
		t.Fatalf("a body of exactly 256 KiB: %d %s", r.status, r.body)
	}
	// The connection that carried a refused body still works, or was closed
	// cleanly: either way the next request succeeds.
	if r := e.create(key, `{"type":"single_voice"}`); r.status != 200 {
		t.Fatalf("after refusals: %d", r.status)
	}
}

// onlyReader hides everything but Read, so net/http cannot learn the length
// and sends the body chunked.
type onlyReader struct{ r *strings.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func TestCreateContentTypeIsLenient(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanBusiness)
	for _, ct := range []string{"", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=xyz"} {
		h := bearer(key)
		if ct != "" {
			h["Content-Type"] = ct
		}
		if r := e.do("POST", "/api/createTranscription", h, strings.NewReader(`{"type":"single_voice"}`)); r.status != 200 {
			t.Errorf("Content-Type %q: %d %s", ct, r.status, r.body)
		}
	}
	h := bearer(key)
	h["Content-Type"] = "application/x-www-form-urlencoded"
	e.do("POST", "/api/createTranscription", h, strings.NewReader(`type=single_voice`)).wantError(t, 400, "invalid_json")
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	acct, key := e.account(domain.PlanBusiness)
	id, _ := e.newJob(key)
	ctx := context.Background()
	revoked, k, err := app.NewCreateAPIKey(e.store, e.clock).Handle(ctx, acct.ID, domain.RoleOwner)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.RevokeAPIKey(ctx, acct.ID, k.ID, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	unknownKey := "hsk_" + strings.Repeat("A", 40) // well-formed, never issued

	auths := map[string]string{
		"missing":       "",
		"not bearer":    "Basic dXNlcjpwYXNz",
		"bearer only":   "Bearer",
		"garbage":       "Bearer not-a-key",
		"unknown key":   "Bearer " + unknownKey,
		"revoked key":   "Bearer " + revoked,
		"truncated key": "Bearer " + key[:10],
	}
	for name, auth := range auths {
		t.Run(name, func(t *testing.T) {
			h := header{}
			if auth != "" {
				h["Authorization"] = auth
			}
			for _, r := range []response{
				e.do("GET", "/api/getTranscription?docId="+id, h, nil),
				e.do("POST", "/api/createTranscription", h, strings.NewReader(`{"type":"single_voice"}`)),
			} {
				msg := r.wantError(t, 401, "unauthorized")
				if got := r.header.Get("WWW-Authenticate"); got != "Bearer" {
					t.Fatalf("WWW-Authenticate %q", got)
				}
				if name == "revoked key" && !strings.Contains(msg, "revoked") {
					t.Fatalf("message %q does not say the key was revoked", msg)
				}
			}
		})
	}
	// The scheme is case-insensitive (RFC 9110).
	if r := e.do("GET", "/api/getTranscription?docId="+id, header{"Authorization": "bearer " + key}, nil); r.status != 200 {
		t.Fatalf("lower-case scheme: %d", r.status)
	}

	// No key, no secret, no Authorization header ever reaches the log.
	logs := e.logs.String()
	for _, secret := range []string{key, revoked, unknownKey, "Bearer", "dXNlcjpwYXNz"} {
		if strings.Contains(logs, secret) {
			t.Fatalf("log contains %q", secret)
		}
	}
}

func TestFreePlanIsForbidden(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanFree)
	msg := e.create(key, `{"type":"single_voice"}`).wantError(t, 403, "forbidden")
	if !strings.Contains(msg, "Business") || strings.HasSuffix(msg, "forbidden") {
		t.Fatalf("message %q", msg)
	}
	// The plan is checked before the body is read or parsed.
	e.create(key, `{`).wantError(t, 403, "forbidden")
	e.poll(key, "anything").wantError(t, 403, "forbidden")
}

func TestPollErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanBusiness)
	_, otherKey := e.account(domain.PlanBusiness)
	theirs, _ := e.newJob(otherKey)

	e.do("GET", "/api/getTranscription", bearer(key), nil).wantError(t, 400, "missing_doc_id")
	e.poll(key, "").wantError(t, 400, "missing_doc_id")

	unknown := e.poll(key, "doesNotExist0000000000")
	unknown.wantError(t, 404, "not_found")
	foreign := e.poll(key, theirs)
	foreign.wantError(t, 404, "not_found")
	if string(unknown.body) != string(foreign.body) {
		t.Fatalf("another account's job must look exactly like a missing one:\n%s\n%s", unknown.body, foreign.body)
	}
	e.poll(key, strings.Repeat("x", 500)).wantError(t, 404, "not_found")
	// Its owner sees it.
	if r := e.poll(otherKey, theirs); r.status != 200 {
		t.Fatalf("owner: %d", r.status)
	}
}

func TestMethodNotAllowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanBusiness)
	cases := map[string][]string{
		"/api/getTranscription?docId=x":         {"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE"},
		"/api/createTranscription":              {"GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"},
		"/upload/someDoc?expires=1&signature=x": {"GET", "POST", "DELETE", "PATCH", "OPTIONS", "HEAD"},
		"/healthz":                              {"POST", "HEAD"},
		"/metrics":                              {"POST"},
		"/api/openapi.json":                     {"DELETE"},
	}
	allow := map[string]string{
		"/api/getTranscription": "GET", "/api/createTranscription": "POST", "/upload/someDoc": "PUT",
		"/healthz": "GET", "/metrics": "GET", "/api/openapi.json": "GET",
	}
	for path, methods := range cases {
		p, _, _ := strings.Cut(path, "?")
		for _, m := range methods {
			r := e.do(m, path, bearer(key), strings.NewReader(`{"type":"single_voice"}`))
			if r.status != 405 || r.header.Get("Allow") != allow[p] {
				t.Errorf("%s %s: %d Allow %q, want 405 Allow %s", m, p, r.status, r.header.Get("Allow"), allow[p])
				continue
			}
			if m != "HEAD" {
				r.wantError(t, 405, "method_not_allowed")
			}
		}
	}
	// Methods fiber does not know are answered in JSON too.
	e.do("FROB", "/api/getTranscription?docId=x", bearer(key), nil).wantError(t, 405, "method_not_allowed")
	e.do("FROB", "/nowhere", nil, nil).wantError(t, 404, "not_found")
}

func TestUnknownRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, p := range []string{"/", "/api", "/api/", "/api/getTranscription/", "/API/getTranscription", "/api/gettranscription", "/upload", "/upload/", "/upload/a/b", "/v1/api/getTranscription"} {
		msg := e.do("GET", p, nil, nil).wantError(t, 404, "not_found")
		if !strings.Contains(msg, "GET") {
			t.Errorf("%s: message %q", p, msg)
		}
	}
}

func TestPollRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanBusiness)
	_, otherKey := e.account(domain.PlanBusiness)
	id, _ := e.newJob(key)

	// The clock stands at 12:00:45.2.
	for i := 1; i <= domain.PollRateLimit; i++ {
		if r := e.poll(key, id); r.status != 200 {
			t.Fatalf("poll %d: %d %s", i, r.status, r.body)
		}
	}
	r := e.poll(key, id)
	msg := r.wantError(t, 429, "rate_limited")
	if got := r.header.Get("Retry-After"); got != "15" {
		t.Fatalf("Retry-After %q, want 15 (14.8 s to 12:01:00, rounded up)", got)
	}
	if !strings.Contains(msg, "60 requests per minute") {
		t.Fatalf("message %q does not name the limit", msg)
	}
	// Unknown docIds count too: the limit is on requests, not on jobs.
	e.poll(key, "other").wantError(t, 429, "rate_limited")

	// Limits are per API key: another key is unaffected, and so is the
	// same key's create limit.
	if r := e.poll(otherKey, "x"); r.status != 404 {
		t.Fatalf("other key: %d", r.status)
	}
	if r := e.create(key, `{"type":"single_voice"}`); r.status != 200 {
		t.Fatalf("create on a poll-limited key: %d", r.status)
	}

	e.clock.Set(time.Date(2025, 3, 1, 12, 0, 59, 999_000_000, time.UTC))
	if got := e.poll(key, id).header.Get("Retry-After"); got != "1" {
		t.Fatalf("Retry-After at :59.999 = %q, want 1", got)
	}
	// A fixed wall-clock window: at the top of the minute it opens again.
	e.clock.Set(time.Date(2025, 3, 1, 12, 1, 0, 0, time.UTC))
	if r := e.poll(key, id); r.status != 200 {
		t.Fatalf("next minute: %d %s", r.status, r.body)
	}
}

func TestCreateRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *options) { o.cfg.CreateLimit = 3 })
	_, key := e.account(domain.PlanBusiness)
	var id string
	for i := 0; i < 3; i++ {
		id, _ = e.newJob(key)
	}
	r := e.create(key, `{"type":"single_voice"}`)
	msg := r.wantError(t, 429, "rate_limited")
	if r.header.Get("Retry-After") != "15" || !strings.Contains(msg, "3 requests per minute") {
		t.Fatalf("Retry-After %q, message %q", r.header.Get("Retry-After"), msg)
	}
	// Polling has its own counter.
	if r := e.poll(key, id); r.status != 200 {
		t.Fatalf("poll: %d", r.status)
	}
	e.clock.Advance(15 * time.Second)
	if r := e.create(key, `{"type":"single_voice"}`); r.status != 200 {
		t.Fatalf("next minute: %d", r.status)
	}
}

// brokenKeys is a store whose key lookups fail like a broken disk.
type brokenKeys struct{ store }

func (brokenKeys) APIKeyByHash(context.Context, string) (domain.APIKey, domain.Account, error) {
	return domain.APIKey{}, domain.Account{}, errors.New("sqlite: disk I/O error reading /var/lib/hyscribe/hyscribe.db")
}

func TestInternalErrorsSayNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *options) { o.wrapStore = func(s store) store { return brokenKeys{s} } })
	key := "hsk_" + strings.Repeat("B", 40)

	for _, r := range []response{e.poll(key, "x"), e.create(key, `{"type":"single_voice"}`)} {
		if msg := r.wantError(t, 500, "internal"); msg != "internal server error" {
			t.Fatalf("500 message %q", msg)
		}
		if strings.Contains(string(r.body), "sqlite") || strings.Contains(string(r.body), "/var/lib") {
			t.Fatalf("500 body leaks: %s", r.body)
		}
	}
	if !strings.Contains(e.logs.String(), "disk I/O error reading /var/lib/hyscribe/hyscribe.db") {
		t.Fatalf("the log lacks the error chain:\n%s", e.logs.String())
	}
}

// TestAnswersKeepAmpersands: the create answer's uploadUrl has its & as
// it is, not \u0026, so a URL copied from the raw answer works (README).
func TestAnswersKeepAmpersands(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanBusiness)
	r := e.create(key, `{"type":"single_voice","metadata":{"q":"a<b>&c"}}`)
	if r.status != 200 || strings.Contains(string(r.body), `\u0026`) || !strings.Contains(string(r.body), "&") {
		t.Fatalf("create answered %s", r.body)
	}
	id := r.json(t)["docId"].(string)
	if b := string(e.poll(key, id).body); !strings.Contains(b, `"q":"a<b>&c"`) {
		t.Fatalf("poll answered %s", b)
	}
}
