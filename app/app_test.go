package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

func TestSingleVoiceJobRunsThroughEveryStage(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	w.updateAccount(p.Account.ID, app.AccountChanges{WebhookURL: ptr("https://hooks.example/h"), WebhookSecret: ptr("s3cret")})
	res := w.newJob(p, `{"type":"single_voice","metadata":{"crm":"A-1"}}`)
	if !strings.Contains(res.UploadURL, string(res.DocID)) || len(res.DocID) < 22 {
		t.Fatalf("create result %+v", res)
	}
	w.put(res.DocID, "MP3 12.5 1")
	w.drain()
	j := w.job(res.DocID)
	if j.Status != domain.StatusTranscribed || j.Transcription != "Բարև ձեզ։ Ես զանգում եմ պատվերի մասին։" || !strings.HasPrefix(j.Title, "Վերնագիր") || j.LanguageCode != "hy-AM" {
		t.Fatalf("job %+v", j)
	}
	if got := w.balance(p); got != 60000-12500 {
		t.Fatalf("balance %d", got)
	}
	reqs := w.sender.Requests()
	if len(reqs) != 1 || reqs[0].URL != "https://hooks.example/h" || reqs[0].Secret != "s3cret" {
		t.Fatalf("webhooks %+v", reqs)
	}
	var body domain.TranscriptReadyPayload
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil || body.Secret != "s3cret" || body.DocID != res.DocID ||
		string(body.Metadata) != `{"crm":"A-1"}` || body.Link != "http://pub/app/recordings/"+string(res.DocID) {
		t.Fatalf("payload %s %v", reqs[0].Body, err)
	}
	ds, err := w.store.Deliveries(w.ctx, res.DocID)
	if err != nil || len(ds) != 1 || ds[0].Status != domain.DeliveryDelivered || ds[0].HTTPStatus != 200 {
		t.Fatalf("deliveries %+v", ds)
	}
	var statuses []string
	for _, ev := range w.seen {
		if ev.Topic == domain.TopicJobStatus {
			var st domain.JobStatusData
			if err := ev.DecodeData(&st); err != nil {
				t.Fatal(err)
			}
			statuses = append(statuses, string(st.Status))
		}
	}
	if strings.Join(statuses, ",") != "uploading,processing,converting,transcribed" {
		t.Fatalf("status events %v", statuses)
	}
}

func TestEveryStageIgnoresARepeatedEvent(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	w.updateAccount(p.Account.ID, app.AccountChanges{WebhookURL: ptr("https://hooks.example/h")})
	res := w.newJob(p, `{"type":"single_voice"}`)
	w.put(res.DocID, "MP3 5 1")
	events := w.drain()
	before, calls, sent, bal := w.job(res.DocID), w.rec.Calls(), len(w.sender.Requests()), w.balance(p)
	// The premise: the first delivery ran every stage, so the repeat meets
	// work already done (a job stuck early would pass the check below
	// without any stage being idempotent).
	if before.Status != domain.StatusTranscribed || calls == 0 || sent != 1 || bal != 60000-5000 {
		t.Fatalf("first run did not complete: %s, calls %d, sent %d, balance %d", before.Status, calls, sent, bal)
	}
	stages := map[string]bool{}
	for _, ev := range events {
		stages[ev.Topic] = true
	}
	for _, topic := range []string{domain.TopicAudioUploaded, domain.TopicAudioProcessed, domain.TopicTranscriptReady} {
		if !stages[topic] {
			t.Fatalf("no %s event to repeat among %d events", topic, len(events))
		}
	}
	for _, ev := range events { // deliver everything a second time
		for _, h := range w.handlers[ev.Topic] {
			if err := h(w.ctx, ev); err != nil {
				t.Fatalf("repeat of %s: %v", ev.ID, err)
			}
		}
	}
	w.notify.Wait()
	after := w.job(res.DocID)
	if after.UpdatedAt != before.UpdatedAt || after.Status != before.Status || w.rec.Calls() != calls || len(w.sender.Requests()) != sent || w.balance(p) != bal {
		t.Fatalf("a repeat changed something: calls %d→%d, sent %d→%d, balance %d→%d", calls, w.rec.Calls(), sent, len(w.sender.Requests()), bal, w.balance(p))
	}
	if recs, err := w.store.ClaimOutbox(w.ctx, w.clock.Now(), time.Minute, 10); err != nil || len(recs) != 0 {
		t.Fatalf("repeats emitted events: %+v %v", recs, err)
	}
}

func TestStereoPhoneCallIsLabelledByChannel(t *testing.T) {
	w := newWorld(t)
	w.rec.by = map[string]domain.Recognition{
		"left":  {Segments: []domain.Segment{{Start: 0, End: 1.4, Text: "Բարև ձեզ։"}, {Start: 3, End: 4.4, Text: "Շնորհակալություն։"}}},
		"right": {Segments: []domain.Segment{{Start: 1.5, End: 2.9, Text: "Բարև, լսում եմ։"}}},
	}
	p := w.account(domain.PlanBusiness, 60)
	res := w.newJob(p, `{"type":"phone_call"}`)
	w.put(res.DocID, "MP3 6 2")
	w.drain()
	j := w.job(res.DocID)
	want := "Խոսնակ 1: Բարև ձեզ։\nԽոսնակ 2: Բարև, լսում եմ։\nԽոսնակ 1: Շնորհակալություն։"
	if j.Status != domain.StatusTranscribed || j.Transcription != want {
		t.Fatalf("%s %q", j.Status, j.Transcription)
	}
	if j.Segments[1].Speaker != "2" || j.Segments[1].Start != 1.5 {
		t.Fatalf("segments %+v", j.Segments)
	}
}

func TestMonoPhoneCallFailsWithoutInventingSpeakers(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	res := w.newJob(p, `{"type":"phone_call"}`)
	w.put(res.DocID, "MP3 6 1")
	w.drain()
	j := w.job(res.DocID)
	if j.Status != domain.StatusFailed || !strings.Contains(j.Error, "mono") || w.balance(p) != 60000 {
		t.Fatalf("%s %q balance %d", j.Status, j.Error, w.balance(p))
	}
}

func TestBadAudioAndBalanceFailTheJobReadably(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 2)
	wav := w.newJob(p, `{"type":"single_voice"}`)
	w.put(wav.DocID, "RIFF....WAVE")
	long := w.newJob(p, `{"type":"single_voice"}`)
	w.put(long.DocID, "MP3 9 1")
	w.drain()
	if j := w.job(wav.DocID); j.Status != domain.StatusFailed || j.Error != "the file is WAV audio, not MP3; only MP3 is supported" {
		t.Fatalf("wav: %s %q", j.Status, j.Error)
	}
	if j := w.job(long.DocID); j.Status != domain.StatusFailed || j.Error != "recording is 9 s, 2 s remain in the account" || j.Audio != nil {
		t.Fatalf("long: %s %q", j.Status, j.Error)
	}
	if w.balance(p) != 2000 || w.rec.Calls() != 0 {
		t.Fatalf("balance %d calls %d", w.balance(p), w.rec.Calls())
	}
}

func TestSpeechEngineFailures(t *testing.T) {
	t.Run("transient errors are retried by returning them, the job waits in converting", func(t *testing.T) {
		w := newWorld(t)
		w.rec.errs = []error{errors.Join(domain.ErrUnavailable, errors.New("503"))}
		p := w.account(domain.PlanBusiness, 60)
		res := w.newJob(p, `{"type":"single_voice"}`)
		w.put(res.DocID, "MP3 5 1")
		w.handlers[domain.TopicAudioProcessed] = nil
		w.drain()
		ev := processedEvent(t, w, res.DocID)
		if err := w.tr.Handle(w.ctx, ev); !errors.Is(err, domain.ErrUnavailable) {
			t.Fatalf("err %v", err)
		}
		if j := w.job(res.DocID); j.Status != domain.StatusConverting {
			t.Fatal(j.Status)
		}
		if err := w.tr.Handle(w.ctx, ev); err != nil { // the redelivery resumes the converting job
			t.Fatal(err)
		}
		w.handlers[domain.TopicAudioProcessed] = []func(context.Context, domain.Event) error{w.tr.Handle}
		w.drain()
		if j := w.job(res.DocID); j.Status != domain.StatusTranscribed {
			t.Fatal(j.Status)
		}
	})
	t.Run("a permanent error fails the job and refunds", func(t *testing.T) {
		w := newWorld(t)
		w.rec.errs = []error{domain.Permanent(errors.New("no speech engine configured (set HYSCRIBE_ASR_URL)"))}
		p := w.account(domain.PlanBusiness, 60)
		res := w.newJob(p, `{"type":"single_voice"}`)
		w.put(res.DocID, "MP3 5 1")
		w.drain()
		j := w.job(res.DocID)
		if j.Status != domain.StatusFailed || j.Error != "no speech engine configured (set HYSCRIBE_ASR_URL)" || w.balance(p) != 60000 {
			t.Fatalf("%s %q %d", j.Status, j.Error, w.balance(p))
		}
	})
	t.Run("silence: no speech detected", func(t *testing.T) {
		w := newWorld(t)
		w.rec.def = domain.Recognition{Duration: 3}
		p := w.account(domain.PlanBusiness, 60)
		res := w.newJob(p, `{"type":"single_voice"}`)
		w.put(res.DocID, "MP3 3 1")
		w.drain()
		if j := w.job(res.DocID); j.Status != domain.StatusFailed || j.Error != "no speech detected in the recording" {
			t.Fatalf("%s %q", j.Status, j.Error)
		}
	})
	t.Run("a stage giving up fails the job with a readable reason", func(t *testing.T) {
		w := newWorld(t)
		p := w.account(domain.PlanBusiness, 60)
		res := w.newJob(p, `{"type":"single_voice"}`)
		w.put(res.DocID, "MP3 3 1")
		err := domain.SpeechFailed(fmt.Errorf("speech engine unavailable after 4 attempts: 503: %w", domain.ErrUnavailable))
		reason := app.GiveUpReason("transcribe", fmt.Errorf("transcribe: %w", err))
		if !strings.Contains(reason, "speech engine unavailable") {
			t.Fatal(reason)
		}
		if r := app.GiveUpReason("process", errors.New("sqlite: disk I/O error")); strings.Contains(r, "sqlite") {
			t.Fatalf("internal detail leaked: %s", r)
		}
		if err := w.fail.Handle(w.ctx, res.DocID, reason); err != nil {
			t.Fatal(err)
		}
		if err := w.fail.Handle(w.ctx, res.DocID, "again"); err != nil {
			t.Fatal(err)
		}
		if j := w.job(res.DocID); j.Status != domain.StatusFailed || j.Error != reason {
			t.Fatalf("%s %q", j.Status, j.Error)
		}
	})
}

func processedEvent(t *testing.T, w *world, id domain.DocID) domain.Event {
	for _, ev := range w.seen {
		if ev.Topic == domain.TopicAudioProcessed && ev.DocID == id {
			return ev
		}
	}
	t.Fatal("no processed event")
	return domain.Event{}
}

func TestCreateAndPollRules(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	other := w.account(domain.PlanBusiness, 60)
	free := w.account(domain.PlanFree, 60)
	if _, err := w.createBody(free, []byte(`{"type":"single_voice"}`)); !errors.Is(err, domain.ErrForbidden) {
		t.Fatalf("free plan: %v", err)
	}
	if _, err := w.createBody(p, []byte(`{"type":"single_voice","checklistId":"nope"}`)); !errors.Is(err, domain.ErrValidation) {
		t.Fatalf("unknown checklist: %v", err)
	}
	c, err := w.newList.Handle(w.ctx, other.Account.ID, domain.RoleOwner, []byte(`{"name":"QA","questions":[{"id":"q","text":"?"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.createBody(p, []byte(`{"type":"single_voice","checklistId":"`+c.ID+`"}`)); !errors.Is(err, domain.ErrValidation) {
		t.Fatalf("another account's checklist: %v", err)
	}
	if _, err := w.createBody(other, []byte(`{"type":"single_voice","checklistId":"`+c.ID+`"}`)); err != nil {
		t.Fatalf("own checklist: %v", err)
	}
	res := w.newJob(p, `{"type":"phone_call"}`)
	view, err := w.poll(p, string(res.DocID))
	if err != nil || view.Status != domain.StatusUploading {
		t.Fatalf("%+v %v", view, err)
	}
	_, errForeign := w.poll(other, string(res.DocID))
	_, errUnknown := w.poll(other, "does-not-exist")
	if !errors.Is(errForeign, domain.ErrNotFound) || errForeign.Error() != errUnknown.Error() {
		t.Fatalf("foreign %v unknown %v", errForeign, errUnknown)
	}
	if _, err := w.poll(p, ""); !errors.Is(err, domain.ErrValidation) {
		t.Fatalf("missing docId: %v", err)
	}
	if _, err := w.poll(free, string(res.DocID)); !errors.Is(err, domain.ErrForbidden) {
		t.Fatalf("free poll: %v", err)
	}
}

func TestAuthenticate(t *testing.T) {
	w := newWorld(t)
	a, raw, _ := w.accounts.Handle(w.ctx, "acme", domain.PlanBusiness, 1)
	auth := app.NewAuthenticate(w.store, w.clock)
	for _, h := range []string{"", "Basic abc", "Bearer", "Bearer nope", "Bearer hsk_" + strings.Repeat("A", 40), raw} {
		_, err := auth.Handle(w.ctx, h)
		var ae *app.AuthError
		if !errors.Is(err, domain.ErrUnauthorized) || !errors.As(err, &ae) || strings.Contains(err.Error(), "hsk_") {
			t.Errorf("%q: %v", h, err)
		}
	}
	p, err := auth.Handle(w.ctx, "bearer  "+raw)
	if err != nil || p.Account.ID != a.ID {
		t.Fatalf("%v", err)
	}
	keys, _ := w.store.ListAPIKeys(w.ctx, a.ID)
	if keys[0].LastUsedAt == nil {
		t.Fatal("last use not recorded")
	}
	w.store.RevokeAPIKey(w.ctx, a.ID, keys[0].ID, w.clock.Now())
	if _, err := auth.Handle(w.ctx, "Bearer "+raw); err == nil || !strings.Contains(err.Error(), "revoked") {
		t.Fatalf("revoked: %v", err)
	}
}

func TestRateLimitFixedMinutePerKey(t *testing.T) {
	w := newWorld(t)
	rl := app.NewRateLimit(w.store, w.clock) // clock at hh:mm:30
	for i := 0; i < 60; i++ {
		if err := rl.Allow(w.ctx, "poll", "k1", 60); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	w.clock.Add(15*time.Second + 300*time.Millisecond)
	for i := 0; i < 2; i++ { // the second refusal is answered from memory, identically
		err := rl.Allow(w.ctx, "poll", "k1", 60)
		var rle *app.RateLimitError
		if !errors.As(err, &rle) || rle.RetryAfter != 15 || !errors.Is(err, domain.ErrRateLimited) || !strings.Contains(err.Error(), "60 requests per minute") {
			t.Fatalf("61st: %v", err)
		}
	}
	if err := rl.Allow(w.ctx, "poll", "k2", 60); err != nil {
		t.Fatalf("another key: %v", err)
	}
	if err := rl.Allow(w.ctx, "create", "k1", 600); err != nil {
		t.Fatalf("another scope: %v", err)
	}
	w.clock.Add(15 * time.Second) // next minute
	if err := rl.Allow(w.ctx, "poll", "k1", 60); err != nil {
		t.Fatalf("new window: %v", err)
	}
}

func TestReceiveUpload(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	res := w.newJob(p, `{"type":"single_voice"}`)
	up := func(sig, body string, length int64) error {
		return w.upload.Handle(w.ctx, app.UploadRequest{DocID: res.DocID, Expires: w.clock.Now().Add(time.Minute), Signature: sig, Body: strings.NewReader(body), ContentLength: length})
	}
	if err := up("bad", "MP3 1 1", 7); !errors.Is(err, domain.ErrForbidden) {
		t.Fatalf("bad signature: %v", err)
	}
	if err := up("ok", "", 0); !errors.Is(err, domain.ErrValidation) {
		t.Fatalf("empty: %v", err)
	}
	if err := up("ok", "", -1); !errors.Is(err, domain.ErrValidation) {
		t.Fatalf("empty chunked: %v", err)
	}
	if err := up("ok", strings.Repeat("x", 2<<20), -1); !errors.Is(err, domain.ErrTooLarge) {
		t.Fatalf("too large: %v", err)
	}
	if j := w.job(res.DocID); j.Status != domain.StatusUploading || !strings.Contains(j.Error, "larger than") {
		t.Fatalf("after a refused upload the job is %s with reason %q; want uploading, with the refusal's reason", j.Status, j.Error)
	}
	if v, _ := w.poll(p, string(res.DocID)); v.Error != nil {
		t.Fatalf("the API shows an error %q on a job still waiting for its upload", *v.Error)
	}
	if err := up("ok", "MP3 1 1", 7); err != nil {
		t.Fatal(err)
	}
	if err := up("ok", "MP3 2 1", 7); !errors.Is(err, domain.ErrConflict) {
		t.Fatalf("second upload: %v", err)
	}
	if n := w.blobs.Len(); n != 1 {
		t.Fatalf("%d blobs kept, want only the accepted upload", n)
	}
	if j := w.job(res.DocID); j.Error != "" {
		t.Fatalf("the accepted upload left the refusal %q on the job", j.Error)
	}
	late := w.newJob(p, `{"type":"single_voice"}`)
	w.clock.Add(time.Hour)
	err := w.upload.Handle(w.ctx, app.UploadRequest{DocID: late.DocID, Expires: w.clock.Now().Add(time.Minute), Signature: "ok", Body: strings.NewReader("MP3 1 1"), ContentLength: 7})
	if !errors.Is(err, domain.ErrForbidden) {
		t.Fatalf("after the window: %v", err)
	}
}

func TestSweeper(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	waiting := w.newJob(p, `{"type":"single_voice"}`)
	stuck := w.newJob(p, `{"type":"single_voice"}`)
	w.put(stuck.DocID, "MP3 4 1")
	// the uploaded event is lost: nothing drains the outbox
	w.loseOutbox()

	if n, err := w.sweeper.SweepOnce(w.ctx); err != nil || n != 0 {
		t.Fatalf("fresh jobs swept: %d %v", n, err)
	}
	w.clock.Add(time.Hour + time.Second)
	if _, err := w.sweeper.SweepOnce(w.ctx); err != nil {
		t.Fatal(err)
	}
	if j := w.job(waiting.DocID); j.Status != domain.StatusFailed || j.Error != "upload window expired: no audio was uploaded within 1 hour of job creation" {
		t.Fatalf("waiting: %s %q", j.Status, j.Error)
	}
	w.drain() // the re-driven upload event runs the pipeline
	if j := w.job(stuck.DocID); j.Status != domain.StatusTranscribed || j.Redrives != 1 {
		t.Fatalf("stuck: %s redrives %d", j.Status, j.Redrives)
	}

	// a job whose every re-drive is lost is failed after MaxRedrives
	lost := w.newJob(p, `{"type":"single_voice"}`)
	w.put(lost.DocID, "MP3 4 1")
	for i := 0; i <= w.sweeper.MaxRedrives; i++ {
		w.loseOutbox()
		w.clock.Add(w.sweeper.StuckAfter + time.Second)
		if _, err := w.sweeper.SweepOnce(w.ctx); err != nil {
			t.Fatal(err)
		}
	}
	if j := w.job(lost.DocID); j.Status != domain.StatusFailed || !strings.Contains(j.Error, "did not resume after 3 attempts") {
		t.Fatalf("lost: %s %q", j.Status, j.Error)
	}
}

func TestNotifyFailuresOnlyWhenAsked(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	w.updateAccount(p.Account.ID, app.AccountChanges{WebhookURL: ptr("https://h.example/")})
	a := w.newJob(p, `{"type":"single_voice","metadata":{"x":1}}`)
	w.put(a.DocID, "WAV")
	w.drain()
	if n := len(w.sender.Requests()); n != 0 {
		t.Fatalf("failure sent without notifyFailures: %d", n)
	}
	w.updateAccount(p.Account.ID, app.AccountChanges{NotifyFailures: ptr(true)})
	b := w.newJob(p, `{"type":"single_voice","metadata":{"x":2}}`)
	w.put(b.DocID, "WAV")
	w.drain()
	reqs := w.sender.Requests()
	if len(reqs) != 1 {
		t.Fatalf("sent %d", len(reqs))
	}
	var body map[string]any
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["event_type"] != "transcript_failed" || body["docId"] != string(b.DocID) || !strings.Contains(body["error"].(string), "WAV") || len(body) != 6 {
		t.Fatalf("%v", body)
	}
}

func TestFailedDeliveryIsRecordedAndNotRetried(t *testing.T) {
	w := newWorld(t)
	w.sender.res = ports.WebhookResult{Status: 500, Err: errors.New("receiver answered 500 Internal Server Error")}
	p := w.account(domain.PlanBusiness, 60)
	w.updateAccount(p.Account.ID, app.AccountChanges{WebhookURL: ptr("https://h.example/")})
	res := w.newJob(p, `{"type":"single_voice"}`)
	w.put(res.DocID, "MP3 1 1")
	w.drain()
	ds, err := w.store.Deliveries(w.ctx, res.DocID)
	if err != nil || len(ds) != 1 || ds[0].Status != domain.DeliveryFailed || ds[0].HTTPStatus != 500 || len(w.sender.Requests()) != 1 {
		t.Fatalf("%+v", ds)
	}
	if j := w.job(res.DocID); j.Status != domain.StatusTranscribed {
		t.Fatal(j.Status)
	}
}

func TestProvisionValidates(t *testing.T) {
	w := newWorld(t)
	if _, _, err := w.accounts.Handle(w.ctx, "x", "gold", 1); !errors.Is(err, domain.ErrValidation) {
		t.Fatal(err)
	}
	if _, _, err := w.accounts.Handle(w.ctx, "x", domain.PlanBusiness, -1); !errors.Is(err, domain.ErrValidation) {
		t.Fatal(err)
	}
	a, _, _ := w.accounts.Handle(w.ctx, "x", domain.PlanBusiness, 1)
	for _, u := range []string{"ftp://x", "not a url", "http://user:pw@h/", "/relative"} {
		if _, err := w.settings.Handle(w.ctx, a.ID, domain.RoleOwner, app.AccountChanges{WebhookURL: &u}); !errors.Is(err, domain.ErrValidation) {
			t.Errorf("%s: %v", u, err)
		}
	}
	got, err := w.settings.Handle(w.ctx, a.ID, domain.RoleOwner, app.AccountChanges{Seconds: ptr(90.5), WebhookURL: ptr("http://10.0.0.1/h")})
	if err != nil || got.BalanceMs != 90500 || got.WebhookURL != "http://10.0.0.1/h" || got.Name != "x" {
		t.Fatalf("%+v %v", got, err)
	}
}

func ptr[T any](v T) *T { return &v }
