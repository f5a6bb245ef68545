package domain_test

import (
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

func TestBuildUsage(t *testing.T) {
	yerevan := time.FixedZone("AMT", 4*3600)
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC) // 16:00 in Yerevan
	job := func(id string, at time.Time, st domain.Status, secs float64) domain.Job {
		j := domain.Job{ID: domain.DocID(id), CreatedAt: at, Status: st}
		if secs > 0 {
			j.Audio = &domain.AudioInfo{Duration: secs}
		}
		return j
	}
	jobs := []domain.Job{
		job("old", time.Date(2026, 3, 7, 19, 59, 0, 0, time.UTC), domain.StatusTranscribed, 99),  // 23:59 on the 7th: before the period
		job("a", time.Date(2026, 3, 7, 20, 0, 0, 0, time.UTC), domain.StatusTranscribed, 30),     // 00:00 on the 8th in Yerevan
		job("b", time.Date(2026, 3, 10, 11, 0, 0, 0, time.UTC), domain.StatusTranscribed, 120.5), // today
		job("c", time.Date(2026, 3, 10, 11, 30, 0, 0, time.UTC), domain.StatusFailed, 0),         // never measured
		job("d", time.Date(2026, 3, 10, 11, 40, 0, 0, time.UTC), domain.StatusFailed, 7),         // measured, then failed
	}
	r := domain.BuildUsage(jobs, now, 3, yerevan, 2)
	if len(r.Days) != 3 || !r.From.Equal(time.Date(2026, 3, 8, 0, 0, 0, 0, yerevan)) {
		t.Fatalf("days %d from %s", len(r.Days), r.From)
	}
	if d := r.Days[0]; d.Jobs != 1 || d.Seconds != 30 || d.ByStatus[domain.StatusTranscribed] != 1 {
		t.Errorf("first day %+v", d)
	}
	if d := r.Days[1]; d.Jobs != 0 || d.Seconds != 0 {
		t.Errorf("empty day %+v", d)
	}
	// d's 7 s were refunded when it failed: not used (issue 36).
	if d := r.Days[2]; d.Jobs != 3 || d.Seconds != 120.5 || d.ByStatus[domain.StatusFailed] != 2 {
		t.Errorf("today %+v", d)
	}
	if r.Jobs != 4 || r.Seconds != 150.5 {
		t.Errorf("totals %d jobs %.1f s", r.Jobs, r.Seconds)
	}
	if len(r.Largest) != 2 || r.Largest[0].ID != "b" || r.Largest[1].ID != "a" {
		t.Errorf("largest %v", r.Largest)
	}
}
