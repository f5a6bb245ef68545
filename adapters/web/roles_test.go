package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/web"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// TestQATeamRoles walks the role matrix of docs/webapp.md through the
// pages: the owner invites a QA analyst and makes a member one; a member
// and an analyst read a checklist's questions (a link in the list, a page
// without the editor) but cannot edit it; the analyst names a call's
// speakers (the form is shown, the change saved), the member is refused
// and shown no form; neither manages people, keys or the secret.
func TestQATeamRoles(t *testing.T) {
	s := newSite(t, web.Config{PublicURL: "http://hyscribe.test"})
	ck, csrf, acct := s.signUp("owner@example.am")
	ctx := context.Background()
	cl, err := app.NewCreateChecklist(s.store, s.store, ports.SystemClock{}).Handle(ctx, acct, domain.RoleOwner, []byte(`{"name":"Որակ","questions":[{"id":"greet","text":"Օպերատորը բարևե՞ց","expect":["բարև"],"role":"agent"}]}`))
	if err != nil {
		t.Fatal(err)
	}

	// The team page offers the analyst role, to invite and to set.
	team := s.do("GET", "/app/team", nil, en(ck))
	if !strings.Contains(team.body, `<option value="analyst">QA analyst</option>`) || !strings.Contains(team.body, `id="roles-note"`) {
		t.Fatalf("the team page offers no QA analyst role:\n%s", team.body)
	}
	r := s.do("POST", "/app/team/invite", url.Values{"_csrf": {csrf}, "email": {"qa@example.am"}, "role": {"analyst"}}, ck)
	if r.code != 200 || !linkRe.MatchString(r.body) {
		t.Fatalf("inviting an analyst: %d", r.code)
	}
	if u, _ := s.store.FindUser(ctx, userKey("qa@example.am")); u.Role != domain.RoleAnalyst {
		t.Fatalf("the invited person's role: %q", u.Role)
	}
	member := s.member(acct, "member@example.am")
	analyst := s.member(acct, "analyst@example.am")
	a, _ := s.store.FindUser(ctx, userKey("analyst@example.am"))
	if r := s.do("POST", "/app/team/"+a.ID+"/role", url.Values{"_csrf": {csrf}, "role": {"analyst"}}, ck); r.code != 303 {
		t.Fatalf("making a member an analyst: %d %s", r.code, r.body)
	}
	if r := s.do("GET", "/app/team", nil, en(analyst)); !strings.Contains(r.body, "QA analyst") || strings.Contains(r.body, `id="invite-email"`) {
		t.Fatalf("the analyst's team page: role not named or the invitation form shown")
	}

	for who, p := range map[string]map[string]string{"member": member, "analyst": analyst} {
		list := s.do("GET", "/app/checklists", nil, en(p))
		if !strings.Contains(list.body, `href="/app/checklists/`+cl.ID+`" class="read-checklist">Questions</a>`) || strings.Contains(list.body, "/archive") {
			t.Errorf("the %s's checklist list: no link to the questions, or an archive button:\n%s", who, list.body)
		}
		page := s.do("GET", "/app/checklists/"+cl.ID, nil, p)
		if page.code != 200 || !strings.Contains(page.body, "Օպերատորը բարևե՞ց") || !strings.Contains(page.body, "բարև") || strings.Contains(page.body, `id="checklist-form"`) {
			t.Errorf("the %s reading the checklist: %d\n%s", who, page.code, page.body)
		}
		def := url.Values{"_csrf": {p["_csrf"]}, "name": {"x"}, "q_text": {"y"}, "version": {"1"}, "action": {"save"}}
		if r := s.do("POST", "/app/checklists/"+cl.ID, def, p); r.code != 403 {
			t.Errorf("the %s editing the checklist: %d", who, r.code)
		}
		for _, path := range []string{"/app/team/invite", "/app/team/" + a.ID + "/role", "/app/settings/keys", "/app/settings/secret", "/app/settings/test-event"} {
			f := url.Values{"_csrf": {p["_csrf"]}, "email": {"x@example.am"}, "role": {"owner"}}
			if r := s.do("POST", path, f, p); r.code != 403 {
				t.Errorf("the %s posting %s: %d", who, path, r.code)
			}
		}
	}
	if u, _ := s.store.FindUser(ctx, userKey("analyst@example.am")); u.Role != domain.RoleAnalyst {
		t.Fatalf("the analyst made themself %q", u.Role)
	}
	// The owner still edits.
	if page := s.do("GET", "/app/checklists/"+cl.ID, nil, ck); !strings.Contains(page.body, `id="checklist-form"`) {
		t.Fatalf("the owner's checklist page has no editor")
	}

	// Naming speakers: the analyst may, the member may not.
	call := s.jobOf(acct, domain.CreateRequest{Type: domain.TypePhoneCall}, "Զանգ", []byte("x"))
	err = s.store.UpdateJob(ctx, call, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
		j.Segments[0].Speaker, j.Segments[1].Speaker = "1", "2"
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	path := "/app/recordings/" + string(call)
	if r := s.do("GET", path, nil, member); strings.Contains(r.body, `action="`+path+`/speakers`) || !strings.Contains(r.body, `id="speakers-owneronly"`) {
		t.Error("a member is shown the speakers' form")
	}
	if r := s.do("GET", path, nil, analyst); !strings.Contains(r.body, `action="`+path+`/speakers`) {
		t.Error("an analyst is not shown the speakers' form")
	}
	form := url.Values{"_csrf": {member["_csrf"]}, "role1": {"agent"}, "name1": {"Անի"}, "role2": {"customer"}}
	if r := s.do("POST", path+"/speakers", form, member); r.code != 403 {
		t.Fatalf("a member naming speakers: %d", r.code)
	}
	form.Set("_csrf", analyst["_csrf"])
	if r := s.do("POST", path+"/speakers", form, analyst); r.code != 303 {
		t.Fatalf("an analyst naming speakers: %d %.300s", r.code, r.body)
	}
	if j, _ := s.store.GetJob(ctx, call); j.Speakers["1"].Name != "Անի" {
		t.Fatalf("the analyst's names: %v", j.Speakers)
	}
}
