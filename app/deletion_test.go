package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// deletingRecognizer deletes the job while its speech is being recognised,
// as a customer's delete request arriving mid-pipeline would.
type deletingRecognizer struct {
	inner  *recognizer
	delete func()
}

func (r *deletingRecognizer) Recognize(ctx context.Context, a ports.AudioFile) (domain.Recognition, error) {
	r.delete()
	return r.inner.Recognize(ctx, a)
}

// deletingAnalyzer deletes the job while its checklist is being analysed.
type deletingAnalyzer struct {
	inner  *analyzer
	delete func()
}

func (a *deletingAnalyzer) Analyze(ctx context.Context, in ports.AnalysisInput, qs []domain.Question) (map[string]domain.QuestionResult, error) {
	a.delete()
	return a.inner.Analyze(ctx, in, qs)
}

func deleteBody(id domain.DocID) []byte { return []byte(`{"docId":"` + string(id) + `"}`) }

func TestDeletingAJobMidRecognitionStopsIt(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	w.updateAccount(p.Account.ID, app.AccountChanges{WebhookURL: ptr("https://hooks.example/h"), WebhookSecret: ptr("s3cret")})
	del := app.NewDeleteJob(w.store, w.blobs, w.clock, nil)
	res := w.newJob(p, `{"type":"single_voice"}`)
	rec := &deletingRecognizer{inner: w.rec, delete: func() {
		if _, err := del.Handle(w.ctx, p, deleteBody(res.DocID)); err != nil {
			t.Errorf("delete: %v", err)
		}
	}}
	tr := app.NewTranscribeAudio(w.store, w.blobs, splitter{}, rec, w.clock, t.TempDir(), nil)
	w.handlers[domain.TopicAudioProcessed] = []func(context.Context, domain.Event) error{tr.Handle}
	w.put(res.DocID, "MP3 12.5 1")
	events := w.drain()

	if _, err := w.store.GetJob(w.ctx, res.DocID); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("the deleted job is back after its stage finished: %v", err)
	}
	if reqs := w.sender.Requests(); len(reqs) != 0 {
		t.Fatalf("a deleted job sent %d webhooks", len(reqs))
	}
	if w.blobs.Len() != 0 {
		t.Fatal("the deleted job's audio is still stored")
	}
	if got := w.balance(p); got != 47500 {
		t.Fatalf("balance %d ms; the 12.5 s of the deleted job went to the speech engine and stay spent (47500 ms)", got)
	}
	last := events[len(events)-1]
	if last.Topic != domain.TopicJobDeleted || last.Type != "job.deleted" {
		t.Fatalf("the last event is %s, want job.deleted", last.ID)
	}
	for _, ev := range events {
		if ev.Topic == domain.TopicTranscriptRecognized || ev.Topic == domain.TopicTranscriptReady {
			t.Fatalf("the deleted job went on to %s", ev.Topic)
		}
	}
	if _, err := w.poll(p, string(res.DocID)); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("poll after delete: %v", err)
	}
}

func TestDeletingAJobMidAnalysisSavesNoAnalysis(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	w.updateAccount(p.Account.ID, app.AccountChanges{WebhookURL: ptr("https://hooks.example/h"), WebhookSecret: ptr("s3cret")})
	c := w.checklist(p, salesChecklist)
	del := app.NewDeleteJob(w.store, w.blobs, w.clock, nil)
	res := w.newJob(p, `{"type":"single_voice","checklistId":"`+c.ID+`"}`)
	an := &deletingAnalyzer{inner: w.analyzer, delete: func() {
		if _, err := del.Handle(w.ctx, p, deleteBody(res.DocID)); err != nil {
			t.Errorf("delete: %v", err)
		}
	}}
	analyze := app.NewAnalyzeTranscript(w.store, w.store, w.store, an, nil, w.clock, nil)
	w.handlers[domain.TopicTranscriptReady] = []func(context.Context, domain.Event) error{analyze.Handle}
	w.put(res.DocID, "MP3 5 1")
	w.drain()
	if _, err := w.store.AnalysisByDoc(w.ctx, res.DocID); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("an analysis was saved for the deleted job: %v", err)
	}
	for _, ev := range w.seen {
		if ev.Topic == domain.TopicAnalysisReady {
			t.Fatal("analysis.ready published for a deleted job")
		}
	}
}

func TestDeleteJobOwnershipAndRepeats(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	other := w.account(domain.PlanBusiness, 60)
	del := app.NewDeleteJob(w.store, w.blobs, w.clock, nil)
	res := w.newJob(p, `{"type":"single_voice"}`)

	if _, err := del.Handle(w.ctx, other, deleteBody(res.DocID)); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another account deleted the job: %v", err)
	}
	w.job(res.DocID) // still there
	for i := 0; i < 2; i++ {
		got, err := del.Handle(w.ctx, p, deleteBody(res.DocID))
		if err != nil || got.DocID != res.DocID || !got.Deleted {
			t.Fatalf("delete %d: %+v %v", i+1, got, err)
		}
	}
	if _, err := del.Handle(w.ctx, other, deleteBody(res.DocID)); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another account learns of the tombstone: %v", err)
	}
	for body, code := range map[string]string{``: "empty_body", `[`: "invalid_json", `{}`: "missing_doc_id", `{"docId":1}`: "invalid_doc_id"} {
		var ve *domain.ValidationError
		if _, err := del.Handle(w.ctx, p, []byte(body)); !errors.As(err, &ve) || ve.Code != code {
			t.Errorf("%q: %v, want %s", body, err, code)
		}
	}
}

func TestRetentionSweeperDeletesOnlyExpiredJobs(t *testing.T) {
	w := newWorld(t)
	keeps := w.account(domain.PlanBusiness, 60)
	expires := w.account(domain.PlanBusiness, 60)
	var old, young, kept domain.DocID
	old = w.newJob(expires, `{"type":"single_voice"}`).DocID
	kept = w.newJob(keeps, `{"type":"single_voice"}`).DocID
	w.clock.Add(5 * 24 * time.Hour)
	young = w.newJob(expires, `{"type":"single_voice"}`).DocID
	w.clock.Add(3 * 24 * time.Hour) // old is 8 days old, young 3
	retention := app.NewSetRetention(w.store)
	if err := retention.Handle(w.ctx, expires.Account.ID, domain.RoleOwner, 7); err != nil {
		t.Fatal(err)
	}
	if err := retention.Handle(w.ctx, expires.Account.ID, domain.RoleOwner, -1); !errors.Is(err, domain.ErrValidation) {
		t.Fatalf("negative retention: %v", err)
	}
	sweeper := app.NewRetentionSweeper(w.store, app.NewDeleteJob(w.store, w.blobs, w.clock, nil), w.clock, nil)
	n, err := sweeper.SweepOnce(w.ctx)
	if err != nil || n != 1 {
		t.Fatalf("swept %d: %v", n, err)
	}
	if _, err := w.store.GetJob(w.ctx, old); !errors.Is(err, domain.ErrNotFound) {
		t.Fatal("the 8-day-old job outlived a 7-day retention")
	}
	w.job(young)
	w.job(kept)
	if tomb, err := w.store.GetTombstone(w.ctx, old); err != nil || tomb.Reason != domain.DeletedByRetention {
		t.Fatalf("tombstone %+v %v", tomb, err)
	}
	if n, _ := sweeper.SweepOnce(w.ctx); n != 0 {
		t.Fatalf("a second sweep deleted %d more", n)
	}
}
