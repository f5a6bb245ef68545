package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// list runs GET /api/listTranscriptions with the query q.
func (e *env) list(key, q string) response {
	e.t.Helper()
	return e.do("GET", "/api/listTranscriptions?"+q, bearer(key), nil)
}

// page reads a 200 of listTranscriptions: the docIds and the next cursor.
func page(t *testing.T, r response) ([]string, string) {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("list: %d %s", r.status, r.body)
	}
	var p struct {
		Items []struct {
			DocID string `json:"docId"`
		} `json:"items"`
		NextCursor *string `json:"nextCursor"`
	}
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(p.Items))
	for i, it := range p.Items {
		ids[i] = it.DocID
	}
	if p.NextCursor == nil {
		return ids, ""
	}
	return ids, *p.NextCursor
}

func TestListTranscriptions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanBusiness)
	_, otherKey := e.account(domain.PlanBusiness)
	var ids []string // oldest first, one second apart
	for range 5 {
		id, _ := e.newJob(key)
		ids = append(ids, id)
		e.newJob(otherKey)
		e.clock.Advance(time.Second)
	}
	e.transcribe(ids[1])
	e.fail(ids[3])
	newestFirst := []string{ids[4], ids[3], ids[2], ids[1], ids[0]}

	got, next := page(t, e.list(key, ""))
	if strings.Join(got, ",") != strings.Join(newestFirst, ",") || next != "" {
		t.Fatalf("list = %v (next %q), want the caller's five jobs newest first %v and no cursor", got, next, newestFirst)
	}
	// Per state, the fields of that state.
	r := e.list(key, "status=transcribed")
	if got, _ := page(t, r); len(got) != 1 || got[0] != ids[1] || !strings.Contains(string(r.body), `"title":"Ողջույն"`) {
		t.Fatalf("status=transcribed: %s", r.body)
	}
	r = e.list(key, "status=failed")
	if got, _ := page(t, r); len(got) != 1 || got[0] != ids[3] || !strings.Contains(string(r.body), `"error":"the file is WAV audio, not MP3"`) {
		t.Fatalf("status=failed: %s", r.body)
	}
	// createdSince is inclusive, createdUntil exclusive; any offset.
	since := start.Add(time.Second).In(time.FixedZone("AMT", 4*3600)).Format(time.RFC3339Nano)
	until := start.Add(3 * time.Second).Format(time.RFC3339Nano)
	if got, _ := page(t, e.list(key, "createdSince="+url.QueryEscape(since)+"&createdUntil="+url.QueryEscape(until))); strings.Join(got, ",") != ids[2]+","+ids[1] {
		t.Fatalf("since %s until %s: %v, want %v", since, until, got, []string{ids[2], ids[1]})
	}

	// Pages of two, with a job created between every two requests: each
	// job once, in order, the new ones (newer than all) never shifting a
	// page.
	var walked []string
	cursor := ""
	for n := 0; ; n++ {
		q := "limit=2"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		got, next := page(t, e.list(key, q))
		walked = append(walked, got...)
		if next == "" {
			break
		}
		if n > 5 {
			t.Fatal("the pages never end")
		}
		e.clock.Advance(time.Second)
		e.newJob(key)
		cursor = next
	}
	if strings.Join(walked, ",") != strings.Join(newestFirst, ",") {
		t.Fatalf("pages walked %v, want %v", walked, newestFirst)
	}

	// Every bad value is a 400 naming it.
	for q, code := range map[string]string{
		"status=done":             "invalid_status",
		"createdSince=yesterday":  "invalid_created_since",
		"createdUntil=2026-13-01": "invalid_created_until",
		"createdSince=2026-01-02T00:00:00Z&createdUntil=2026-01-01T00:00:00Z": "invalid_period",
		"limit=0":          "invalid_limit",
		"limit=101":        "invalid_limit",
		"cursor=abc":       "invalid_cursor",
		"cursor=" + ids[0]: "invalid_cursor",
	} {
		msg := e.list(key, q).wantError(t, 400, code)
		if v, _ := url.ParseQuery(q); !strings.Contains(msg, strings.SplitN(v.Encode(), "=", 2)[0]) && code != "invalid_period" {
			t.Errorf("%s: message %q does not name the parameter", q, msg)
		}
	}
	e.list("hsk_nope", "").wantError(t, 401, "unauthorized")
	_, freeKey := e.account(domain.PlanFree)
	e.list(freeKey, "").wantError(t, 403, "forbidden")
}

// TestListHasItsOwnLimit: 60 lists a minute per key; the 61st is a 429
// with Retry-After, while polling's counter is untouched.
func TestListHasItsOwnLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanBusiness)
	id, _ := e.newJob(key)
	for i := range domain.PollRateLimit {
		if r := e.list(key, ""); r.status != 200 {
			t.Fatalf("list %d: %d %s", i+1, r.status, r.body)
		}
	}
	r := e.list(key, "")
	msg := r.wantError(t, 429, "rate_limited")
	if r.header.Get("Retry-After") != "15" || !strings.Contains(msg, "60") {
		t.Fatalf("429 Retry-After %q, message %q", r.header.Get("Retry-After"), msg)
	}
	if r := e.poll(key, id); r.status != 200 {
		t.Fatalf("a poll after 60 lists: %d %s; lists have their own counter", r.status, r.body)
	}
}

// receiver is a customer's webhook receiver.
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	got  []http.Header
	body [][]byte
}

func newReceiver(t *testing.T, status int) *receiver {
	rc := &receiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got, rc.body = append(rc.got, r.Header.Clone()), append(rc.body, b)
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// delivered records the job's transcript_ready delivery as the notify
// stage does (to a receiver that was down), and points the account's
// receiver at to.
func (e *env) delivered(acct domain.AccountID, id, to string) {
	e.t.Helper()
	ctx := context.Background()
	j := e.job(id)
	body, _ := json.Marshal(domain.NewTranscriptReady(j, "old secret", "https://hyscribe.example"))
	d := domain.Delivery{ID: app.NewID(), EventID: id + "/transcript.ready", DocID: j.ID, AccountID: acct, EventType: domain.EventTranscriptReady,
		URL: "http://127.0.0.1:9/down", Payload: body, Status: domain.DeliveryPending, CreatedAt: e.clock.Now()}
	if first, err := e.store.BeginDelivery(ctx, d); err != nil || !first {
		e.t.Fatalf("begin delivery: %v %v", first, err)
	}
	d.Status, d.Error = domain.DeliveryFailed, "connection refused"
	if err := e.store.FinishDelivery(ctx, d); err != nil {
		e.t.Fatal(err)
	}
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	if _, err := app.NewUpdateAccount(e.store).Handle(ctx, acct, domain.RoleOwner, app.AccountChanges{WebhookURL: &to, WebhookSecret: &secret}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) resend(key, body string) response {
	e.t.Helper()
	h := bearer(key)
	h["Content-Type"] = "application/json"
	return e.do("POST", "/api/resendEvent", h, strings.NewReader(body))
}

func TestResendEvent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	acct, key := e.account(domain.PlanBusiness)
	_, otherKey := e.account(domain.PlanBusiness)
	done, _ := e.newJob(key)
	waiting, _ := e.newJob(key)
	e.transcribe(done)
	rc := newReceiver(t, 200)
	e.delivered(acct.ID, done, rc.URL+"/hooks")

	r := e.resend(key, `{"docId":"`+done+`","event":"transcript_ready"}`)
	if r.status != 200 {
		t.Fatalf("resend: %d %s", r.status, r.body)
	}
	var res domain.ResendResult
	if err := json.Unmarshal(r.body, &res); err != nil {
		t.Fatal(err)
	}
	if !res.Delivered || res.StatusCode == nil || *res.StatusCode != 200 || res.WebhookID != done+"/transcript.ready" || res.Error != nil {
		t.Fatalf("resend answered %s", r.body)
	}
	rc.mu.Lock()
	if len(rc.got) != 1 || rc.got[0].Get("webhook-id") != done+"/transcript.ready" || rc.got[0].Get("webhook-signature") == "" {
		t.Fatalf("the receiver got %d requests, headers %v; want one with the first delivery's webhook-id", len(rc.got), rc.got)
	}
	var ev map[string]any
	_ = json.Unmarshal(rc.body[0], &ev)
	rc.mu.Unlock()
	if ev["docId"] != done || ev["secret"] != "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" {
		t.Fatalf("resent body %v: want the job's event with the current secret", ev)
	}
	if err := schemas().Event(rc.body[0]); err != nil {
		t.Fatal(err)
	}
	// Recorded in the job's log beside the first attempt.
	ds, err := e.store.Deliveries(context.Background(), domain.DocID(done))
	if err != nil || len(ds) != 2 || !ds[1].IsResend() || ds[1].Status != domain.DeliveryDelivered {
		t.Fatalf("deliveries %+v (%v): want the first and the resend", ds, err)
	}

	// A receiver still down: a 200 that says so.
	down := newReceiver(t, 503)
	to := down.URL
	if _, err := app.NewUpdateAccount(e.store).Handle(context.Background(), acct.ID, domain.RoleOwner, app.AccountChanges{WebhookURL: &to}); err != nil {
		t.Fatal(err)
	}
	r = e.resend(key, `{"docId":"`+done+`","event":"transcript_ready"}`)
	if !strings.Contains(string(r.body), `"delivered":false`) || !strings.Contains(string(r.body), `"statusCode":503`) {
		t.Fatalf("resend to a failing receiver: %d %s", r.status, r.body)
	}

	e.resend(key, `{"docId":"`+waiting+`","event":"transcript_ready"}`).wantError(t, 409, "conflict")
	e.resend(key, `{"docId":"`+done+`","event":"analysis_ready"}`).wantError(t, 409, "conflict")
	e.resend(otherKey, `{"docId":"`+done+`","event":"transcript_ready"}`).wantError(t, 404, "not_found")
	e.resend(key, `{"docId":"nope","event":"transcript_ready"}`).wantError(t, 404, "not_found")
	if msg := e.resend(key, `{"docId":"`+done+`","event":"ready"}`).wantError(t, 400, "invalid_event"); !strings.Contains(msg, `"ready"`) {
		t.Fatalf("message %q does not name the bad event", msg)
	}
	e.resend(key, `{"docId":"`+done+`"}`).wantError(t, 400, "missing_event")
	e.resend(key, `[]`).wantError(t, 400, "invalid_json")
}
