package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/web"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Handler tests of the fixes the first walk through the web application
// found (issue 14); the browser checks are in cmd/hyscribe/browser.

func TestAnswersFollowTheAuthorsQuestionOrder(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, _, acct := s.signUp("a@example.am")
	ctx := context.Background()
	cl, err := app.NewProvision(s.store, s.store, ports.SystemClock{}).CreateChecklist(ctx, acct, []byte(`{"name":"QA","questions":[
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
