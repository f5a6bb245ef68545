package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/domain"
)

// transcribeCall drives the job through the state machine to transcribed as a
// phone call with two speakers, its audio stored under audioKey.
func (e *env) transcribeCall(id, audioKey string) {
	e.t.Helper()
	ctx := context.Background()
	if _, err := e.blobs.Put(ctx, audioKey, strings.NewReader("ID3 audio"), 1<<20); err != nil {
		e.t.Fatal(err)
	}
	segs := []domain.Segment{
		{Start: 0.5, End: 2, Text: "Բարեւ ձեզ", Speaker: "1"},
		{Start: 2.25, End: 3.5, Text: "Բարեւ, լսում եմ", Speaker: "2"},
	}
	e.transcribeAs(id, transcript{
		typ: domain.TypePhoneCall, audioKey: audioKey, size: 9,
		audio: domain.AudioInfo{Duration: 3.5, Channels: 2, SampleRate: 16000},
		text:  domain.FormatPhoneCall(segs), segments: segs,
	})
}

func (e *env) export(key, docID, format string) response {
	e.t.Helper()
	return e.do("GET", "/api/exportTranscription?docId="+docID+"&format="+format, bearer(key), nil)
}

func (e *env) deleteJob(key, body string) response {
	e.t.Helper()
	h := bearer(key)
	h["Content-Type"] = "application/json"
	return e.do("POST", "/api/deleteTranscription", h, strings.NewReader(body))
}

func TestExportFormats(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanBusiness)
	id, _ := e.newJob(key)
	e.transcribeCall(id, "audio/"+id+"/a.mp3")

	cases := []struct {
		format, contentType, want string
	}{
		{"srt", "application/x-subrip; charset=utf-8", "1\n00:00:00,500 --> 00:00:02,000\nԽոսնակ 1: Բարեւ ձեզ\n\n2\n00:00:02,250 --> 00:00:03,500\nԽոսնակ 2: Բարեւ, լսում եմ\n\n"},
		{"vtt", "text/vtt; charset=utf-8", "WEBVTT\n\n1\n00:00:00.500 --> 00:00:02.000\n<v Խոսնակ 1>Բարեւ ձեզ\n\n2\n00:00:02.250 --> 00:00:03.500\n<v Խոսնակ 2>Բարեւ, լսում եմ\n\n"},
		{"txt", "text/plain; charset=utf-8", "Խոսնակ 1: Բարեւ ձեզ\nԽոսնակ 2: Բարեւ, լսում եմ\n"},
	}
	for _, c := range cases {
		r := e.export(key, id, c.format)
		if r.status != 200 || string(r.body) != c.want {
			t.Fatalf("%s: %d\n%q\nwant\n%q", c.format, r.status, r.body, c.want)
		}
		if ct := r.header.Get("Content-Type"); ct != c.contentType {
			t.Errorf("%s: Content-Type %q, want %q", c.format, ct, c.contentType)
		}
		if cd := r.header.Get("Content-Disposition"); cd != `attachment; filename="`+id+`.`+c.format+`"` {
			t.Errorf("%s: Content-Disposition %q", c.format, cd)
		}
	}
	r := e.export(key, id, "json")
	var doc struct {
		DocID    string `json:"docId"`
		Segments []struct {
			Start, End float64
			Speaker    *string
			Text       string
		} `json:"segments"`
		Words []struct {
			Start, End float64
			Speaker    *string
			Word       string
		} `json:"words"`
	}
	if err := json.Unmarshal(r.body, &doc); err != nil || r.header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("json export %q (%s): %v", r.body, r.header.Get("Content-Type"), err)
	}
	if doc.DocID != id || len(doc.Segments) != 2 || len(doc.Words) != 5 || *doc.Words[4].Speaker != "Խոսնակ 2" || doc.Words[4].End != 3.5 {
		t.Fatalf("json export %s", r.body)
	}
}

func TestExportErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanBusiness)
	_, otherKey := e.account(domain.PlanBusiness)
	pending, _ := e.newJob(key)
	done, _ := e.newJob(key)
	e.transcribeCall(done, "audio/"+done+"/a.mp3")

	if msg := e.export(key, pending, "srt").wantError(t, 409, "conflict"); !strings.Contains(msg, "transcribed") {
		t.Fatalf("409 message %q does not say what to wait for", msg)
	}
	// Another account's job and a missing one: the same 404, byte for byte.
	theirs := e.export(otherKey, done, "srt")
	theirs.wantError(t, 404, "not_found")
	missing := e.export(otherKey, "nope", "srt")
	if !bytes.Equal(theirs.body, missing.body) {
		t.Fatalf("404 bodies differ: %s / %s", theirs.body, missing.body)
	}
	e.export(key, done, "docx").wantError(t, 400, "invalid_format")
	e.export(key, done, "").wantError(t, 400, "missing_format")
	e.do("GET", "/api/exportTranscription?format=srt", bearer(key), nil).wantError(t, 400, "missing_doc_id")
	e.do("GET", "/api/exportTranscription?docId="+done+"&format=srt", nil, nil).wantError(t, 401, "unauthorized")
	e.do("POST", "/api/exportTranscription?docId="+done+"&format=srt", bearer(key), nil).wantError(t, 405, "method_not_allowed")
}

func TestExportRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanBusiness)
	id, _ := e.newJob(key)
	e.transcribeCall(id, "audio/"+id+"/a.mp3")
	for i := 1; i <= domain.PollRateLimit; i++ {
		if r := e.export(key, id, "txt"); r.status != 200 {
			t.Fatalf("export %d: %d %s", i, r.status, r.body)
		}
	}
	r := e.export(key, id, "txt")
	if msg := r.wantError(t, 429, "rate_limited"); !strings.Contains(msg, "60 requests per minute") || r.header.Get("Retry-After") == "" {
		t.Fatalf("429 %q Retry-After %q", msg, r.header.Get("Retry-After"))
	}
}

func TestDeleteTranscription(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	acct, key := e.account(domain.PlanBusiness)
	_, otherKey := e.account(domain.PlanBusiness)
	id, _ := e.newJob(key)
	audio := "audio/" + id + "/a.mp3"
	e.transcribeCall(id, audio)
	balance := func() int64 {
		a, err := e.store.GetAccount(context.Background(), acct.ID)
		if err != nil {
			t.Fatal(err)
		}
		return a.BalanceMs
	}
	before := balance()

	// Another account cannot delete it, and learns nothing.
	theirs := e.deleteJob(otherKey, `{"docId":"`+id+`"}`)
	theirs.wantError(t, 404, "not_found")
	if missing := e.deleteJob(otherKey, `{"docId":"nope"}`); !bytes.Equal(theirs.body, missing.body) {
		t.Fatalf("404 bodies differ: %s / %s", theirs.body, missing.body)
	}
	if r := e.poll(key, id); r.status != 200 {
		t.Fatalf("a refused delete removed the job: %d", r.status)
	}

	r := e.deleteJob(key, `{"docId":"`+id+`"}`)
	if r.status != 200 || string(r.body) != `{"docId":"`+id+`","deleted":true}` {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	e.poll(key, id).wantError(t, 404, "not_found")
	e.export(key, id, "txt").wantError(t, 404, "not_found")
	if _, err := e.blobs.Open(context.Background(), audio); err == nil {
		t.Fatal("the audio is still in the blob store")
	}
	if balance() != before {
		t.Fatal("deleting a transcribed job changed the balance it had paid")
	}
	// A retried delete answers the same; the tombstone is the owner's only.
	if r2 := e.deleteJob(key, `{"docId":"`+id+`"}`); r2.status != 200 || !bytes.Equal(r2.body, r.body) {
		t.Fatalf("repeated delete: %d %s", r2.status, r2.body)
	}
	e.deleteJob(otherKey, `{"docId":"`+id+`"}`).wantError(t, 404, "not_found")
}

func TestDeleteInPipelineRefunds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	acct, key := e.account(domain.PlanBusiness)
	id, _ := e.newJob(key)
	now := e.clock.Now()
	err := e.store.UpdateJob(context.Background(), domain.DocID(id), func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
		evs, _ := j.ReceiveUpload(now, "audio/x.mp3", 9)
		more, err := j.Measure(now, domain.AudioInfo{Duration: 30, Channels: 1, SampleRate: 16000}, a, 0)
		return append(evs, more...), err
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := e.deleteJob(key, `{"docId":"`+id+`"}`); r.status != 200 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	a, err := e.store.GetAccount(context.Background(), acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a.BalanceMs != acct.BalanceMs {
		t.Fatalf("balance %d ms after deleting a job that reserved 30 s, want %d back", a.BalanceMs, acct.BalanceMs)
	}
}

func TestDeleteBadBodies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanBusiness)
	for body, code := range map[string]string{
		``:               "empty_body",
		`{`:              "invalid_json",
		`[]`:             "invalid_json",
		`{}`:             "missing_doc_id",
		`{"docId":""}`:   "missing_doc_id",
		`{"docId":7}`:    "invalid_doc_id",
		`{"docId":null}`: "missing_doc_id",
	} {
		e.deleteJob(key, body).wantError(t, 400, code)
	}
	e.do("GET", "/api/deleteTranscription", bearer(key), nil).wantError(t, 405, "method_not_allowed")
	e.deleteJob("hsk_wrong", `{"docId":"x"}`).wantError(t, 401, "unauthorized")
}
