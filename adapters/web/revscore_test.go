package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// historyRow is the history's row of doc in body ("" when it is not there).
func historyRow(body string, doc domain.DocID) string {
	_, row, ok := strings.Cut(body, `<tr data-live-id="`+string(doc)+`"`)
	if !ok {
		return ""
	}
	row, _, _ = strings.Cut(row, "</tr>")
	return row
}

// While a call's review is current, the history shows, filters and sorts
// by the reviewed score, marked reviewed; analysed again, the machine's
// (issue 36).
func TestHistoryShowsTheReviewedScore(t *testing.T) {
	sc := newScoredCalls(t)
	s, ck := sc.s, sc.ck
	ctx := context.Background()
	// "Full" is greet yes, name no: the machine's 1/2 · 0.50.
	if row := historyRow(s.do("GET", "/app/recordings", nil, ck).body, sc.full); !strings.Contains(row, "1/2 · 0.50") || strings.Contains(row, `data-field="reviewed"`) {
		t.Fatalf("before the review the row of Full is %q; want the machine's 1/2 · 0.50, not marked reviewed", row)
	}
	reviewer := domain.User{ID: "u-rev", AccountID: sc.acct, Email: "rev@example.com", Role: domain.RoleAnalyst}
	if _, _, err := s.uc.Commands.ReviewCall.Handle(ctx, sc.acct, reviewer, sc.full, domain.ReviewInput{
		Choices: map[string]domain.ReviewChoice{"name": {Answer: domain.AnswerYes, Reason: "said it at 0:12"}}}); err != nil {
		t.Fatal(err)
	}
	for lang, label := range map[string]string{"en": ">reviewed</span>", "hy": ">վերանայված</span>"} {
		ck["hyscribe_lang"] = lang
		row := historyRow(s.do("GET", "/app/recordings", nil, ck).body, sc.full)
		if !strings.Contains(row, "2/2 · 1.00") || !strings.Contains(row, `data-field="reviewed"`) || !strings.Contains(row, label) {
			t.Fatalf("%s: after the review the row of Full is %q; want the reviewed 2/2 · 1.00 marked %s", lang, row, label)
		}
	}
	ck["hyscribe_lang"] = "en"
	// The filters and the score order read the reviewed score too.
	under := s.do("GET", "/app/recordings?"+url.Values{"scoreUnder": {"0.9"}}.Encode(), nil, ck).body
	if historyRow(under, sc.full) != "" {
		t.Fatal("the filter score under 0.9 lists the call reviewed to 1.00")
	}
	from := s.do("GET", "/app/recordings?"+url.Values{"scoreFrom": {"0.9"}}.Encode(), nil, ck).body
	if historyRow(from, sc.full) == "" {
		t.Fatal("the filter score from 0.9 leaves out the call reviewed to 1.00")
	}

	// Analysed again: the review is stale, the score the machine's.
	a, err := s.store.AnalysisByDoc(ctx, sc.full)
	if err != nil {
		t.Fatal(err)
	}
	a.CreatedAt = a.CreatedAt.Add(time.Minute)
	re, ok := s.store.(ports.AnalysisReplacer)
	if !ok {
		t.Fatal("the site's store cannot replace analyses (ports.AnalysisReplacer)")
	}
	if err := re.ReplaceAnalysis(ctx, a.WithListScore(nil), nil); err != nil {
		t.Fatal(err)
	}
	if row := historyRow(s.do("GET", "/app/recordings", nil, ck).body, sc.full); !strings.Contains(row, "1/2 · 0.50") || strings.Contains(row, `data-field="reviewed"`) {
		t.Fatalf("after a re-analysis the row of Full is %q; want the machine's 1/2 · 0.50, not marked reviewed", row)
	}
}
