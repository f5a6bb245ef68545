package web_test

import (
	"archive/zip"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/web"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
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
	cl, err := s.uc.Commands.CreateChecklist.Handle(ctx, acct, domain.RoleOwner, []byte(`{"name":"Sales","questions":[
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

// callWithID saves a transcribed phone call of account with the docId id
// and the speakers named, created by req now.
func (s *site) callWithID(id domain.DocID, account domain.AccountID, req domain.CreateRequest, title string, speakers map[string]domain.SpeakerName) {
	s.t.Helper()
	s.callAt(time.Now(), id, account, req, title, speakers)
}

// callAt is callWithID for a call made at now.
func (s *site) callAt(now time.Time, id domain.DocID, account domain.AccountID, req domain.CreateRequest, title string, speakers map[string]domain.SpeakerName) {
	s.t.Helper()
	ctx := context.Background()
	j, evs := domain.NewJob(id, account, req, now, time.Hour)
	j.Speakers = speakers
	if err := s.store.CreateJob(ctx, j, evs); err != nil {
		s.t.Fatal(err)
	}
	err := s.store.UpdateJob(ctx, id, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
		var all []domain.Event
		step := func(evs []domain.Event, err error) {
			if err != nil {
				s.t.Fatal(err)
			}
			all = append(all, evs...)
		}
		step(j.ReceiveUpload(now, string(id), 1))
		a.BalanceMs = 1e9
		step(j.Measure(now, domain.AudioInfo{Format: "mp3", Duration: 12, Channels: 1, SampleRate: 16000}, a, time.Hour))
		step(j.StartConverting(now))
		step(j.Recognize(now, title+" text", []domain.Segment{{Start: 0, End: 2, Text: "բարև", Speaker: "1"}, {Start: 2.5, End: 4, Text: "այո", Speaker: "2"}}))
		step(j.Complete(now, title, "summary", "hy-AM"))
		return all, nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
}

// scores.csv (issue 36 item 6): a docId starting with "-" is written as
// it is (only free text is guarded against formulas), the total follows
// the one scoring rule (empty when not scored), each question has its
// answer and reviewed-answer columns, and the speakers' roles and names
// are there.
func TestScoresCSVKeepsIdentifiersAndHasQuestionsAndSpeakers(t *testing.T) {
	sc := newScoredCalls(t)
	s := sc.s
	dash := domain.DocID("-r_UXq0Zc9BvN2mKp4sLw7A")
	s.callWithID(dash, sc.acct, domain.CreateRequest{Type: domain.TypePhoneCall, Metadata: json.RawMessage(`{}`), ChecklistID: sc.checklist.ID, ChecklistVersion: sc.checklist.Version},
		"=HYPERLINK(\"http://evil\")", map[string]domain.SpeakerName{"1": {Role: domain.SpeakerAgent, Name: "@Անի"}, "2": {Role: domain.SpeakerCustomer}})
	j, err := s.store.GetJob(context.Background(), dash)
	if err != nil {
		t.Fatal(err)
	}
	a := domain.NewAnalysis(app.NewID(), j, sc.checklist, map[string]domain.QuestionResult{"greet": {Answer: domain.AnswerYes, Score: 1}, "name": {Answer: domain.AnswerNo}}, time.Now())
	if err := s.store.SaveAnalysis(context.Background(), a, nil); err != nil {
		t.Fatal(err)
	}
	// The dash call is reviewed: "greet" accepted, "name" overridden to yes.
	reviewer := domain.User{ID: "u-rev", AccountID: sc.acct, Email: "rev@example.com", Role: domain.RoleAnalyst}
	if _, _, err := s.uc.Commands.ReviewCall.Handle(context.Background(), sc.acct, reviewer, dash, domain.ReviewInput{
		Choices: map[string]domain.ReviewChoice{"name": {Answer: domain.AnswerYes, Reason: "said it at 0:12"}}}); err != nil {
		t.Fatal(err)
	}
	form := url.Values{"_csrf": {sc.csrf}, "action": {"export"}, "format": {"txt"}, "doc": {string(dash), string(sc.unnamed), string(sc.partly)}}
	r := s.do("POST", "/app/recordings/bulk", form, sc.ck)
	if r.code != 200 {
		t.Fatalf("export: %d", r.code)
	}
	rows := scoresOf(t, r.body)
	head := strings.Join(rows[0], "|")
	if !strings.HasPrefix(head, "docId|file|title|created|status|checklist|yes|answered|score|transcript|unclear|needs speaker names|link|speaker 1 role|speaker 1 name|speaker 2 role|speaker 2 name|greet|greet reviewed|name|name reviewed") {
		t.Fatalf("scores.csv columns: %s", head)
	}
	byID := map[string][]string{}
	for _, row := range rows[1:] {
		byID[row[0]] = row
		for i, cell := range row {
			if i != 0 && cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) {
				t.Errorf("scores.csv cell %q (column %s) would run as a formula", cell, rows[0][i])
			}
		}
	}
	d := byID[string(dash)]
	if d == nil {
		t.Fatalf("the docId %s is not written exactly; rows %q", dash, rows[1:])
	}
	if d[2] != `'=HYPERLINK("http://evil")` || d[12] != "http://example.test/app/recordings/"+string(dash) ||
		d[13] != "agent" || d[14] != "'@Անի" || d[15] != "customer" || d[16] != "" {
		t.Errorf("the dash call's row: %q", d)
	}
	if d[6] != "1" || d[7] != "2" || d[8] != "0.50" || d[10] != "0" || d[17] != "yes" || d[18] != "yes" || d[19] != "no" || d[20] != "yes" {
		t.Errorf("the dash call's scores: %q", d)
	}
	u := byID[string(sc.unnamed)]
	if u[7] != "0" || u[8] != "" || u[10] != "2" || u[11] != "yes" || u[17] != "unclear" || u[18] != "" || u[19] != "unclear" || u[20] != "" {
		t.Errorf("the unnamed call is not written as not scored: %q", u)
	}
	p := byID[string(sc.partly)]
	if p[6] != "1" || p[7] != "1" || p[8] != "1.00" || p[10] != "1" || p[11] != "yes" {
		t.Errorf("the partly named call: %q", p)
	}
}

// scoresOf reads scores.csv out of a bulk export's ZIP.
func scoresOf(t *testing.T, body string) [][]string {
	t.Helper()
	zr, err := zip.NewReader(strings.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name != "scores.csv" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(b), "\ufeff"))).ReadAll()
		if err != nil || len(rows) < 2 {
			t.Fatalf("scores.csv: %v:\n%s", err, b)
		}
		return rows
	}
	t.Fatal("no scores.csv in the export")
	return nil
}

// Analytics shows per-agent figures for the period (issue 36 item 5): the
// calls of each named agent, how many were scored, their mean score and a
// pass rate per question, and the calls whose agent is not named.
func TestAnalyticsShowsPerAgentFigures(t *testing.T) {
	sc := newScoredCalls(t)
	s := sc.s
	req := domain.CreateRequest{Type: domain.TypePhoneCall, Metadata: json.RawMessage(`{}`), ChecklistID: sc.checklist.ID, ChecklistVersion: sc.checklist.Version}
	for i, res := range []map[string]domain.QuestionResult{
		{"greet": {Answer: domain.AnswerYes, Score: 1}, "name": {Answer: domain.AnswerYes, Score: 1}},
		{"greet": {Answer: domain.AnswerYes, Score: 1}, "name": {Answer: domain.AnswerNo}},
	} {
		doc := domain.DocID("ani-call-" + string(rune('a'+i)))
		s.callWithID(doc, sc.acct, req, "Ani's call", map[string]domain.SpeakerName{"1": {Role: domain.SpeakerAgent, Name: "Անի Սարգսյան"}})
		j, err := s.store.GetJob(context.Background(), doc)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.store.SaveAnalysis(context.Background(), domain.NewAnalysis(app.NewID(), j, sc.checklist, res, time.Now()), nil); err != nil {
			t.Fatal(err)
		}
	}
	today := time.Now().In(mustZone(t, "Asia/Yerevan")).Format(time.DateOnly)
	for _, lang := range []string{"en", "hy"} {
		ck := map[string]string{"hyscribe_session": sc.ck["hyscribe_session"], "hyscribe_lang": lang}
		an := s.do("GET", "/app/analytics?"+url.Values{"checklist": {sc.checklist.ID}, "from": {today}, "to": {today}}.Encode(), nil, ck)
		agents := section(an.body, `id="agents"`, "</table>")
		rows := strings.Split(agents, "<tr>")
		if an.code != 200 || len(rows) != 4 { // the head, Ani, the unnamed
			t.Fatalf("%s: %d, agents table:\n%s", lang, an.code, agents)
		}
		ani, unnamed := rows[2], rows[3]
		// Ani: 2 calls, both scored (1 and 0.5 → 0.75); greet 100 %, name 50 %.
		for _, want := range []string{"Անի Սարգսյան", ">2</td>", ">0.75</td>", "<strong>100%</strong>", "<strong>50%</strong>"} {
			if !strings.Contains(ani, want) {
				t.Errorf("%s: Ani's row lacks %q:\n%s", lang, want, ani)
			}
		}
		// The three calls of the setup have no named agent: 3 calls, 2 scored
		// (1 and 0.5), 2 needing speaker names.
		notNamed := map[string]string{"en": "Agent not named", "hy": "Անանուն օպերատոր"}[lang]
		for _, want := range []string{notNamed, ">3</td>", ">0.75</td>", "<strong>100%</strong>", "<strong>0%</strong>"} {
			if !strings.Contains(unnamed, want) {
				t.Errorf("%s: the unnamed agent's row lacks %q:\n%s", lang, want, unnamed)
			}
		}
	}
}

// Analytics counts a call on the day it was made, not on the day it was
// analysed again (issue 36 item 8): a call of three days ago whose
// analysis was made again today is in the period of its own day, and not
// in today's.
func TestAnalyticsCountsAReanalysedCallOnItsOwnDay(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("day@example.am")
	ck["hyscribe_lang"] = "en"
	ctx := context.Background()
	cl, err := s.uc.Commands.CreateChecklist.Handle(ctx, acct, domain.RoleOwner, []byte(`{"name":"Sales","questions":[{"id":"greet","text":"Greeted?","expect":["բարև"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	zone := mustZone(t, "Asia/Yerevan")
	now := time.Now().In(zone)
	then := now.AddDate(0, 0, -3)
	s.callAt(then, "old-call", acct, domain.CreateRequest{Type: domain.TypePhoneCall, Metadata: json.RawMessage(`{}`), ChecklistID: cl.ID, ChecklistVersion: cl.Version}, "Old", nil)
	j, err := s.store.GetJob(ctx, "old-call")
	if err != nil {
		t.Fatal(err)
	}
	first := domain.NewAnalysis(app.NewID(), j, cl, map[string]domain.QuestionResult{"greet": {Answer: domain.AnswerNo}}, then.Add(time.Minute))
	if err := s.store.SaveAnalysis(ctx, first, nil); err != nil {
		t.Fatal(err)
	}
	again := domain.NewAnalysis(first.ID, j, cl, map[string]domain.QuestionResult{"greet": {Answer: domain.AnswerYes, Score: 1}}, now)
	if err := s.store.(ports.AnalysisReplacer).ReplaceAnalysis(ctx, again, nil); err != nil {
		t.Fatal(err)
	}
	days := func(from, to time.Time) string {
		an := s.do("GET", "/app/analytics?"+url.Values{"checklist": {cl.ID}, "from": {from.Format(time.DateOnly)}, "to": {to.Format(time.DateOnly)}}.Encode(), nil, ck)
		if an.code != 200 {
			t.Fatalf("analytics: %d", an.code)
		}
		return section(an.body, `id="volumes"`, "</table>")
	}
	if got := days(then, then); !strings.Contains(got, then.Format(time.DateOnly)) || !strings.Contains(got, ">1.00<") {
		t.Errorf("the call's own day does not count it (with its new answer):\n%s", got)
	}
	if got := days(now, now); strings.Contains(got, now.Format(time.DateOnly)) {
		t.Errorf("the re-analysis's day counts the call:\n%s", got)
	}
}
