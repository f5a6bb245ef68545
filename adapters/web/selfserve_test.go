package web_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/web"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

func (s *site) business(acct domain.AccountID) {
	s.t.Helper()
	err := s.store.UpdateAccount(context.Background(), acct, func(a *domain.Account) error {
		a.Plan, a.BalanceMs = domain.PlanBusiness, 3600_000
		return nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
}

// newRecording is one file of the upload form, as upload.js sends it.
func newRecording(csrf string, file []byte, extra ...string) url.Values {
	head := file[:min(len(file), 16<<10)]
	f := url.Values{"_csrf": {csrf}, "type": {"phone_call"}, "size": {strconv.Itoa(len(file))}, "head": {base64.StdEncoding.EncodeToString(head)}}
	for i := 0; i+1 < len(extra); i += 2 {
		f.Set(extra[i], extra[i+1])
	}
	return f
}

func decode(t *testing.T, r resp) map[string]string {
	t.Helper()
	var m map[string]string
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("%d %q is not a JSON object: %v", r.code, r.body, err)
	}
	return m
}

// The upload form creates jobs through the API's use case: same plan rule,
// same validation, a signed upload address; a file that is not MP3 is
// refused before any job exists, with the process stage's own reason.
func TestNewRecordingFormCreatesJobsLikeTheAPI(t *testing.T) {
	s := newSite(t, web.Config{PublicURL: "http://hyscribe.test"})
	ck, csrf, acct := s.signUp("owner@example.am")
	mp3, err := os.ReadFile("../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	count := func() int {
		_, n, err := s.store.ListJobs(context.Background(), ports.JobQuery{Account: acct})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Free plan: refused as the API refuses, in the page's language.
	r := s.do("POST", "/app/recordings/new", newRecording(csrf, mp3), ck)
	if m := decode(t, r); r.code != 403 || m["code"] != "not_business" || !strings.Contains(m["error"], "Business") || count() != 0 {
		t.Fatalf("free plan: %d %v, %d jobs", r.code, m, count())
	}
	s.business(acct)

	wav := append([]byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00"), make([]byte, 200)...)
	r = s.do("POST", "/app/recordings/new", newRecording(csrf, wav), en(ck))
	if m := decode(t, r); r.code != 422 || m["error"] != "Only MP3 is accepted: the file is WAV audio, not MP3; only MP3 is supported" || count() != 0 {
		t.Fatalf("a WAV file: %d %v, %d jobs; want the process stage's reason and no job", r.code, m, count())
	}
	r = s.do("POST", "/app/recordings/new", newRecording(csrf, wav), ck)
	if m := decode(t, r); r.code != 422 || m["code"] != "not_mp3" || m["error"] != "Ֆայլը WAV է, ոչ MP3․ ընդունվում է միայն MP3։" {
		t.Fatalf("a WAV file on an Armenian page: %d %v; want the sentence of its code in Armenian", r.code, m)
	}
	r = s.do("POST", "/app/recordings/new", newRecording(csrf, mp3, "checklistId", "nope"), ck)
	if m := decode(t, r); r.code != 400 || m["code"] != "unknown_checklist" || count() != 0 {
		t.Fatalf("unknown checklist: %d %v", r.code, m)
	}
	r = s.do("POST", "/app/recordings/new", newRecording("wrong", mp3), ck)
	if r.code != 403 || count() != 0 {
		t.Fatalf("without the CSRF token: %d", r.code)
	}

	r = s.do("POST", "/app/recordings/new", newRecording(csrf, mp3, "metadata", "crmId = B-77\nagent: Անի"), ck)
	m := decode(t, r)
	if r.code != 200 || m["docId"] == "" || !strings.HasPrefix(m["uploadUrl"], "http://hyscribe.test/upload/"+m["docId"]+"?expires=") {
		t.Fatalf("create: %d %v", r.code, m)
	}
	j, err := s.store.GetJob(context.Background(), domain.DocID(m["docId"]))
	if err != nil || j.AccountID != acct || j.Type != domain.TypePhoneCall || j.Status != domain.StatusUploading || string(j.Metadata) != `{"agent":"Անի","crmId":"B-77"}` {
		t.Fatalf("the job: %+v %v", j, err)
	}

	// Members read; they do not send recordings.
	memberCk := s.member(acct, "member@example.am")
	if r := s.do("POST", "/app/recordings/new", newRecording(memberCk["_csrf"], mp3), memberCk); r.code != 403 {
		t.Fatalf("a member's upload: %d", r.code)
	}
	page := s.do("GET", "/app/recordings", nil, memberCk)
	if strings.Contains(page.body, `id="upload-form"`) {
		t.Error("a member is offered the upload form")
	}
	page = s.do("GET", "/app/recordings", nil, ck)
	if !strings.Contains(page.body, `id="upload-form"`) || !strings.Contains(page.body, `src="/app/static/upload.js"`) {
		t.Error("the owner's history has no upload form")
	}
}

// member adds a signed-in member to acct; the map holds their cookie and,
// under "_csrf", their form token.
func (s *site) member(acct domain.AccountID, email string) map[string]string {
	s.t.Helper()
	return s.person(acct, email, domain.RoleMember)
}

// person is member with another role.
func (s *site) person(acct domain.AccountID, email string, role domain.Role) map[string]string {
	s.t.Helper()
	ctx := context.Background()
	if _, err := app.NewCreateUser(s.store, s.hasher, ports.SystemClock{}).Handle(ctx, acct, email, "member password 1", role); err != nil {
		s.t.Fatal(err)
	}
	in, err := s.uc.Commands.SignIn.Handle(ctx, email, "member password 1", "10.0.0.9")
	if err != nil {
		s.t.Fatal(err)
	}
	return map[string]string{"hyscribe_session": in.Token, "_csrf": in.Session.CSRF}
}

var linkRe = regexp.MustCompile(`<p class="key" id="one-time-link">([^<]+)</p>`)

// Owners invite with a one-time link shown to copy; the invitation page
// names the organisation; roles change; the last owner stays; a removed
// person is signed out.
func TestTeamPage(t *testing.T) {
	s := newSite(t, web.Config{PublicURL: "http://hyscribe.test"})
	ck, csrf, acct := s.signUp("owner@example.am")
	r := s.do("POST", "/app/team/invite", url.Values{"_csrf": {csrf}, "email": {"New.Person@example.am"}, "role": {"member"}}, ck)
	got := linkRe.FindStringSubmatch(r.body)
	if r.code != 200 || got == nil || !strings.HasPrefix(got[1], "http://hyscribe.test/app/invite/") {
		t.Fatalf("invite: %d, link %v", r.code, got)
	}
	inv := s.do("GET", strings.TrimPrefix(got[1], "http://hyscribe.test"), nil, nil)
	if inv.code != 200 || !strings.Contains(inv.body, "Org owner@example.am") || !strings.Contains(inv.body, "new.person@example.am") {
		t.Fatalf("the invitation page does not name the organisation: %d", inv.code)
	}
	if r := s.do("GET", "/app/team", nil, ck); strings.Contains(r.body, got[1]) || !strings.Contains(r.body, "new.person@example.am") {
		t.Fatal("the team page must list the invited person but never show the link again")
	}
	again := s.do("POST", "/app/team/invite", url.Values{"_csrf": {csrf}, "email": {"new.person@example.am"}, "role": {"member"}}, en(ck))
	if again.code != 400 || !strings.Contains(again.body, "This email is already in this team.") {
		t.Fatalf("inviting an email already in the team: %d", again.code)
	}

	owner, _ := s.store.FindUser(context.Background(), userKey("owner@example.am"))
	if r := s.do("POST", "/app/team/"+owner.ID+"/role", url.Values{"_csrf": {csrf}, "role": {"member"}}, en(ck)); r.code != 400 || !strings.Contains(r.body, "at least one owner") {
		t.Fatalf("demoting the last owner: %d", r.code)
	}
	memberCk := s.member(acct, "m@example.am")
	m, _ := s.store.FindUser(context.Background(), userKey("m@example.am"))
	if r := s.do("POST", "/app/team/"+m.ID+"/role", url.Values{"_csrf": {memberCk["_csrf"]}, "role": {"owner"}}, memberCk); r.code != 403 {
		t.Fatalf("a member changing roles: %d", r.code)
	}
	if r := s.do("POST", "/app/team/"+m.ID+"/role", url.Values{"_csrf": {csrf}, "role": {"owner"}}, ck); r.code != 303 {
		t.Fatalf("promote: %d %s", r.code, r.body)
	}
	if u, _ := s.store.FindUser(context.Background(), userKey("m@example.am")); u.Role != domain.RoleOwner {
		t.Fatalf("role after promotion: %s", u.Role)
	}
	// Another account's person is the 404 page.
	otherCk, otherCSRF, _ := s.signUp("other@example.am")
	if r := s.do("POST", "/app/team/"+m.ID+"/remove", url.Values{"_csrf": {otherCSRF}}, otherCk); r.code != 404 {
		t.Fatalf("removing another account's person: %d", r.code)
	}
	if r := s.do("POST", "/app/team/"+m.ID+"/remove", url.Values{"_csrf": {csrf}}, ck); r.code != 303 {
		t.Fatalf("remove: %d", r.code)
	}
	if r := s.do("GET", "/app/recordings", nil, memberCk); r.code != 303 {
		t.Fatalf("a removed person's session still works: %d", r.code)
	}
}

func userKey(email string) ports.UserKey { return ports.UserKey{Email: email} }

// Changing a password needs the current one and signs out every other
// session; a reset link works once and signs out everywhere.
func TestPasswordChangeAndResetLink(t *testing.T) {
	s := newSite(t, web.Config{PublicURL: "http://hyscribe.test"})
	ck, csrf, acct := s.signUp("owner@example.am")
	ctx := context.Background()
	elsewhere, err := s.uc.Commands.SignIn.Handle(ctx, "owner@example.am", "a long enough password", "10.0.0.2")
	if err != nil {
		t.Fatal(err)
	}
	other := map[string]string{"hyscribe_session": elsewhere.Token}
	// The repetition must match, and a new password must be new (issue 27).
	mismatch := s.do("POST", "/app/password", url.Values{"_csrf": {csrf}, "current": {"a long enough password"}, "password": {"a brand new password"}, "confirm": {"a brand new passwork"}}, en(ck))
	if mismatch.code != 400 || !strings.Contains(mismatch.body, "The new password and its repetition differ.") {
		t.Fatalf("a mistyped repetition: %d", mismatch.code)
	}
	same := s.do("POST", "/app/password", url.Values{"_csrf": {csrf}, "current": {"a long enough password"}, "password": {"a long enough password"}, "confirm": {"a long enough password"}}, en(ck))
	if same.code != 400 || !strings.Contains(same.body, "The new password is the same as the current one") {
		t.Fatalf("the same password again: %d", same.code)
	}
	wrong := s.do("POST", "/app/password", url.Values{"_csrf": {csrf}, "current": {"not the password"}, "password": {"a brand new password"}, "confirm": {"a brand new password"}}, en(ck))
	if wrong.code != 400 || !strings.Contains(wrong.body, "The current password is wrong.") {
		t.Fatalf("wrong current password: %d", wrong.code)
	}
	if r := s.do("GET", "/app/recordings", nil, other); r.code != 200 {
		t.Fatal("a refused change signed the other session out")
	}
	ok := s.do("POST", "/app/password", url.Values{"_csrf": {csrf}, "current": {"a long enough password"}, "password": {"a brand new password"}, "confirm": {"a brand new password"}}, ck)
	if ok.code != 303 {
		t.Fatalf("change: %d", ok.code)
	}
	if r := s.do("GET", "/app/recordings", nil, ck); r.code != 200 {
		t.Fatal("this session was signed out by its own change")
	}
	if r := s.do("GET", "/app/recordings", nil, other); r.code != 303 {
		t.Fatal("the other session survived the password change")
	}
	if _, err := s.uc.Commands.SignIn.Handle(ctx, "owner@example.am", "a brand new password", "10.0.0.3"); err != nil {
		t.Fatalf("sign in with the new password: %v", err)
	}

	// A reset link for a member, made by the owner.
	memberCk := s.member(acct, "m@example.am")
	m, _ := s.store.FindUser(ctx, userKey("m@example.am"))
	r := s.do("POST", "/app/team/"+m.ID+"/reset", url.Values{"_csrf": {csrf}}, ck)
	got := linkRe.FindStringSubmatch(r.body)
	if r.code != 200 || got == nil || !strings.HasPrefix(got[1], "http://hyscribe.test/app/reset/") {
		t.Fatalf("reset link: %d %v", r.code, got)
	}
	path := strings.TrimPrefix(got[1], "http://hyscribe.test")
	page := s.do("GET", path, nil, nil)
	anon := map[string]string{"hyscribe_csrf": strings.Repeat("c", 40)}
	if page.code != 200 || !strings.Contains(page.body, "m@example.am") {
		t.Fatalf("reset page: %d", page.code)
	}
	set := s.do("POST", path, url.Values{"_csrf": {anon["hyscribe_csrf"]}, "password": {"member's new password"}}, anon)
	if set.code != 303 || !strings.Contains(set.header.Get("Set-Cookie"), "hyscribe_session=") {
		t.Fatalf("reset: %d %v", set.code, set.header)
	}
	if r := s.do("GET", "/app/recordings", nil, memberCk); r.code != 303 {
		t.Fatal("the member's old session survived the reset")
	}
	if again := s.do("POST", path, url.Values{"_csrf": {anon["hyscribe_csrf"]}, "password": {"yet another password"}}, anon); again.code != 404 {
		t.Fatalf("a reset link used twice: %d", again.code)
	}
	if _, err := s.uc.Commands.SignIn.Handle(ctx, "m@example.am", "member's new password", "10.0.0.4"); err != nil {
		t.Fatalf("sign in after the reset: %v", err)
	}
}

// The API page shows the account's base URL, its keys' prefixes (never a
// key), the OpenAPI operations and schemas, and loads nothing from
// another site.
func TestAPIPageRendersTheOpenAPIDocument(t *testing.T) {
	s := newSite(t, web.Config{PublicURL: "https://api.hyscribe.test"})
	ck, _, acct := s.signUp("owner@example.am")
	raw, _, err := app.NewCreateAPIKey(s.store, ports.SystemClock{}).Handle(context.Background(), acct, domain.RoleOwner)
	if err != nil {
		t.Fatal(err)
	}
	r := s.do("GET", "/app/api", nil, ck)
	for _, want := range []string{
		"curl -s -X POST https://api.hyscribe.test/api/createTranscription",
		`id="op-createTranscription"`, `id="op-getTranscription"`, `id="op-uploadAudio"`, `id="schema-CreateTranscriptionRequest"`,
		"<code>checklistId</code>", "webhook-signature", raw[:10], `href="/api/openapi.json"`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the API page lacks %q", want)
		}
	}
	if strings.Contains(r.body, raw) {
		t.Error("the API page shows a whole key")
	}
	if regexp.MustCompile(`(src|href)="(https?:)?//`).MatchString(r.body) {
		t.Error("the API page loads something from another site")
	}
}

// The usage page counts the account's own jobs, in words for the plan.
func TestUsagePage(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("owner@example.am")
	s.business(acct)
	s.job(acct, "Երկար զանգ", []byte("x"), `{}`) // 12 s, transcribed
	otherCk, _, other := s.signUp("other@example.am")
	s.job(other, "Ուրիշի զանգ", []byte("x"), `{}`)
	r := s.do("GET", "/app/usage", nil, en(ck))
	for _, want := range []string{"Business (API and web application)", "Երկար զանգ", `id="usage-chart"`, "1 jobs"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("usage page lacks %q", want)
		}
	}
	if strings.Contains(r.body, "Ուրիշի զանգ") {
		t.Error("usage shows another account's recording")
	}
	if r := s.do("GET", "/app/usage?days=7", nil, otherCk); r.code != 400 {
		t.Errorf("an unknown period: %d", r.code)
	}
	if r := s.do("GET", "/app/usage?days=90", nil, otherCk); r.code != 200 || !strings.Contains(r.body, "Ուրիշի զանգ") {
		t.Errorf("90 days: %d", r.code)
	}
}

// en is a visitor's cookies with the English interface chosen.
func en(ck map[string]string) map[string]string {
	out := map[string]string{"hyscribe_lang": "en"}
	for k, v := range ck {
		out[k] = v
	}
	return out
}
