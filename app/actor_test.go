package app_test

import (
	"errors"
	"testing"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// TestTheUseCasesBothDoorsCallApplyTheActorsRules checks the rules each
// door used to apply on its own now live in the one use case: a person
// who is not the owner may not create a job nor resend (the web's page
// checked the role, the use case did not), an account not on the Business
// plan creates nothing whoever asks, an API key on another plan reads
// nothing, and a person reads their account's jobs in any role.
func TestTheUseCasesBothDoorsCallApplyTheActorsRules(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 600)
	free := w.account(domain.PlanFree, 0)
	done := w.newJob(p, `{"type":"single_voice"}`)
	w.put(done.DocID, "MP3 2 1")
	w.drain()
	person := func(acct domain.Account, role domain.Role) app.Actor {
		return app.PersonActor(&app.Visitor{Account: acct, User: domain.User{ID: "u-" + string(role), AccountID: acct.ID, Role: role}})
	}
	resend := app.NewResend(w.store, w.store, w.store, w.sender, w.clock, app.NewRateLimit(w.store, w.clock))
	export := app.NewExportJob(w.store)
	create := app.CreateCommand{Request: domain.CreateRequest{Type: domain.TypeSingleVoice}}

	for _, role := range []domain.Role{domain.RoleMember, domain.RoleAnalyst} {
		if _, _, err := w.create.Handle(w.ctx, person(p.Account, role), create); !errors.Is(err, domain.ErrForbidden) {
			t.Errorf("a %s's CreateJob: %v; want domain.ErrForbidden", role, err)
		}
		if _, err := resend.Handle(w.ctx, person(p.Account, role), app.ResendCommand{DocID: done.DocID, Event: domain.EventTranscriptReady}); !errors.Is(err, domain.ErrForbidden) {
			t.Errorf("a %s's Resend: %v; want domain.ErrForbidden", role, err)
		}
		if _, err := w.get.Handle(w.ctx, person(p.Account, role), app.GetCommand{DocID: done.DocID, Page: true}); err != nil {
			t.Errorf("a %s's GetJob: %v", role, err)
		}
		if _, err := export.Handle(w.ctx, person(p.Account, role), app.ExportCommand{DocID: done.DocID, Format: "txt"}); err != nil {
			t.Errorf("a %s's ExportJob: %v", role, err)
		}
	}
	if _, _, err := w.create.Handle(w.ctx, person(free.Account, domain.RoleOwner), create); !errors.Is(err, domain.ErrForbidden) {
		t.Errorf("the owner of a free account's CreateJob: %v; want domain.ErrForbidden", err)
	}
	if _, _, err := w.create.Handle(w.ctx, person(p.Account, domain.RoleOwner), app.CreateCommand{Request: domain.CreateRequest{Type: "video"}}); !errors.Is(err, domain.ErrValidation) {
		t.Errorf("a form's request of type video: %v; want the API's validation error", err)
	}
	if _, err := w.get.Handle(w.ctx, app.KeyActor(free), app.GetCommand{DocID: done.DocID}); !errors.Is(err, domain.ErrForbidden) {
		t.Errorf("a free account's key's GetJob: %v; want domain.ErrForbidden", err)
	}
	if _, err := export.Handle(w.ctx, app.KeyActor(free), app.ExportCommand{DocID: done.DocID, Format: "txt"}); !errors.Is(err, domain.ErrForbidden) {
		t.Errorf("a free account's key's ExportJob: %v; want domain.ErrForbidden", err)
	}
	if res, _, err := w.create.Handle(w.ctx, person(p.Account, domain.RoleOwner), create); err != nil || res.DocID == "" {
		t.Errorf("the owner's CreateJob: %+v %v", res, err)
	}
}
