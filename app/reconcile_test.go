package app_test

import (
	"errors"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// TestReconcileAfterAReceiverWasDown: the notify stage's delivery fails
// (the receiver is down); List finds the job among the caller's only, and
// Resend sends the same event with the first delivery's webhook-id to the
// receiver in force now, with the current secret. Events never attempted
// are conflicts; another account's job is not found.
func TestReconcileAfterAReceiverWasDown(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 600)
	other := w.account(domain.PlanBusiness, 600)
	list, resend := app.NewListTranscriptions(w.store), app.NewResend(w.store, w.store, w.store, w.sender, w.clock, app.NewRateLimit(w.store, w.clock))
	w.updateAccount(p.Account.ID, app.AccountChanges{WebhookURL: ptr("https://down.example/h"), WebhookSecret: ptr("old")})
	w.sender.res = ports.WebhookResult{Status: 503, Err: errors.New("receiver answered 503")}
	done := w.newJob(p, `{"type":"single_voice"}`)
	w.put(done.DocID, "MP3 2 1")
	w.drain()
	w.clock.Add(time.Second)
	waiting := w.newJob(p, `{"type":"single_voice"}`)
	theirs := w.newJob(other, `{"type":"single_voice"}`)

	page, err := list.Handle(w.ctx, p, domain.ListRequest{Limit: 1})
	if err != nil || len(page.Items) != 1 || page.Items[0].DocID != waiting.DocID || page.NextCursor == nil {
		t.Fatalf("first page %+v %v", page, err)
	}
	c, err := domain.ParseListCursor(*page.NextCursor)
	if err != nil {
		t.Fatal(err)
	}
	page, err = list.Handle(w.ctx, p, domain.ListRequest{Limit: 1, Cursor: c})
	if err != nil || len(page.Items) != 1 || page.Items[0].DocID != done.DocID || page.Items[0].Title == nil {
		t.Fatalf("second page %+v %v", page, err)
	}
	page, _ = list.Handle(w.ctx, p, domain.ListRequest{Limit: 10, Status: domain.StatusTranscribed})
	if len(page.Items) != 1 || page.NextCursor != nil {
		t.Fatalf("transcribed only: %+v", page)
	}
	for _, it := range page.Items {
		if it.DocID == theirs.DocID {
			t.Fatal("another account's job listed")
		}
	}

	first := w.sender.Requests()[0]
	w.updateAccount(p.Account.ID, app.AccountChanges{WebhookURL: ptr("https://up.example/h"), WebhookSecret: ptr("new")})
	w.sender.res = ports.WebhookResult{Status: 200}
	// p still carries the account as it was at authentication: Resend
	// reads the receiver and secret in force now.
	// As the API's resendEvent calls it: the body parsed, then the use case.
	api := func(p app.Principal, body []byte) (domain.ResendResult, error) {
		r, err := domain.ParseResendRequest(body)
		if err != nil {
			return domain.ResendResult{}, err
		}
		d, err := resend.Handle(w.ctx, app.KeyActor(p), app.ResendCommand{DocID: r.DocID, Event: r.Event})
		return domain.NewResendResult(d), err
	}
	res, err := api(p, []byte(`{"docId":"`+string(done.DocID)+`","event":"transcript_ready"}`))
	if err != nil || !res.Delivered || res.WebhookID != first.EventID {
		t.Fatalf("resend %+v %v (first webhook-id %q)", res, err, first.EventID)
	}
	reqs := w.sender.Requests()
	last := reqs[len(reqs)-1]
	if last.URL != "https://up.example/h" || last.Secret != "new" || last.EventID != first.EventID {
		t.Fatalf("resent %+v", last)
	}
	for body, want := range map[string]error{
		`{"docId":"` + string(waiting.DocID) + `","event":"transcript_ready"}`: domain.ErrConflict,
		`{"docId":"` + string(done.DocID) + `","event":"analysis_ready"}`:      domain.ErrConflict,
		`{"docId":"` + string(theirs.DocID) + `","event":"transcript_ready"}`:  domain.ErrNotFound,
		`{"docId":"` + string(done.DocID) + `","event":"nope"}`:                domain.ErrValidation,
	} {
		if _, err := api(p, []byte(body)); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", body, err, want)
		}
	}
	free := w.account(domain.PlanFree, 0)
	if _, err := list.Handle(w.ctx, free, domain.ListRequest{Limit: 1}); !errors.Is(err, domain.ErrForbidden) {
		t.Errorf("free plan list: %v", err)
	}
}
