package porttest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// reviewTests cover people's reviews of analyses (issue 36): a review is
// kept beside its analysis with its events, a repeat is one review, a
// re-analysis keeps it but makes it stale.
var reviewTests = []subtest{
	{"RoundTripWithEvents", func(t *testing.T, s Stores) {
		a := reviewedCall(t, s)
		before := len(peekOutbox(t, s))
		in := domain.ReviewInput{Choices: map[string]domain.ReviewChoice{"name": {Answer: domain.AnswerNo, Reason: "Անունը չասաց"}}, Comment: "Լավ զանգ"}
		var made domain.Review
		noErr(t, s.ReviewAnalysis(ctxOf(t), a.DocID, reviewWith(t, a, in, reviewerAt(t0.Add(time.Hour)), &made)))
		got := must(s.ReviewOf(ctxOf(t), a.DocID))
		wantReview(t, got, made)
		if got.Revision != 1 || got.Stale || !got.Answers["name"].Overridden || got.Answers["greet"].Overridden || got.AccountID != a.AccountID {
			t.Fatalf("review %s; want revision 1, current, name overridden, greet accepted", dump(got))
		}
		recs := peekOutbox(t, s)
		if len(recs) != before+1 || recordEvents(recs)[before].ID != domain.AnalysisReviewedEventID(a.DocID, 1) {
			t.Fatalf("outbox %v; want one more event, %s", eventIDs(recordEvents(recs)), domain.AnalysisReviewedEventID(a.DocID, 1))
		}
		// The same review again saves nothing and sends nothing.
		noErr(t, s.ReviewAnalysis(ctxOf(t), a.DocID, reviewWith(t, a, in, reviewerAt(t0.Add(2*time.Hour)), nil)))
		wantReview(t, must(s.ReviewOf(ctxOf(t), a.DocID)), made)
		if n := len(peekOutbox(t, s)); n != before+1 {
			t.Fatalf("the same review twice left %d outbox records; want %d", n, before+1)
		}
	}},
	{"NoAnalysisNoReview", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 0)
		wantErr(t, s.ReviewAnalysis(ctxOf(t), "doc-none", func(domain.Analysis, *domain.Review) (*domain.Review, []domain.Event, error) {
			t.Error("fn called without an analysis")
			return nil, nil, nil
		}), domain.ErrNotFound, "ReviewAnalysis of a job without analysis")
		a := sampleAnalysis("an-1", "doc-1", acct.ID)
		noErr(t, s.SaveAnalysis(ctxOf(t), a, nil))
		wantErr(t, errOf(s.ReviewOf(ctxOf(t), "doc-1")), domain.ErrNotFound, "ReviewOf an analysis never reviewed")
		wantErr(t, errOf(s.ReviewOf(ctxOf(t), "doc-none")), domain.ErrNotFound, "ReviewOf a job without analysis")
	}},
	{"FnErrorSavesNothing", func(t *testing.T, s Stores) {
		a := reviewedCall(t, s)
		boom := errors.New("boom")
		err := s.ReviewAnalysis(ctxOf(t), a.DocID, func(a domain.Analysis, _ *domain.Review) (*domain.Review, []domain.Event, error) {
			return &domain.Review{AnalysisID: a.ID, Revision: 1}, nil, boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("ReviewAnalysis returned %v; want fn's error", err)
		}
		wantErr(t, errOf(s.ReviewOf(ctxOf(t), a.DocID)), domain.ErrNotFound, "ReviewOf after fn failed")
	}},
	{"ReanalysisMakesReviewStale", func(t *testing.T, s Stores) {
		r, ok := s.(ports.AnalysisReplacer)
		if !ok {
			t.Fatal("the store cannot replace analyses (ports.AnalysisReplacer)")
		}
		a := reviewedCall(t, s)
		in := domain.ReviewInput{Choices: map[string]domain.ReviewChoice{"greet": {Answer: domain.AnswerNo, Reason: "no greeting"}}}
		var made domain.Review
		noErr(t, s.ReviewAnalysis(ctxOf(t), a.DocID, reviewWith(t, a, in, reviewerAt(t0.Add(time.Hour)), &made)))
		again := a
		again.CreatedAt = t0.Add(2 * time.Hour)
		noErr(t, r.ReplaceAnalysis(ctxOf(t), again, nil))
		got := must(s.ReviewOf(ctxOf(t), a.DocID))
		made.Stale = true
		wantReview(t, got, made)
		if got.Current(again) {
			t.Fatal("a review of the old results counts as current")
		}
		// Reviewing again is a new revision, current again.
		noErr(t, s.ReviewAnalysis(ctxOf(t), a.DocID, reviewWith(t, again, in, reviewerAt(t0.Add(3*time.Hour)), &made)))
		if got := must(s.ReviewOf(ctxOf(t), a.DocID)); got.Stale || got.Revision != 2 || !got.Current(again) {
			t.Fatalf("after reviewing again: %s; want revision 2, current", dump(got))
		}
	}},
	{"ReviewedScoreLists", func(t *testing.T, s Stores) {
		// While a review is current, the history sorts and filters by the
		// reviewed score (the review's ListScore); a re-analysis brings
		// the machine's back (issue 36).
		re, ok := s.(ports.AnalysisReplacer)
		if !ok {
			t.Fatal("the store cannot replace analyses (ports.AnalysisReplacer)")
		}
		acct := webAccount(t, s, "acc")
		for i, c := range []struct {
			id string
			sc float64
		}{{"c1", 0.9}, {"c2", 0.6}, {"c3", 0.3}} {
			triageJob(t, s, c.id, acct.ID, t0.Add(time.Duration(i+1)*time.Minute), 60, `{}`, score(c.sc))
		}
		under := ports.JobQuery{Account: acct.ID, ScoreUnder: score(0.5)}
		from := ports.JobQuery{Account: acct.ID, ScoreFrom: score(0.5)}
		high := ports.JobQuery{Account: acct.ID, Sort: domain.SortScoreHigh}
		wantList(t, s, under, 1, "c3")
		wantList(t, s, high, 3, "c1", "c2", "c3")

		a := must(s.AnalysisByDoc(ctxOf(t), "c1"))
		in := domain.ReviewInput{Choices: map[string]domain.ReviewChoice{"greet": {Answer: domain.AnswerNo, Reason: "no greeting"}}}
		var made domain.Review
		noErr(t, s.ReviewAnalysis(ctxOf(t), a.DocID, reviewWith(t, a, in, reviewerAt(t0.Add(time.Hour)), &made)))
		if made.ListScore == nil || *made.ListScore != 0 {
			t.Fatalf("the reviewed list score is %v; want 0 (greet overridden to no, name unclear)", made.ListScore)
		}
		wantList(t, s, under, 2, "c3", "c1")
		wantList(t, s, from, 1, "c2")
		wantList(t, s, high, 3, "c2", "c3", "c1")
		if jobs, _, err := s.ListJobs(ctxOf(t), high); err != nil || len(jobs) != 3 || jobs[2].Score != 0 {
			t.Fatalf("ListJobs by score: %s, %v; want the reviewed call last with score 0", dump(jobs), err)
		}
		if got := must(s.AnalysisByDoc(ctxOf(t), "c1")).ListScore; got == nil || *got != 0 {
			t.Fatalf("the reviewed analysis's list score is %v; want 0", got)
		}

		// Analysed again: the review goes stale, the machine's score is the call's.
		again := a
		again.CreatedAt = t0.Add(2 * time.Hour)
		noErr(t, re.ReplaceAnalysis(ctxOf(t), again, nil))
		if must(s.ReviewOf(ctxOf(t), a.DocID)).Current(again) {
			t.Fatal("the review is current after a re-analysis")
		}
		wantList(t, s, under, 1, "c3")
		wantList(t, s, from, 2, "c2", "c1")
		wantList(t, s, high, 3, "c1", "c2", "c3")
	}},
	{"ConcurrentSameReviewOneEvent", func(t *testing.T, s Stores) {
		a := reviewedCall(t, s)
		before := len(peekOutbox(t, s))
		in := domain.ReviewInput{Choices: map[string]domain.ReviewChoice{"name": {Answer: domain.AnswerYes, Reason: "said it at 0:40"}}}
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() {
				errs <- s.ReviewAnalysis(ctxOf(t), a.DocID, reviewWith(t, a, in, reviewerAt(t0.Add(time.Hour)), nil))
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			noErr(t, err)
		}
		if n := len(peekOutbox(t, s)); n != before+1 {
			t.Fatalf("8 submissions of one review left %d new outbox records; want 1", n-before)
		}
		if got := must(s.ReviewOf(ctxOf(t), a.DocID)); got.Revision != 1 {
			t.Fatalf("revision %d; want 1", got.Revision)
		}
	}},
}

// reviewedCall saves an analysis of a job of a new account and returns it.
func reviewedCall(t *testing.T, s Stores) domain.Analysis {
	t.Helper()
	acct := newAccount(t, s, "acc", 0)
	a := sampleAnalysis("an-1", "doc-1", acct.ID)
	noErr(t, s.SaveAnalysis(ctxOf(t), a, nil))
	return must(s.AnalysisByDoc(ctxOf(t), "doc-1"))
}

func reviewerAt(at time.Time) func() (domain.Reviewer, time.Time) {
	return func() (domain.Reviewer, time.Time) { return domain.Reviewer{ID: "u-1", Email: "ani@example.com"}, at }
}

// reviewWith is an update function that reviews as the use case does:
// domain.NewReview, and its event when the review changed. The review made
// is kept in *made when made is not nil.
func reviewWith(t *testing.T, want domain.Analysis, in domain.ReviewInput, who func() (domain.Reviewer, time.Time), made *domain.Review) func(domain.Analysis, *domain.Review) (*domain.Review, []domain.Event, error) {
	return func(a domain.Analysis, prev *domain.Review) (*domain.Review, []domain.Event, error) {
		if a.ID != want.ID || !sameTime(a.CreatedAt, want.CreatedAt) {
			t.Errorf("fn got analysis %s of %s; want %s of %s", a.ID, a.CreatedAt, want.ID, want.CreatedAt)
		}
		by, at := who()
		r, changed, err := domain.NewReview(a, prev, in, by, at)
		if err != nil || !changed {
			return nil, nil, err
		}
		r.ListScore = a.Reviewed(r).WithListScore(nil).ListScore // as the use case does (app.ReviewCall)
		if made != nil {
			*made = r
		}
		return &r, []domain.Event{domain.NewAnalysisReviewedEvent(a, r, nil, nil)}, nil
	}
}

func wantReview(t *testing.T, got, want domain.Review) {
	t.Helper()
	got.AnalysedAt, want.AnalysedAt = ms(got.AnalysedAt), ms(want.AnalysedAt)
	got.ReviewedAt, want.ReviewedAt = ms(got.ReviewedAt), ms(want.ReviewedAt)
	want.ListScore = nil // not part of the stored review
	if dump(got) != dump(want) {
		t.Fatalf("review:\n got %s\nwant %s", dump(got), dump(want))
	}
}

func errOf[T any](_ T, err error) error { return err }
