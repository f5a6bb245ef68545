package app_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/app/apptest"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// TestRolesInTheUseCases holds the role matrix of docs/webapp.md (Roles)
// in the use cases, whatever page or form asks: a read-only member may not
// name a call's speakers, a QA analyst may; both read a checklist's
// questions; neither may change the account (people, keys, the receiver's
// secret and test event, checklists); the owner may all of it.
func TestRolesInTheUseCases(t *testing.T) {
	st := apptest.NewStore()
	clock := ports.SystemClock{}
	ctx := context.Background()
	a, _, err := app.NewCreateAccount(st, clock).Handle(ctx, "Acme", domain.PlanBusiness, 3600)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := app.NewCreateChecklist(st, st, clock).Handle(ctx, a.ID, domain.RoleOwner, []byte(`{"name":"QA","questions":[{"id":"greet","text":"Did the agent greet?","expect":["բարև"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	person, _, err := app.NewInviteUser(st, clock).Handle(ctx, a.ID, "someone@example.am", domain.RoleMember)
	if err != nil {
		t.Fatal(err)
	}
	call := phoneCall(t, st, a.ID)
	names := map[string]domain.SpeakerName{"1": {Role: domain.SpeakerAgent, Name: "Անի"}, "2": {Role: domain.SpeakerCustomer}}

	hook := "https://example.am/hook"
	if _, err := app.NewUpdateAccount(st).Handle(ctx, a.ID, domain.RoleOwner, app.AccountChanges{WebhookURL: &hook}); err != nil {
		t.Fatal(err)
	}
	limit := app.NewRateLimit(st, clock)
	changes := map[string]func(by domain.Role) error{
		"invite": func(by domain.Role) error {
			_, _, err := app.NewInviteMember(st, limit, clock).Handle(ctx, a.ID, by, "new-"+string(by)+"@example.am", domain.RoleMember)
			return err
		},
		"set a role": func(by domain.Role) error {
			return app.NewSetRole(st, st).Handle(ctx, a.ID, by, person.ID, domain.RoleAnalyst)
		},
		"make a reset link": func(by domain.Role) error {
			_, _, _, err := app.NewResetLink(st, st, clock).Handle(ctx, a.ID, by, person.Email)
			return err
		},
		"create an API key": func(by domain.Role) error {
			_, _, err := app.NewCreateAPIKey(st, clock).Handle(ctx, a.ID, by)
			return err
		},
		"generate the webhook secret": func(by domain.Role) error {
			_, err := app.NewGenerateWebhookSecret(st).Handle(ctx, a.ID, by)
			return err
		},
		"create a checklist": func(by domain.Role) error {
			_, err := app.NewCreateChecklist(st, st, clock).Handle(ctx, a.ID, by, []byte(`{"name":"By `+string(by)+`","questions":[{"id":"q","text":"Q?"}]}`))
			return err
		},
		"change the receiver": func(by domain.Role) error {
			hook := "https://example.am/hook-" + string(by)
			_, err := app.NewUpdateAccount(st).Handle(ctx, a.ID, by, app.AccountChanges{WebhookURL: &hook})
			return err
		},
		"send a test event": func(by domain.Role) error {
			sender := &countingSender{}
			_, err := app.NewSendTestEvent(st, sender, clock).Handle(ctx, a.ID, by)
			if err == nil && sender.n == 0 {
				t.Errorf("a test event by a %q was allowed but not sent", by)
			}
			return err
		},
		"edit a checklist": func(by domain.Role) error {
			_, err := app.NewUpdateChecklist(st, clock).Handle(ctx, a.ID, by, cl.ID, []byte(`{"name":"QA 2","questions":[{"id":"greet","text":"Greeted?"}]}`))
			return err
		},
	}
	for _, by := range []domain.Role{domain.RoleMember, domain.RoleAnalyst, "", "admin"} {
		for what, change := range changes {
			if err := change(by); !errors.Is(err, domain.ErrForbidden) {
				t.Errorf("a %q may %s: %v, want domain.ErrForbidden", by, what, err)
			}
		}
		if err := app.NewArchiveChecklist(st).Handle(ctx, a.ID, by, cl.ID); !errors.Is(err, domain.ErrForbidden) {
			t.Errorf("a %q may archive a checklist: %v", by, err)
		}
		if err := app.NewRemoveMember(st, st).Handle(ctx, a.ID, by, person.ID); !errors.Is(err, domain.ErrForbidden) {
			t.Errorf("a %q may remove a person: %v", by, err)
		}
	}
	if u, _ := st.FindUser(ctx, ports.UserKey{ID: person.ID}); u.Role != domain.RoleMember {
		t.Fatalf("a refused role change was saved: %s", u.Role)
	}
	for what, change := range changes {
		if err := change(domain.RoleOwner); err != nil {
			t.Errorf("the owner may not %s: %v", what, err)
		}
	}
	if u, _ := st.FindUser(ctx, ports.UserKey{ID: person.ID}); u.Role != domain.RoleAnalyst {
		t.Fatalf("the owner made the person an analyst, the store says %s", u.Role)
	}

	// Reading a checklist's questions: every role.
	for _, by := range []domain.Role{domain.RoleMember, domain.RoleAnalyst, domain.RoleOwner} {
		got, err := app.NewShowChecklist(st).Handle(ctx, a.ID, by, cl.ID, 1)
		if err != nil || len(got.Questions) != 1 || got.Questions[0].Text != "Did the agent greet?" {
			t.Errorf("a %s reading the checklist: %+v %v", by, got, err)
		}
	}
	if _, err := app.NewShowChecklist(st).Handle(ctx, a.ID, "", cl.ID, 0); !errors.Is(err, domain.ErrForbidden) {
		t.Errorf("no role reading a checklist: %v", err)
	}

	// Naming speakers re-analyses a call: a member may not, an analyst may.
	name := app.NewNameSpeakers(st, limit)
	if _, err := name.Handle(ctx, a.ID, domain.RoleMember, call, names); !errors.Is(err, domain.ErrForbidden) {
		t.Fatalf("a member naming speakers: %v, want domain.ErrForbidden", err)
	}
	if j, _ := st.GetJob(ctx, call); len(j.Speakers) != 0 {
		t.Fatalf("a member's names were saved: %v", j.Speakers)
	}
	changed, err := name.Handle(ctx, a.ID, domain.RoleAnalyst, call, names)
	if err != nil || !changed {
		t.Fatalf("an analyst naming speakers: changed=%v %v", changed, err)
	}
	if j, _ := st.GetJob(ctx, call); j.Speakers["1"].Name != "Անի" {
		t.Fatalf("the analyst's names were not saved: %v", j.Speakers)
	}
}

// TestRoleMatrix is the domain's side of the matrix.
func TestRoleMatrix(t *testing.T) {
	for _, c := range []struct {
		r                    domain.Role
		valid, manage, names bool
	}{
		{domain.RoleOwner, true, true, true},
		{domain.RoleAnalyst, true, false, true},
		{domain.RoleMember, true, false, false},
		{"", false, false, false},
		{"admin", false, false, false},
	} {
		if c.r.Valid() != c.valid || c.r.MayManage() != c.manage || c.r.MayNameSpeakers() != c.names || c.r.MayReadChecklists() != c.valid {
			t.Errorf("%q: valid %v manage %v names %v reads %v", c.r, c.r.Valid(), c.r.MayManage(), c.r.MayNameSpeakers(), c.r.MayReadChecklists())
		}
	}
}

// phoneCall saves a transcribed two-speaker phone call of account.
func phoneCall(t *testing.T, st *apptest.Store, account domain.AccountID) domain.DocID {
	t.Helper()
	ctx, now := context.Background(), time.Now()
	id := domain.DocID(app.NewID())
	j, evs := domain.NewJob(id, account, domain.CreateRequest{Type: domain.TypePhoneCall}, now, time.Hour)
	if err := st.CreateJob(ctx, j, evs); err != nil {
		t.Fatal(err)
	}
	err := st.UpdateJob(ctx, id, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
		var all []domain.Event
		step := func(evs []domain.Event, err error) {
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, evs...)
		}
		step(j.ReceiveUpload(now, string(id), 100))
		step(j.Measure(now, domain.AudioInfo{Format: "mp3", Duration: 12, Channels: 1, SampleRate: 16000}, a, time.Hour))
		step(j.StartConverting(now))
		step(j.Recognize(now, "բարև ձեզ", []domain.Segment{{Start: 0, End: 2, Text: "բարև ձեզ", Speaker: "1"}, {Start: 2.5, End: 4, Text: "բարև", Speaker: "2"}}))
		step(j.Complete(now, "Զանգ", "ամփոփում", "hy-AM"))
		return all, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestTheRoleMatrixIsDocumented: docs/webapp.md's "Roles" table has a
// column for every role the domain knows, so a new role is documented.
func TestTheRoleMatrixIsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/webapp.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Roles\n")
	if !ok {
		t.Fatal("docs/webapp.md has no Roles section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var header string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "| may |") {
			header = line
		}
	}
	for _, r := range domain.Roles {
		if !strings.Contains(header, string(r)) {
			t.Errorf("the role matrix's header %q has no column for %q", header, r)
		}
	}
}

// countingSender is a ports.WebhookSender that answers 200 and counts.
type countingSender struct{ n int }

func (c *countingSender) Send(context.Context, ports.WebhookRequest) ports.WebhookResult {
	c.n++
	return ports.WebhookResult{Status: 200}
}
