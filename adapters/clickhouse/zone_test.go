package clickhouse_test

import (
	"context"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// The report counts the account's days (issue 27): a call analysed at
// 22:30 UTC is the next day in Yerevan (UTC+4), and the same day in UTC;
// the store's report (domain.BuildChecklistReport) agrees.
func TestChecklistReportCountsDaysInTheAccountsZone(t *testing.T) {
	s, _, _ := newStore(t)
	ctx := context.Background()
	late := time.Date(2026, 11, 20, 22, 30, 0, 0, time.UTC) // 2026-11-21 02:30 in Yerevan
	noon := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	evs := []domain.Event{analysisEvent("late", "acc", "cl", late, "yes", "no"), analysisEvent("noon", "acc", "cl", noon, "yes", "yes")}
	if err := s.Write(ctx, evs); err != nil {
		t.Fatal(err)
	}
	yerevan, err := time.LoadLocation("Asia/Yerevan")
	if err != nil {
		t.Fatal(err)
	}
	days := func(loc *time.Location) map[string]int64 {
		from := time.Date(2026, 11, 20, 0, 0, 0, 0, loc)
		rep, err := s.ChecklistReport(ctx, "acc", "cl", from, from.AddDate(0, 0, 2))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int64{}
		for _, d := range rep.Days {
			out[d.Day] = d.Analyses
		}
		return out
	}
	if got := days(yerevan); got["2026-11-20"] != 1 || got["2026-11-21"] != 1 {
		t.Errorf("days in Yerevan: %v; want the 22:30 UTC call on the 21st", got)
	}
	if got := days(time.UTC); got["2026-11-20"] != 2 {
		t.Errorf("days in UTC: %v; want both on the 20th", got)
	}
	// The store-computed report buckets alike.
	var as []domain.CallAnalysis
	for _, at := range []time.Time{late, noon} {
		as = append(as, domain.CallAnalysis{CallAt: at, Analysis: domain.Analysis{Status: domain.AnalysisOK, CreatedAt: at,
			Results: map[string]domain.QuestionResult{"q1": {Answer: "yes", Score: 1}}}})
	}
	from := time.Date(2026, 11, 20, 0, 0, 0, 0, yerevan)
	rep := domain.BuildChecklistReport("acc", "cl", from, from.AddDate(0, 0, 2), as, nil)
	if len(rep.Days) != 2 || rep.Days[0].Day != "2026-11-20" || rep.Days[1].Day != "2026-11-21" {
		t.Errorf("the store's report in Yerevan: %+v", rep.Days)
	}
}
