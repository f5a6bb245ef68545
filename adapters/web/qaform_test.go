package web_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/web"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// Settings "Calls": owners set the zone and the agent's channel; a zone
// the binary does not know is refused in the page's language; members
// cannot change them. Every page then shows times in the account's zone.
func TestCallsSettingsAndTheAccountsZone(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, csrf, acct := s.signUp("owner@example.am")
	doc := s.job(acct, "Զանգ", []byte("x"), `{}`)
	// A zone's path spellings are refused like an unknown zone.
	for _, zone := range []string{"Mars/Olympus", "./Asia/Yerevan", "././Asia/Yerevan"} {
		if r := s.do("POST", "/app/settings/calls", url.Values{"_csrf": {csrf}, "timeZone": {zone}, "agentChannel": {"left"}}, ck); r.code != 400 || !strings.Contains(r.body, "Անհայտ ժամային գոտի") {
			t.Fatalf("zone %q: %d, want 400 with the Armenian reason", zone, r.code)
		}
	}
	if r := s.do("POST", "/app/settings/calls", url.Values{"_csrf": {csrf}, "timeZone": {"Asia/Tokyo"}, "agentChannel": {"right"}}, ck); r.code != 303 {
		t.Fatalf("saving: %d %s", r.code, r.body)
	}
	a, err := s.store.GetAccount(context.Background(), acct)
	if err != nil || a.TimeZone != "Asia/Tokyo" || a.AgentChannel != domain.ChannelRight {
		t.Fatalf("saved: %+v %v", a, err)
	}
	page := s.do("GET", "/app/recordings/"+string(doc), nil, ck).body
	if !strings.Contains(page, " JST") {
		t.Fatal("the recording's times are not in the account's zone (Tokyo)")
	}
	if settings := s.do("GET", "/app/settings", nil, ck).body; !strings.Contains(settings, `<option value="Asia/Tokyo" selected>`) || !strings.Contains(settings, `<option value="right" selected>`) {
		t.Fatal("Settings does not show the saved zone and channel")
	}
	member := s.member(acct, "member@example.am")
	if r := s.do("POST", "/app/settings/calls", url.Values{"_csrf": {member["_csrf"]}, "timeZone": {"UTC"}}, member); r.code != 403 {
		t.Fatalf("a member changing the zone: %d", r.code)
	}
}

// Naming a call's speakers: the owner, not a read-only member (the use case
// refuses, the page offers no form); refused on a recording that is not a
// call; another account's call is a 404.
func TestNamingSpeakers(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, csrf, acct := s.signUp("owner@example.am")
	call := s.jobOf(acct, domain.CreateRequest{Type: domain.TypePhoneCall}, "Զանգ", []byte("x"))
	voice := s.job(acct, "Թելադրանք", []byte("x"), `{}`)
	member := s.member(acct, "member@example.am")
	form := url.Values{"_csrf": {member["_csrf"]}, "role1": {"agent"}, "name1": {"Անի"}, "role2": {"customer"}}
	if r := s.do("POST", "/app/recordings/"+string(call)+"/speakers", form, member); r.code != 403 || !strings.Contains(r.body, "սեփականատերը") {
		t.Fatalf("a member naming the speakers: %d %.300s", r.code, r.body)
	}
	if j, _ := s.store.GetJob(context.Background(), call); len(j.Speakers) != 0 {
		t.Fatalf("a member's naming was saved: %v", j.Speakers)
	}
	form.Set("_csrf", csrf)
	if r := s.do("POST", "/app/recordings/"+string(call)+"/speakers", form, ck); r.code != 303 {
		t.Fatalf("the owner naming the speakers: %d %s", r.code, r.body)
	}
	j, err := s.store.GetJob(context.Background(), call)
	if err != nil || j.Speakers["1"] != (domain.SpeakerName{Role: domain.SpeakerAgent, Name: "Անի"}) || j.Speakers["2"].Role != domain.SpeakerCustomer {
		t.Fatalf("saved speakers: %v %v", j.Speakers, err)
	}
	form.Set("_csrf", csrf)
	form.Set("role2", "agent")
	if r := s.do("POST", "/app/recordings/"+string(call)+"/speakers", form, ck); r.code != 400 || !strings.Contains(r.body, "նույն դերը") {
		t.Fatalf("two agents: %d", r.code)
	}
	form.Set("role2", "")
	if r := s.do("POST", "/app/recordings/"+string(voice)+"/speakers", form, ck); r.code != 400 || !strings.Contains(r.body, "միայն հեռախոսազանգում") {
		t.Fatalf("a single-voice recording: %d", r.code)
	}
	other, otherCSRF, _ := s.signUp("other@example.am")
	form.Set("_csrf", otherCSRF)
	if r := s.do("POST", "/app/recordings/"+string(call)+"/speakers", form, other); r.code != 404 {
		t.Fatalf("another account's call: %d", r.code)
	}
}

// TestRoleChangesAreBoundedPerCall swaps a call's roles past
// app.RoleChangesPerCall in a minute: the next swap is refused with 429
// and a message naming the bound, and saves nothing. Saving the same roles
// again (a name only) changes no role and is never refused.
func TestRoleChangesAreBoundedPerCall(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, csrf, acct := s.signUp("owner@example.am")
	call := s.jobOf(acct, domain.CreateRequest{Type: domain.TypePhoneCall}, "Զանգ", []byte("x"))
	path := "/app/recordings/" + string(call) + "/speakers"
	roles := [2]string{"agent", "customer"}
	name := func(i int) resp {
		return s.do("POST", path, url.Values{"_csrf": {csrf}, "role1": {roles[i%2]}, "role2": {roles[(i+1)%2]}, "name1": {fmt.Sprint("Անի ", i)}}, ck)
	}
	// The wall-clock minute may turn during the swaps: then up to twice the
	// bound pass, never more.
	refused := -1
	for i := 0; i < 2*app.RoleChangesPerCall+1 && refused < 0; i++ {
		if r := name(i); r.code == 429 {
			refused = i
			if !strings.Contains(r.body, fmt.Sprint(app.RoleChangesPerCall)) || !strings.Contains(r.body, "րոպե") {
				t.Errorf("the refusal does not name the bound: %.400s", r.body)
			}
		} else if r.code != 303 {
			t.Fatalf("swap %d: %d %.300s", i, r.code, r.body)
		}
	}
	if refused < app.RoleChangesPerCall {
		t.Fatalf("role swaps refused at swap %d, want none refused before %d and one refused by %d", refused, app.RoleChangesPerCall, 2*app.RoleChangesPerCall)
	}
	j, _ := s.store.GetJob(context.Background(), call)
	if got := j.Speakers["1"].Name; got != fmt.Sprint("Անի ", refused-1) {
		t.Errorf("the refused swap saved something: speaker 1 is %q", got)
	}
	// The roles as they are, with another name: no role changes, no bound.
	keep := j.Speakers["1"].Role
	other := domain.SpeakerCustomer
	if keep == domain.SpeakerCustomer {
		other = domain.SpeakerAgent
	}
	for i := range 5 {
		r := s.do("POST", path, url.Values{"_csrf": {csrf}, "role1": {string(keep)}, "role2": {string(other)}, "name1": {fmt.Sprint("Ani ", i)}}, ck)
		if r.code != 303 {
			t.Fatalf("renaming without a role change %d: %d %.300s", i, r.code, r.body)
		}
	}
}

// TestRoleChangesAreBoundedPerAccount gives the speakers of more calls
// than app.RoleChangesPerAccount their roles in a minute, one change each:
// the account's bound refuses one with a message naming it.
func TestRoleChangesAreBoundedPerAccount(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, csrf, acct := s.signUp("owner@example.am")
	refused := -1
	for i := 0; i < 2*app.RoleChangesPerAccount+1 && refused < 0; i++ {
		call := s.jobOf(acct, domain.CreateRequest{Type: domain.TypePhoneCall}, "Զանգ", []byte("x"))
		r := s.do("POST", "/app/recordings/"+string(call)+"/speakers", url.Values{"_csrf": {csrf}, "role1": {"agent"}, "role2": {"customer"}}, ck)
		switch r.code {
		case 429:
			refused = i
			if !strings.Contains(r.body, fmt.Sprint(app.RoleChangesPerAccount)) {
				t.Errorf("the refusal does not name the bound: %.400s", r.body)
			}
		case 303:
		default:
			t.Fatalf("call %d: %d %.300s", i, r.code, r.body)
		}
	}
	if refused < app.RoleChangesPerAccount {
		t.Errorf("role changes refused at call %d, want none before %d and one by %d", refused, app.RoleChangesPerAccount, 2*app.RoleChangesPerAccount)
	}
}
