package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/web"
	"github.com/hyscribe/hyscribe/adapters/webhook"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Handler tests of what the pages do for people: answers in the
// checklist author's order, validation errors in the page's language, key
// creation as post/redirect/get, the test event, search snippets, failed
// and refused jobs with their reason, one language per page. The browser
// checks of the same pages are in cmd/hyscribe/browser.

func TestAnswersFollowTheAuthorsQuestionOrder(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("a@example.am")
	ctx := context.Background()
	cl, err := app.NewCreateChecklist(s.store, s.store, ports.SystemClock{}).Handle(ctx, acct, domain.RoleOwner, []byte(`{"name":"QA","questions":[
		{"id":"zeta","text":"First question","expect":["a"]},
		{"id":"alpha","text":"Second question","expect":["b"]},
		{"id":"mid","text":"Third question","expect":["c"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	doc := s.jobOf(acct, domain.CreateRequest{Type: domain.TypePhoneCall, ChecklistID: cl.ID, ChecklistVersion: cl.Version}, "call", []byte("x"))
	j, err := s.store.GetJob(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	a := domain.NewAnalysis(app.NewID(), j, cl, map[string]domain.QuestionResult{}, time.Now())
	if err := s.store.SaveAnalysis(ctx, a, nil); err != nil {
		t.Fatal(err)
	}
	page := s.do("GET", "/app/recordings/"+string(doc), nil, ck).body
	first, second, third := strings.Index(page, `id="q-zeta"`), strings.Index(page, `id="q-alpha"`), strings.Index(page, `id="q-mid"`)
	if first < 0 || !(first < second && second < third) {
		t.Fatalf("answers at %d, %d, %d; want zeta, alpha, mid as the author wrote them", first, second, third)
	}
}

func TestValidationErrorsInThePagesLanguage(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, csrf, _ := s.signUp("a@example.am")
	form := url.Values{"_csrf": {csrf}, "webhookURL": {"ftp://x"}, "webhookSecret": {""}, "analysisWebhookURL": {""}}
	hy := s.do("POST", "/app/settings/receiver", form, ck)
	if hy.code != 400 || !strings.Contains(hy.body, "Ստացողի հասցեն պետք է") || strings.Contains(hy.body, "receiver URL must be") {
		t.Fatalf("Armenian page: %d, want the Armenian reason and no English one", hy.code)
	}
	en := map[string]string{"hyscribe_lang": "en"}
	for k, v := range ck {
		en[k] = v
	}
	r := s.do("POST", "/app/settings/receiver", form, en)
	if r.code != 400 || !strings.Contains(r.body, "receiver URL must be") {
		t.Fatalf("English page: %d, want the domain's message", r.code)
	}
	bad := s.do("GET", "/app/recordings?from=yesterday", nil, ck)
	if !strings.Contains(bad.body, "ամսաթիվ չէ") {
		t.Fatalf("a bad date on an Armenian page is not explained in Armenian")
	}
}

// cookieValue returns the value r sets for the cookie name, and whether it
// sets one.
func cookieValue(r resp, name string) (string, bool) {
	for _, h := range r.header.Values("Set-Cookie") {
		if c, err := http.ParseSetCookie(h); err == nil && c.Name == name {
			if c.MaxAge < 0 {
				return "", true
			}
			return c.Value, true
		}
	}
	return "", false
}

func TestKeyCreationIsPostRedirectGet(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, csrf, acct := s.signUp("a@example.am")
	keys := func() int {
		ks, _ := app.NewListAPIKeys(s.store).Handle(context.Background(), acct)
		return len(ks)
	}
	r := s.do("POST", "/app/settings/keys", url.Values{"_csrf": {csrf}}, ck)
	if r.code != 303 || r.header.Get("Location") != "/app/settings?saved=keys#keys" || keys() != 1 {
		t.Fatalf("create: %d to %q, %d keys; want 303 to the settings page and one key", r.code, r.header.Get("Location"), keys())
	}
	raw, ok := cookieValue(r, "hyscribe_newkey")
	if !ok || !strings.HasPrefix(raw, "hsk_") {
		t.Fatalf("the new key does not travel to the page that shows it (cookie %q)", raw)
	}
	// Another account's session never sees it.
	other, _, _ := s.signUp("b@example.am")
	other["hyscribe_newkey"] = raw
	if page := s.do("GET", "/app/settings", nil, other); strings.Contains(page.body, raw) {
		t.Fatal("another account's settings page shows the key")
	}
	with := map[string]string{"hyscribe_newkey": raw}
	for k, v := range ck {
		with[k] = v
	}
	page := s.do("GET", "/app/settings?saved=keys", nil, with)
	if page.code != 200 || !strings.Contains(page.body, raw) {
		t.Fatalf("the page after the redirect does not show the new key: %d", page.code)
	}
	if v, set := cookieValue(page, "hyscribe_newkey"); !set || v != "" {
		t.Fatal("showing the key does not clear its cookie")
	}
	// The reload (the browser dropped the cookie): no key shown, none made.
	again := s.do("GET", "/app/settings?saved=keys", nil, ck)
	if strings.Contains(again.body, raw) || !strings.Contains(again.body, `id="keys-saved"`) || keys() != 1 {
		t.Fatalf("reload: key shown again, no confirmation, or %d keys", keys())
	}
}

func TestSendTestEvent(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, csrf, acct := s.signUp("a@example.am")
	// Post/redirect/get: the POST sends and redirects; the page it
	// redirects to shows the outcome, carried by a cookie.
	send := func() resp {
		r := s.do("POST", "/app/settings/test-event", url.Values{"_csrf": {csrf}}, ck)
		if r.code != 303 || r.header.Get("Location") != "/app/settings#receiver" {
			t.Fatalf("Send test event: %d to %q, want 303 to the receiver section", r.code, r.header.Get("Location"))
		}
		v, _ := cookieValue(r, "hyscribe_testevent")
		with := map[string]string{"hyscribe_testevent": v}
		for k, v := range ck {
			with[k] = v
		}
		return s.do("GET", "/app/settings", nil, with)
	}
	if r := send(); r.code != 200 || !strings.Contains(r.body, `id="test-result"`) || !strings.Contains(r.body, "Կարգավորումներում") && !strings.Contains(r.body, "webhook") {
		t.Fatalf("without a receiver: %d, want the page saying there is none", r.code)
	}
	type got struct {
		eventType, secret string
		signed            error
	}
	var hits []got
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body struct {
			EventType string `json:"event_type"`
			Secret    string `json:"secret"`
		}
		_ = json.Unmarshal(b, &body)
		hits = append(hits, got{body.EventType, body.Secret, webhook.Verify("s3cret", r.Header, b, time.Now(), time.Minute)})
	}))
	defer rcv.Close()
	hook, secret := rcv.URL, "s3cret"
	if _, err := app.NewUpdateAccount(s.store).Handle(context.Background(), acct, domain.RoleOwner, app.AccountChanges{WebhookURL: &hook, WebhookSecret: &secret}); err != nil {
		t.Fatal(err)
	}
	r := send()
	if r.code != 200 || len(hits) != 1 || hits[0].eventType != "test" || hits[0].secret != "s3cret" || hits[0].signed != nil {
		t.Fatalf("test event: %d, receiver got %+v; want one signed event_type test with the secret", r.code, hits)
	}
	if !strings.Contains(r.body, `id="test-result"`) || !strings.Contains(r.body, "HTTP 200") || !strings.Contains(r.body, rcv.URL) {
		t.Fatal("the page does not show where the test event went and how it was answered")
	}
	member := s.do("POST", "/app/settings/test-event", url.Values{"_csrf": {"x"}}, ck)
	if member.code != 403 || len(hits) != 1 {
		t.Fatalf("without the CSRF token: %d, %d sent", member.code, len(hits))
	}
}

func TestSearchResultsShowAHighlightedSnippet(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("a@example.am")
	doc := s.job(acct, "Առաքում", []byte("x"), `{"crmId":"B-77"}`)
	if err := s.store.UpdateJob(context.Background(), doc, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
		j.Transcription = "Բարև ձեզ, զանգում եմ Երևանից, պատվերի համար"
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	s.job(acct, "Ուրիշ", []byte("x"), `{"crmId":"C-1"}`)
	for q, mark := range map[string]string{
		"ԵՐԵՎԱՆ":  "<mark>Երևան</mark>ից",
		"երեւան":  "<mark>Երևան</mark>ից",
		"Բարեւ":   "<mark>Բարև</mark> ձեզ",
		"b-77":    "<mark>B-77</mark>",
		"ԱՌԱՔՈՒՄ": "<mark>Առաքում</mark></a>",
	} {
		page := s.do("GET", "/app/recordings?q="+url.QueryEscape(q), nil, ck).body
		if n := strings.Count(page, "data-live-id="); n != 1 || !strings.Contains(page, mark) {
			t.Errorf("search %q: %d rows; want one, showing %q", q, n, mark)
		}
	}
}

func TestFailedAndRefusedJobsShowTheirReason(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("a@example.am")
	ctx := context.Background()
	now := time.Now()
	// Both with a checklist: a refused upload may still be analysed once
	// uploaded, a failed job never will.
	newJob := func(change func(j *domain.Job, a *domain.Account) ([]domain.Event, error)) domain.DocID {
		id := domain.DocID(app.NewID())
		j, evs := domain.NewJob(id, acct, domain.CreateRequest{Type: domain.TypeSingleVoice, ChecklistID: "ck-qa"}, now, time.Hour)
		if err := s.store.CreateJob(ctx, j, evs); err != nil {
			t.Fatal(err)
		}
		if err := s.store.UpdateJob(ctx, id, change); err != nil {
			t.Fatal(err)
		}
		return id
	}
	failed := newJob(func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
		evs, err := j.ReceiveUpload(now, "audio/x.mp3", 10)
		if err != nil {
			return nil, err
		}
		more, err := j.Fail(now, "the file is not MP3 audio (no MPEG audio frames found)", a)
		return append(evs, more...), err
	})
	refused := newJob(func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
		return nil, j.RefuseUpload(now, "the upload is larger than the 512 MiB limit")
	})
	list := s.do("GET", "/app/recordings", nil, ck).body
	// An Armenian page says why in Armenian, by the reason's code
	// (issue 27); an English one shows the API's own sentence.
	if !strings.Contains(list, "MPEG ձայնային կադրեր չգտնվեցին") || !strings.Contains(list, "Վերբեռնումը մերժվեց: Վերբեռնված ֆայլը մեծ է 512 ՄԲ սահմանից") {
		t.Fatal("the history does not show why a job failed and why an upload was refused")
	}
	if strings.Contains(list, "no MPEG audio frames found") || strings.Contains(list, "the upload is larger") {
		t.Fatal("the Armenian history shows the API's English reasons")
	}
	en := map[string]string{"hyscribe_lang": "en"}
	for k, v := range ck {
		en[k] = v
	}
	if english := s.do("GET", "/app/recordings", nil, en).body; !strings.Contains(english, "no MPEG audio frames found") || !strings.Contains(english, "the upload is larger than the 512 MiB limit") {
		t.Fatal("the English history does not show the API's reasons")
	}
	// The checklist column's "…" says an analysis is on its way: true of
	// the waiting upload, never of the failed job.
	if pending := `<span class="muted">…</span>`; strings.Count(list, pending) != 1 {
		t.Fatalf("%d rows show an analysis on its way; want 1 (the refused upload's, not the failed job's)", strings.Count(list, pending))
	}
	page := s.do("GET", "/app/recordings/"+string(failed), nil, ck).body
	if !strings.Contains(page, `id="job-error"`) || !strings.Contains(page, "MPEG ձայնային կադրեր չգտնվեցին") || strings.Contains(page, "<audio") {
		t.Fatal("a failed job's page lacks its reason or shows a player")
	}
	page = s.do("GET", "/app/recordings/"+string(refused), nil, ck).body
	if !strings.Contains(page, "մեծ է 512 ՄԲ սահմանից") || !strings.Contains(page, "սպասում է") {
		t.Fatal("a refused upload's page does not say why, and that the job still waits")
	}
	var body struct {
		Jobs map[string]struct{ Reason string }
	}
	live := s.do("GET", "/app/recordings/status?id="+string(refused), nil, ck)
	if json.Unmarshal([]byte(live.body), &body) != nil || !strings.Contains(body.Jobs[string(refused)].Reason, "512 ՄԲ") {
		t.Fatalf("the live status has no reason: %s", live.body)
	}
}

func TestOneLanguagePerPage(t *testing.T) {
	yerevan, err := time.LoadLocation("Asia/Yerevan")
	if err != nil {
		t.Fatal(err)
	}
	s := newSite(t, web.Config{Location: yerevan})
	ck, _, acct := s.signUp("a@example.am")
	doc := s.job(acct, "Զանգ", []byte("x"), `{}`)
	if err := s.store.UpdateJob(context.Background(), doc, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
		j.Segments[0].Speaker, j.Segments[1].Speaker = "1", "2"
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	en := map[string]string{"hyscribe_lang": "en"}
	for k, v := range ck {
		en[k] = v
	}
	hy, eng := s.do("GET", "/app/recordings/"+string(doc), nil, ck).body, s.do("GET", "/app/recordings/"+string(doc), nil, en).body
	// The label is followed by a real space, so a copied line reads right.
	if !strings.Contains(hy, `<span class="speaker">Խոսնակ 1:</span> Զանգ`) || !strings.Contains(eng, `<span class="speaker">Speaker 1:</span> Զանգ`) || strings.Contains(eng, "Խոսնակ") {
		t.Fatal(`speaker labels: want "Խոսնակ 1: " in Armenian and "Speaker 1: " in English, each with its space`)
	}
	// Durations as m:ss, times with their zone.
	if !strings.Contains(eng, "<dd>0:12</dd>") || !strings.Contains(eng, "UTC&#43;4") {
		t.Fatal("the duration is not m:ss, or the time has no zone")
	}
	for _, p := range []string{"/app/analytics", "/app/settings", "/app/checklists"} {
		if b := s.do("GET", p, nil, en).body; strings.Contains(b, "ClickHouse") {
			t.Errorf("%s names an internal part", p)
		}
	}
	ico := s.do("GET", "/app/static/favicon.svg", nil, nil)
	if ico.code != 200 || ico.header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(hy, `rel="icon"`) {
		t.Fatalf("favicon: %d %s", ico.code, ico.header.Get("Content-Type"))
	}
}
