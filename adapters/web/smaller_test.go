package web_test

import (
	"bytes"
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/web"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// The smaller defects of issue 36, item 8, each seen on a screenshot.

// callWith saves a phone call of account measured as info, taken through
// the pipeline by finish (nil: left measured, converting).
func (s *site) callWith(account domain.AccountID, info domain.AudioInfo, finish func(j *domain.Job, a *domain.Account, now time.Time) ([]domain.Event, error)) domain.DocID {
	s.t.Helper()
	return s.callOf(account, domain.CreateRequest{Type: domain.TypePhoneCall}, info, finish)
}

// callOf is callWith for a call created by req.
func (s *site) callOf(account domain.AccountID, req domain.CreateRequest, info domain.AudioInfo, finish func(j *domain.Job, a *domain.Account, now time.Time) ([]domain.Event, error)) domain.DocID {
	s.t.Helper()
	ctx, now := context.Background(), time.Now()
	id := domain.DocID(app.NewID())
	j, evs := domain.NewJob(id, account, req, now, time.Hour)
	if err := s.store.CreateJob(ctx, j, evs); err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.blobs.Put(ctx, string(id), bytes.NewReader([]byte("x")), 1<<30); err != nil {
		s.t.Fatal(err)
	}
	err := s.store.UpdateJob(ctx, id, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
		if _, err := j.ReceiveUpload(now, string(id), 1); err != nil {
			return nil, err
		}
		if _, err := j.Measure(now, info, a, time.Hour); err != nil {
			return nil, err
		}
		if _, err := j.StartConverting(now); err != nil {
			return nil, err
		}
		if finish == nil {
			return nil, nil
		}
		return finish(j, a, now)
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return id
}

func transcribed(segs ...domain.Segment) func(j *domain.Job, a *domain.Account, now time.Time) ([]domain.Event, error) {
	return func(j *domain.Job, a *domain.Account, now time.Time) ([]domain.Event, error) {
		if _, err := j.Recognize(now, "text", segs); err != nil {
			return nil, err
		}
		return j.Complete(now, "Զանգ", "ամփոփում", "hy-AM")
	}
}

func failed(j *domain.Job, a *domain.Account, now time.Time) ([]domain.Event, error) {
	return j.Fail(now, "transcription_failed", a)
}

func (s *site) setBalance(acct domain.AccountID, ms int64, agentChannel string) {
	s.t.Helper()
	err := s.store.UpdateAccount(context.Background(), acct, func(a *domain.Account) error {
		a.Plan, a.BalanceMs, a.AgentChannel = domain.PlanBusiness, ms, agentChannel
		return nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
}

// A line that starts at 9.96 s is "[10.0]" to the chat model, which quotes
// 10.0 as its evidence's start: the transcript and the evidence must both
// read 0:10 (the page said 0:09 and 0:10).
func TestALineAndItsEvidenceReadOneTime(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("owner@example.am")
	s.setBalance(acct, 3600_000, "")
	ctx := context.Background()
	cl, err := app.NewCreateChecklist(s.store, s.store, ports.SystemClock{}).Handle(ctx, acct, domain.RoleOwner, []byte(`{"name":"QA","questions":[{"id":"greet","text":"Բարևե՞ց","expect":["բարև"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	doc := s.callOf(acct, domain.CreateRequest{Type: domain.TypePhoneCall, ChecklistID: cl.ID, ChecklistVersion: cl.Version}, domain.AudioInfo{Format: "mp3", Duration: 30, Channels: 1, SampleRate: 16000},
		transcribed(domain.Segment{Start: 1, End: 9, Text: "ալո", Speaker: "1"}, domain.Segment{Start: 9.96, End: 12, Text: "բարև ձեզ", Speaker: "2"}))
	j, err := s.store.GetJob(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	start, who := 10.0, "Խոսնակ 2"
	a := domain.NewAnalysis(app.NewID(), j, cl, map[string]domain.QuestionResult{
		"greet": {Answer: domain.AnswerYes, Score: 1, Evidence: []domain.Evidence{{Speaker: &who, Text: "բարև ձեզ", Start: &start}}},
	}, time.Now())
	if err := s.store.SaveAnalysis(ctx, a, nil); err != nil {
		t.Fatal(err)
	}
	page := s.do("GET", "/app/recordings/"+string(doc), nil, ck).body
	line := regexp.MustCompile(`data-start="9.96"[^>]*>([0-9:]+)</a>`).FindStringSubmatch(page)
	evidence := regexp.MustCompile(`data-start="10.00">([0-9:]+)</a>`).FindStringSubmatch(page)
	if line == nil || evidence == nil || line[1] != "0:10" || evidence[1] != "0:10" {
		t.Fatalf("the line reads %v and its evidence %v; want 0:10 both\n%s", line, evidence, page)
	}
}

// Usage: a failed call's seconds were refunded, so they are not "used";
// amounts of time are written in the page's language ("1 h 00 min", not
// "1:00:00"; "27 min 03 s", not "27:03").
func TestUsageCountsWhatWasPaidInThePagesWords(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("owner@example.am")
	s.setBalance(acct, 10_000_000, "")
	s.callWith(acct, domain.AudioInfo{Format: "mp3", Duration: 1200, Channels: 1, SampleRate: 16000}, transcribed(domain.Segment{Start: 0, End: 2, Text: "ալո"}))
	s.callWith(acct, domain.AudioInfo{Format: "mp3", Duration: 796, Channels: 1, SampleRate: 16000}, failed)
	s.setBalance(acct, 3600_000-1200_000+3_000, "") // 40 min 03 s left of the hour
	field := func(body, id string) string {
		m := regexp.MustCompile(`id="` + id + `">([^<]*)<`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no #%s on the page", id)
		}
		return strings.TrimSpace(m[1])
	}
	enPage := s.do("GET", "/app/usage", nil, en(ck)).body
	if got := field(enPage, "usage-remaining"); got != "40 min 03 s" {
		t.Errorf("English remaining %q, want 40 min 03 s", got)
	}
	if got := field(enPage, "usage-used"); !strings.HasPrefix(got, "20 min 00 s ·") {
		t.Errorf("English used %q, want 20 min 00 s: the failed call's 13:16 was refunded", got)
	}
	hyPage := s.do("GET", "/app/usage", nil, ck).body
	if got := field(hyPage, "usage-remaining"); got != "40 ր 03 վ" {
		t.Errorf("Armenian remaining %q, want 40 ր 03 վ", got)
	}
	s.setBalance(acct, 3600_000, "")
	if got := field(s.do("GET", "/app/settings", nil, en(ck)).body, "seconds"); got != "1 h 00 min" {
		t.Errorf("an hour on the English settings page: %q", got)
	}
	if got := field(s.do("GET", "/app/usage", nil, ck).body, "usage-remaining"); got != "1 ժ 00 ր" {
		t.Errorf("an hour on the Armenian usage page: %q", got)
	}
}

// An invitation made in English opens in English in a browser that has
// chosen no language, and the pages after it stay English.
func TestAnInvitationOpensInItsLanguage(t *testing.T) {
	s := newSite(t, web.Config{PublicURL: "http://hyscribe.test"})
	ck, csrf, _ := s.signUp("owner@example.am")
	for _, c := range []struct{ lang, want, title string }{{"en", `<html lang="en">`, "Join"}, {"hy", `<html lang="hy">`, ""}} {
		r := s.do("POST", "/app/team/invite", url.Values{"_csrf": {csrf}, "email": {c.lang + "@example.am"}, "role": {"member"}, "lang": {c.lang}}, ck) // the owner's page is Armenian
		got := linkRe.FindStringSubmatch(r.body)
		if got == nil {
			t.Fatalf("invite %s: %d, no link", c.lang, r.code)
		}
		inv := s.do("GET", strings.TrimPrefix(got[1], "http://hyscribe.test"), nil, nil)
		if inv.code != 200 || !strings.Contains(inv.body, c.want) {
			t.Fatalf("the %s invitation opens %d with %.80q", c.lang, inv.code, inv.body)
		}
		if lang, _ := cookieValue(inv, "hyscribe_lang"); lang != c.lang {
			t.Errorf("the %s invitation leaves the language cookie %q: the next page would not keep it", c.lang, lang)
		}
	}
	// A browser that chose Armenian keeps it.
	r := s.do("POST", "/app/team/invite", url.Values{"_csrf": {csrf}, "email": {"en2@example.am"}, "role": {"member"}, "lang": {"en"}}, ck)
	got := linkRe.FindStringSubmatch(r.body)
	if inv := s.do("GET", strings.TrimPrefix(got[1], "http://hyscribe.test"), nil, map[string]string{"hyscribe_lang": "hy"}); !strings.Contains(inv.body, `<html lang="hy">`) {
		t.Error("the browser's own language choice is overridden by the invitation's")
	}
}

// Armenian pages carry no English words of the API: the settings' labels
// say the receiver and failure notices in Armenian, and the API page's
// OpenAPI reference (written in English) is folded under an Armenian
// summary that says so, its English text marked lang="en".
func TestArmenianPagesSayTheAPIsWordsInArmenian(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, _ := s.signUp("owner@example.am")
	settings := visibleText(s.do("GET", "/app/settings", nil, ck).body)
	for _, w := range []string{"(webhookURL)", "transcript_failed", "(webhookSecret)", "(pull)", "(webhook)"} {
		if strings.Contains(settings, w) {
			t.Errorf("the Armenian settings page says %q", w)
		}
	}
	api := s.do("GET", "/app/api", nil, ck).body
	if !strings.Contains(api, `<details id="reference-doc"><summary>Տեղեկատուն (OpenAPI փաստաթուղթը գրված է անգլերեն)</summary>`) || !strings.Contains(api, `<p lang="en"><strong>`) {
		t.Error("the Armenian API page shows the English OpenAPI reference unfolded or unmarked")
	}
	if enAPI := s.do("GET", "/app/api", nil, en(ck)).body; strings.Contains(enAPI, "<details id=\"reference-doc\"") || !strings.Contains(enAPI, `<div id="reference-doc">`) {
		t.Error("the English API page folds its reference")
	}
}

var tagRe = regexp.MustCompile(`(?s)<script.*?</script>|<[^>]*>`)

// visibleText is a page's text without tags and attributes.
func visibleText(page string) string { return tagRe.ReplaceAllString(page, " ") }

// The stereo channel's help is said on stereo calls only.
func TestStereoHelpOnStereoCallsOnly(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("owner@example.am")
	s.setBalance(acct, 3600_000, "left")
	segs := []domain.Segment{{Start: 0, End: 2, Text: "ալո", Speaker: "1"}, {Start: 2, End: 4, Text: "բարև", Speaker: "2"}}
	mono := s.callWith(acct, domain.AudioInfo{Format: "mp3", Duration: 10, Channels: 1, SampleRate: 16000}, transcribed(segs...))
	stereo := s.callWith(acct, domain.AudioInfo{Format: "mp3", Duration: 10, Channels: 2, SampleRate: 16000}, transcribed(segs...))
	if p := s.do("GET", "/app/recordings/"+string(mono), nil, ck).body; strings.Contains(p, `id="stereo-help"`) || strings.Contains(p, "ստերեո զանգի ձախ ալիքը") || !strings.Contains(p, `id="save-speakers"`) {
		t.Error("a mono call's speakers form tells about the stereo channel")
	}
	if p := s.do("GET", "/app/recordings/"+string(stereo), nil, ck).body; !strings.Contains(p, `id="stereo-help"`) {
		t.Error("a stereo call's speakers form does not tell which channel is the agent")
	}
}

// A call that was measured and then failed has no title "yet" (it never
// will) and was not "not processed".
func TestAFailedMeasuredCallIsSaidToHaveFailed(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("owner@example.am")
	s.setBalance(acct, 3600_000, "")
	doc := s.callWith(acct, domain.AudioInfo{Format: "mp3", Duration: 10, Channels: 1, SampleRate: 16000}, failed)
	p := s.do("GET", "/app/recordings/"+string(doc), nil, en(ck)).body
	if !strings.Contains(p, `<h1 id="title">(no title)</h1>`) || strings.Contains(p, "no title yet") || strings.Contains(p, "not processed") || !strings.Contains(p, "No transcript: the recording failed") {
		t.Errorf("the failed call's page:\n%s", p)
	}
	if p := s.do("GET", "/app/recordings/"+string(doc), nil, ck).body; strings.Contains(p, "չմշակվեց") || strings.Contains(p, "չի մշակվել") {
		t.Error("the Armenian page says the measured call was not processed")
	}
}

// Generating the first secret replaces nothing: its confirmation says so.
func TestTheFirstSecretsConfirmationReplacesNothing(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("owner@example.am")
	confirm := regexp.MustCompile(`action="/app/settings/secret" data-confirm="([^"]*)"`)
	first := confirm.FindStringSubmatch(s.do("GET", "/app/settings", nil, en(ck)).body)
	if first == nil || strings.Contains(first[1], "replaces") || !strings.Contains(first[1], "Generate a secret?") {
		t.Fatalf("the first secret's confirmation: %v", first)
	}
	if _, err := app.NewGenerateWebhookSecret(s.store).Handle(context.Background(), acct, domain.RoleOwner); err != nil {
		t.Fatal(err)
	}
	next := confirm.FindStringSubmatch(s.do("GET", "/app/settings", nil, en(ck)).body)
	if next == nil || !strings.Contains(next[1], "replaces the current one") {
		t.Fatalf("a second secret's confirmation: %v", next)
	}
}
