package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/web"
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

// Naming a call's speakers: any person of the account; refused on a
// recording that is not a call; another account's call is a 404.
func TestNamingSpeakers(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, csrf, acct := s.signUp("owner@example.am")
	call := s.jobOf(acct, domain.CreateRequest{Type: domain.TypePhoneCall}, "Զանգ", []byte("x"))
	voice := s.job(acct, "Թելադրանք", []byte("x"), `{}`)
	member := s.member(acct, "member@example.am")
	form := url.Values{"_csrf": {member["_csrf"]}, "role1": {"agent"}, "name1": {"Անի"}, "role2": {"customer"}}
	if r := s.do("POST", "/app/recordings/"+string(call)+"/speakers", form, member); r.code != 303 {
		t.Fatalf("a member naming the speakers: %d %s", r.code, r.body)
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
