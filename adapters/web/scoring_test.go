package web_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/web"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// scoredCalls is an account with a checklist of two questions limited to
// the agent and three analysed calls of it: "unnamed" (a mono call whose
// agent nobody named: both answers unclear), "partly" (one answered, one
// waiting for names) and "full" (both answered).
type scoredCalls struct {
	s                     *site
	ck                    map[string]string
	csrf                  string
	acct                  domain.AccountID
	checklist             domain.Checklist
	unnamed, partly, full domain.DocID
}

func newScoredCalls(t *testing.T) scoredCalls {
	t.Helper()
	s := newSite(t, web.Config{})
	ck, csrf, acct := s.signUp("qa@example.am")
	ck["hyscribe_lang"] = "en"
	ctx := context.Background()
	cl, err := s.uc.Commands.CreateChecklist.Handle(ctx, acct, []byte(`{"name":"Sales","questions":[
		{"id":"greet","text":"Did the agent greet?","role":"agent","expect":["բարև"]},
		{"id":"name","text":"Did the agent give their name?","role":"agent","expect":["անունս"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	sc := scoredCalls{s: s, ck: ck, csrf: csrf, acct: acct, checklist: cl}
	unclear := domain.QuestionResult{Answer: domain.AnswerUnclear, Evidence: []domain.Evidence{}, Reason: domain.RoleUnknownReason(domain.SpeakerAgent)}
	call := func(title string, results map[string]domain.QuestionResult) domain.DocID {
		doc := s.jobOf(acct, domain.CreateRequest{Type: domain.TypePhoneCall, Metadata: json.RawMessage(`{}`), ChecklistID: cl.ID, ChecklistVersion: cl.Version}, title, []byte("x"))
		j, err := s.store.GetJob(ctx, doc)
		if err != nil {
			t.Fatal(err)
		}
		a := domain.NewAnalysis(app.NewID(), j, cl, results, time.Now())
		if err := s.store.SaveAnalysis(ctx, a, nil); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	sc.unnamed = call("Unnamed", map[string]domain.QuestionResult{"greet": unclear, "name": unclear})
	sc.partly = call("Partly", map[string]domain.QuestionResult{"greet": {Answer: domain.AnswerYes, Score: 1}, "name": unclear})
	sc.full = call("Full", map[string]domain.QuestionResult{"greet": {Answer: domain.AnswerYes, Score: 1}, "name": {Answer: domain.AnswerNo}})
	return sc
}

// "Not scored" is not "scored 0" (issue 36 item 2): a call whose answers
// are all unclear shows no score, a call with some says how many and that
// it needs speaker names, the history filters them, and Analytics leaves
// unclear answers out of pass rates and averages.
func TestNotScoredIsNotScoredZero(t *testing.T) {
	sc := newScoredCalls(t)
	s, ck := sc.s, sc.ck
	rows := func(body string) int { return strings.Count(body, "<tr data-live-id=") }

	hist := s.do("GET", "/app/recordings", nil, ck)
	for _, want := range []string{"Not scored · needs speaker names", "1/1 · 1.00 · 1 unclear · needs speaker names", "1/2 · 0.50"} {
		if !strings.Contains(hist.body, want) {
			t.Errorf("the history does not show %q", want)
		}
	}
	if strings.Contains(hist.body, "0/2 · 0.00") {
		t.Error(`the history shows the unnamed call as scored 0 ("0/2 · 0.00")`)
	}
	page := s.do("GET", "/app/recordings/"+string(sc.unnamed), nil, ck)
	if !strings.Contains(page.body, "Not scored · needs speaker names") || strings.Contains(page.body, "0/2 · 0.00") {
		t.Errorf("the recording's page does not say the call is not scored")
	}

	needs := s.do("GET", "/app/recordings?needs=names", nil, ck)
	if rows(needs.body) != 2 || strings.Contains(needs.body, "/app/recordings/"+string(sc.full)+`"`) || !strings.Contains(needs.body, `id="needs" name="needs" value="names" checked`) {
		t.Errorf("needs=names lists %d rows, want the 2 waiting for speaker names", rows(needs.body))
	}

	today := time.Now().In(mustZone(t, "Asia/Yerevan")).Format(time.DateOnly)
	an := s.do("GET", "/app/analytics?"+url.Values{"checklist": {sc.checklist.ID}, "from": {today}, "to": {today}}.Encode(), nil, ck)
	if an.code != 200 {
		t.Fatalf("analytics: %d", an.code)
	}
	pass := section(an.body, `id="pass-rates"`, "</table>")
	// greet: yes, yes and one unclear → 100 %, not 66.7 %; name: one no → 0 %.
	if !strings.Contains(pass, "<strong>100%</strong>") || strings.Contains(pass, "66.7%") || !strings.Contains(pass, "<strong>0%</strong>") {
		t.Errorf("pass rates count unclear answers:\n%s", pass)
	}
	// The day's average is of the two scored calls (1 and 0.5), not 0.5 over three.
	if vol := section(an.body, `id="volumes"`, "</table>"); !strings.Contains(vol, ">0.75<") {
		t.Errorf("the day's average score is not the scored calls' mean 0.75:\n%s", vol)
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// section is body from the first from to the next to after it.
func section(body, from, to string) string {
	i := strings.Index(body, from)
	if i < 0 {
		return ""
	}
	j := strings.Index(body[i:], to)
	if j < 0 {
		return body[i:]
	}
	return body[i : i+j]
}
