package app_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// reviewedWorld is a world with one analysed call whose checklist answers
// greet yes, order yes, bye no (machine score 2/3), delivered to a receiver.
func reviewedWorld(t *testing.T) (*world, app.Principal, domain.DocID) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	w.updateAccount(p.Account.ID, app.AccountChanges{WebhookURL: ptr("https://hooks.example/h"), WebhookSecret: ptr("s3cret"),
		AnalysisWebhookURL: ptr("https://hooks.example/qa")})
	c := w.checklist(p, salesChecklist)
	res := w.newJob(p, `{"type":"single_voice","metadata":{"crm":"A-1"},"checklistId":"`+c.ID+`"}`)
	w.put(res.DocID, "MP3 5 1")
	w.drain()
	if a, err := w.store.AnalysisByDoc(w.ctx, res.DocID); err != nil || a.Results["bye"].Answer != domain.AnswerNo || a.Results["greet"].Answer != domain.AnswerYes {
		t.Fatalf("premise: the analysis answers bye no, greet yes: %+v, %v", a.Results, err)
	}
	return w, p, res.DocID
}

func reviewRequests(w *world) []domain.AnalysisReviewedPayload {
	var out []domain.AnalysisReviewedPayload
	for _, r := range w.sender.Requests() {
		if strings.Contains(string(r.Body), `"analysis_reviewed"`) {
			var p domain.AnalysisReviewedPayload
			if err := json.Unmarshal(r.Body, &p); err != nil {
				w.t.Fatal(err)
			}
			if r.URL != "https://hooks.example/qa" {
				w.t.Errorf("analysis_reviewed went to %s; want the analysis receiver", r.URL)
			}
			out = append(out, p)
		}
	}
	return out
}

func TestReviewChangesTheScoreRecordsTheReviewerAndSendsOneEvent(t *testing.T) {
	w, p, doc := reviewedWorld(t)
	s := w.store
	review := app.NewReviewCall(s, s, s, s, w.clock)
	get := app.NewGetJob(s, s, s, s, s, s)
	owner := domain.User{ID: "u-ani", AccountID: p.Account.ID, Email: "ani@example.com", Role: domain.RoleOwner}
	before, err := get.Handle(w.ctx, app.Actor{Account: p.Account}, app.GetCommand{DocID: doc, Page: true})
	if err != nil || math.Abs(before.Score.Value-2.0/3) > 1e-9 || before.Review != nil {
		t.Fatalf("premise: machine score 2/3 and no review: %+v, %v", before.Score, err)
	}
	in := domain.ReviewInput{Choices: map[string]domain.ReviewChoice{"bye": {Answer: domain.AnswerYes, Reason: "Ասաց «ցտեսություն» 0:41-ին"}}, Comment: "Լավ զանգ"}
	r, changed, err := review.Handle(w.ctx, p.Account.ID, owner, doc, in)
	if err != nil || !changed || r.Revision != 1 {
		t.Fatalf("review: %+v changed %v, %v", r, changed, err)
	}
	w.drain()

	rec, err := get.Handle(w.ctx, app.Actor{Account: p.Account}, app.GetCommand{DocID: doc, Page: true})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Review == nil || rec.Review.Reviewer != "ani@example.com" || !rec.Review.ReviewedAt.Equal(w.clock.Now()) || rec.Review.Comment != "Լավ զանգ" {
		t.Fatalf("the page's review %+v; want Ani's, at %s", rec.Review, w.clock.Now())
	}
	if rec.Reviewed == nil || rec.ReviewedScore.Value != 1 || rec.ReviewedScore.Yes != 3 || math.Abs(rec.Score.Value-2.0/3) > 1e-9 {
		t.Fatalf("scores: reviewed %+v, machine %+v; want 3/3 = 1 reviewed beside the machine's 2/3", rec.ReviewedScore, rec.Score)
	}
	if rec.Analysis.Results["bye"].Answer != domain.AnswerNo || rec.Reviewed.Results["bye"].Answer != domain.AnswerYes {
		t.Fatal("the machine's answer must stay beside the reviewed one")
	}
	sent := reviewRequests(w)
	if len(sent) != 1 {
		t.Fatalf("%d analysis_reviewed deliveries; want 1", len(sent))
	}
	got := sent[0]
	if got.Secret != "s3cret" || got.DocID != doc || got.Revision != 1 || got.ReviewedScore != 1 || math.Abs(got.MachineScore-2.0/3) > 1e-9 ||
		got.Reviewer.Email != "ani@example.com" || got.Comment != "Լավ զանգ" || string(got.Metadata) != `{"crm":"A-1"}` ||
		got.Answers["bye"] != (domain.ReviewedResult{Question: "Հրաժեշտ տվե՞ց", MachineAnswer: "no", Answer: "yes", Score: 1, Overridden: true, Reason: "Ասաց «ցտեսություն» 0:41-ին"}) {
		t.Fatalf("analysis_reviewed %+v", got)
	}

	// The same review submitted again is the same review: no event.
	w.clock.Add(1e9)
	if r2, changed, err := review.Handle(w.ctx, p.Account.ID, owner, doc, in); err != nil || changed || r2.Revision != 1 {
		t.Fatalf("the same review again: revision %d, changed %v, %v", r2.Revision, changed, err)
	}
	w.drain()
	if n := len(reviewRequests(w)); n != 1 {
		t.Fatalf("the same review twice sent %d events; want 1", n)
	}
}

func TestReviewRules(t *testing.T) {
	w, p, doc := reviewedWorld(t)
	s := w.store
	review := app.NewReviewCall(s, s, s, s, w.clock)
	member := domain.User{ID: "u-m", AccountID: p.Account.ID, Email: "m@example.com", Role: domain.RoleMember}
	override := domain.ReviewInput{Choices: map[string]domain.ReviewChoice{"bye": {Answer: domain.AnswerYes, Reason: "said it"}}}
	if _, _, err := review.Handle(w.ctx, p.Account.ID, member, doc, override); !errors.Is(err, domain.ErrForbidden) {
		t.Fatalf("a read-only member's review: %v; want ErrForbidden", err)
	}
	owner := domain.User{ID: "u-o", AccountID: p.Account.ID, Email: "o@example.com", Role: domain.RoleOwner}
	for name, in := range map[string]domain.ReviewInput{
		"override without a reason": {Choices: map[string]domain.ReviewChoice{"bye": {Answer: domain.AnswerYes, Reason: "  "}}},
		"reason too long":           {Choices: map[string]domain.ReviewChoice{"bye": {Answer: domain.AnswerYes, Reason: strings.Repeat("ա", domain.MaxReviewReasonRunes+1)}}},
		"comment too long":          {Comment: strings.Repeat("x", domain.MaxReviewCommentRunes+1)},
		"unknown answer":            {Choices: map[string]domain.ReviewChoice{"bye": {Answer: "maybe", Reason: "x"}}},
		"unknown question":          {Choices: map[string]domain.ReviewChoice{"nope": {Answer: domain.AnswerYes, Reason: "x"}}},
	} {
		if _, _, err := review.Handle(w.ctx, p.Account.ID, owner, doc, in); !errors.Is(err, domain.ErrValidation) {
			t.Errorf("%s: %v; want a validation error", name, err)
		}
	}
	other := w.account(domain.PlanBusiness, 60)
	stranger := domain.User{ID: "u-x", AccountID: other.Account.ID, Email: "x@example.com", Role: domain.RoleOwner}
	if _, _, err := review.Handle(w.ctx, other.Account.ID, stranger, doc, override); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another account's review: %v; want ErrNotFound", err)
	}
	if _, err := s.ReviewOf(w.ctx, doc); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("a refused review was saved: %v", err)
	}
	// Reviewing is the QA analyst's work (docs/webapp.md, Roles).
	analyst := domain.User{ID: "u-a", AccountID: p.Account.ID, Email: "a@example.com", Role: domain.RoleAnalyst}
	if _, changed, err := review.Handle(w.ctx, p.Account.ID, analyst, doc, override); err != nil || !changed {
		t.Fatalf("a QA analyst's review: changed=%v %v; want it saved", changed, err)
	}
}

// TestReanalysisMakesTheReviewStale: a call analysed again after its
// review keeps the review (who, when, the comment) but it no longer counts:
// the page's score is the machine's new one, and the next review is the
// next revision with an event of its own.
func TestReanalysisMakesTheReviewStale(t *testing.T) {
	w, p, doc := reviewedWorld(t)
	s := w.store
	review := app.NewReviewCall(s, s, s, s, w.clock)
	get := app.NewGetJob(s, s, s, s, s, s)
	owner := domain.User{ID: "u-ani", AccountID: p.Account.ID, Email: "ani@example.com", Role: domain.RoleOwner}
	in := domain.ReviewInput{Choices: map[string]domain.ReviewChoice{"bye": {Answer: domain.AnswerYes, Reason: "said it"}}}
	if _, _, err := review.Handle(w.ctx, p.Account.ID, owner, doc, in); err != nil {
		t.Fatal(err)
	}
	a, err := s.AnalysisByDoc(w.ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	w.clock.Add(60e9)
	again := a
	again.CreatedAt = w.clock.Now()
	if err := s.ReplaceAnalysis(w.ctx, again, nil); err != nil {
		t.Fatal(err)
	}
	rec, err := get.Handle(w.ctx, app.Actor{Account: p.Account}, app.GetCommand{DocID: doc, Page: true})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Review == nil || !rec.Review.Stale || rec.Review.Reviewer != "ani@example.com" || rec.Reviewed != nil || rec.ReviewedScore != (domain.Score{}) {
		t.Fatalf("after re-analysis: review %+v, reviewed %v, reviewed score %+v; want the review kept, stale, not counted", rec.Review, rec.Reviewed, rec.ReviewedScore)
	}
	// The same answers again are a new review of the new results.
	r, changed, err := review.Handle(w.ctx, p.Account.ID, owner, doc, in)
	if err != nil || !changed || r.Revision != 2 {
		t.Fatalf("reviewing again: revision %d, changed %v, %v", r.Revision, changed, err)
	}
	var ids []string
	for _, ev := range w.drain() {
		if ev.Topic == domain.TopicAnalysisReviewed {
			ids = append(ids, ev.ID)
		}
	}
	if strings.Join(ids, " ") != domain.AnalysisReviewedEventID(doc, 1)+" "+domain.AnalysisReviewedEventID(doc, 2) {
		t.Fatalf("review events %v; want revisions 1 and 2", ids)
	}
}
