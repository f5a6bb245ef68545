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
	list, resend := app.NewListJobs(w.store, w.store, w.store, w.store, w.store), app.NewResend(w.store, w.store, w.store, w.sender, w.clock, app.NewRateLimit(w.store, w.clock))
	w.updateAccount(p.Account.ID, app.AccountChanges{WebhookURL: ptr("https://down.example/h"), WebhookSecret: ptr("old")})
	w.sender.res = ports.WebhookResult{Status: 503, Err: errors.New("receiver answered 503")}
	done := w.newJob(p, `{"type":"single_voice"}`)
	w.put(done.DocID, "MP3 2 1")
	w.drain()
	w.clock.Add(time.Second)
	waiting := w.newJob(p, `{"type":"single_voice"}`)
	theirs := w.newJob(other, `{"type":"single_voice"}`)

	page, err := list.Handle(w.ctx, app.KeyActor(p), app.ListCommand{Limit: 1})
	if err != nil || len(page.Jobs) != 1 || page.Jobs[0].ID != waiting.DocID || page.Next == "" {
		t.Fatalf("first page %+v %v", page, err)
	}
	if _, err := domain.ParseListCursor(page.Next); err != nil {
		t.Fatal(err)
	}
	page, err = list.Handle(w.ctx, app.KeyActor(p), app.ListCommand{Limit: 1, Cursor: page.Next})
	if err != nil || len(page.Jobs) != 1 || page.Jobs[0].ID != done.DocID || page.Jobs[0].Status != domain.StatusTranscribed {
		t.Fatalf("second page %+v %v", page, err)
	}
	page, _ = list.Handle(w.ctx, app.KeyActor(p), app.ListCommand{Limit: 10, Status: domain.StatusTranscribed})
	if len(page.Jobs) != 1 || page.Next != "" {
		t.Fatalf("transcribed only: %+v", page)
	}
	for _, it := range page.Jobs {
		if it.ID == theirs.DocID {
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
	if _, err := list.Handle(w.ctx, app.KeyActor(free), app.ListCommand{Limit: 1}); !errors.Is(err, domain.ErrForbidden) {
		t.Errorf("free plan list: %v", err)
	}
	// A person of a free account lists its history (any role); a bad
	// cursor is refused before the key's plan is looked at.
	if _, err := list.Handle(w.ctx, app.Actor{Account: free.Account}, app.ListCommand{History: true}); err != nil {
		t.Errorf("a free account's person, history: %v", err)
	}
	for _, c := range []app.ListCommand{{Cursor: "nope"}, {History: true, Cursor: "nope"}} {
		if _, err := list.Handle(w.ctx, app.KeyActor(free), c); !errors.Is(err, domain.ErrValidation) {
			t.Errorf("a bad cursor (history %v): %v, want a validation error", c.History, err)
		}
	}
}
