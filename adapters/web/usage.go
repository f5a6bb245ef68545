package web

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/domain"
)

type usageData struct {
	Account  domain.Account
	Seconds  float64 // remaining
	Days     int
	Periods  []int
	Report   domain.UsageReport
	Bars     []usageBar
	ChartW   int
	ChartH   int
	Statuses []domain.Status
	From, To string
}

// usageBar is one day of the audio-seconds chart, laid out on the server
// (plain SVG, no script, no inline style).
type usageBar struct {
	domain.UsageDay
	X, Y, W, H int
	Label      string
	Counts     []int // the day's jobs in usageData.Statuses order
}

// usage is GET /app/usage?days=30|90: seconds remaining, audio seconds per
// day (a chart and a table), jobs per day by status, and the largest
// recordings of the period.
func (w *Web) usage(c *fiber.Ctx) error {
	v := visitorOf(c)
	vw := w.newView(c, v, "use.title", "usage")
	days := domain.UsagePeriods[0]
	if s := c.Query("days"); s != "" {
		days, _ = strconv.Atoi(s)
	}
	rep, err := w.queries.Usage.Handle(c.UserContext(), v.Account.ID, days, w.zoneOf(v))
	var ve *domain.ValidationError
	if errors.As(err, &ve) {
		days = domain.UsagePeriods[0]
		vw.Status, vw.Error = fiber.StatusBadRequest, tf(vw.Lang, "use.badperiod", fmt.Sprint(domain.UsagePeriods))
		rep, err = w.queries.Usage.Handle(c.UserContext(), v.Account.ID, days, w.zoneOf(v))
	}
	if err != nil {
		return err
	}
	d := usageData{Account: v.Account, Seconds: v.Account.SecondsRemaining(), Days: days, Periods: domain.UsagePeriods,
		Report: rep, ChartW: chartW, ChartH: chartH, Statuses: []domain.Status{domain.StatusUploading, domain.StatusProcessing, domain.StatusConverting, domain.StatusTranscribed, domain.StatusFailed},
		From: rep.From.Format(time.DateOnly), To: rep.Days[len(rep.Days)-1].Date.Format(time.DateOnly)}
	d.Bars = layoutUsage(rep.Days, d.Statuses)
	vw.Data = &d
	return w.render(c, "usage", vw)
}

func layoutUsage(days []domain.UsageDay, statuses []domain.Status) []usageBar {
	most := 1.0
	for _, d := range days {
		most = max(most, d.Seconds)
	}
	step := chartW / max(len(days), 1)
	bw := min(max(2, step*3/4), 48)
	out := make([]usageBar, len(days))
	for i, d := range days {
		h := int(math.Round(d.Seconds / most * float64(chartH-20)))
		counts := make([]int, len(statuses))
		for k, s := range statuses {
			counts[k] = d.ByStatus[s]
		}
		out[i] = usageBar{UsageDay: d, X: i*step + (step-bw)/2, Y: chartH - h, W: bw, H: h, Label: d.Date.Format(time.DateOnly), Counts: counts}
	}
	return out
}
