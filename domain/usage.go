package domain

import (
	"cmp"
	"slices"
	"time"
)

// UsageDay is one day of an account's usage, in the people's time zone.
type UsageDay struct {
	Date     time.Time      // midnight of the day
	Seconds  float64        // audio seconds of the day's recordings the balance paid for (Job.Charged)
	ByStatus map[Status]int // the day's jobs by their current status
	Jobs     int
}

// UsageReport is what an account used over the last Days days.
type UsageReport struct {
	From    time.Time  // midnight of the first day
	Days    []UsageDay // oldest first, one per day, empty days included
	Seconds float64    // sum of the days' seconds
	Jobs    int
	Largest []Job // the longest recordings of the period, longest first
}

// UsagePeriods are the periods a usage report may cover, in days.
var UsagePeriods = []int{30, 90}

// UsageFrom is midnight, in loc, of the first of the days days that end
// with the day of now.
func UsageFrom(now time.Time, days int, loc *time.Location) time.Time {
	n := now.In(loc)
	return time.Date(n.Year(), n.Month(), n.Day()-days+1, 0, 0, 0, 0, loc)
}

// Charged reports whether the account's balance pays for the job's audio:
// it was measured (its seconds reserved) and has not failed, since a
// failure refunds the reservation (Job.Fail). Usage counts these seconds,
// so "used" and the seconds remaining add up to what the account had.
func (j *Job) Charged() bool { return j.Audio != nil && j.Status != StatusFailed }

// BuildUsage counts jobs (created since UsageFrom(now, days, loc)) per day
// of loc: audio seconds of the charged ones (Job.Charged) and jobs by
// status, plus the largest measured recordings, at most largest of them.
func BuildUsage(jobs []Job, now time.Time, days int, loc *time.Location, largest int) UsageReport {
	from := UsageFrom(now, days, loc)
	r := UsageReport{From: from, Days: make([]UsageDay, days)}
	for i := range r.Days {
		r.Days[i] = UsageDay{Date: time.Date(from.Year(), from.Month(), from.Day()+i, 0, 0, 0, 0, loc), ByStatus: map[Status]int{}}
	}
	var measured []Job
	for _, j := range jobs {
		c := j.CreatedAt.In(loc)
		day := time.Date(c.Year(), c.Month(), c.Day(), 0, 0, 0, 0, loc)
		i := int(day.Sub(from).Hours()/24 + 0.5) // days may be 23 or 25 hours long
		if j.CreatedAt.Before(from) || i < 0 || i >= days {
			continue
		}
		d := &r.Days[i]
		d.Jobs++
		d.ByStatus[j.Status]++
		r.Jobs++
		if j.Charged() {
			d.Seconds += j.Audio.Duration
			r.Seconds += j.Audio.Duration
		}
		if j.Audio != nil {
			measured = append(measured, j)
		}
	}
	slices.SortStableFunc(measured, func(a, b Job) int { return cmp.Compare(b.Audio.Duration, a.Audio.Duration) })
	r.Largest = measured[:min(len(measured), largest)]
	return r
}
