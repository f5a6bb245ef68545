package web

import (
	"errors"
	"math"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/domain"
)

type analyticsData struct {
	Checklists []domain.Checklist
	Checklist  string
	From, To   string
	Report     *domain.ChecklistReport
	ClickHouse bool
	Bars       []dayBar
	ChartW     int
	ChartH     int
}

// dayBar is one column of the volume chart, laid out on the server so the
// chart is plain SVG: no script, no inline style.
type dayBar struct {
	domain.DayStats
	X, Y, W, H int
	Label      string
}

const (
	chartW = 640
	chartH = 160
)

func (w *Web) analytics(c *fiber.Ctx) error {
	v := visitorOf(c)
	cls, err := w.queries.ListChecklists.Handle(c.UserContext(), v.Account.ID)
	if err != nil {
		return err
	}
	now := time.Now().In(w.zoneOf(v))
	d := analyticsData{Checklists: cls, Checklist: c.Query("checklist"), From: c.Query("from"), To: c.Query("to"), ChartW: chartW, ChartH: chartH}
	if d.Checklist == "" && len(cls) > 0 {
		d.Checklist = cls[0].ID
	}
	if d.From == "" {
		d.From = now.AddDate(0, 0, -29).Format(time.DateOnly)
	}
	if d.To == "" {
		d.To = now.Format(time.DateOnly)
	}
	vw := w.newView(c, v, "an.title", "analytics")
	vw.Data = &d
	if d.Checklist == "" {
		return w.render(c, "analytics", vw)
	}
	from, err1 := time.ParseInLocation(time.DateOnly, d.From, w.zoneOf(v))
	to, err2 := time.ParseInLocation(time.DateOnly, d.To, w.zoneOf(v))
	if err1 != nil || err2 != nil {
		vw.Status, vw.Error = fiber.StatusBadRequest, text(vw.Lang, "an.baddates")
		return w.render(c, "analytics", vw)
	}
	rep, ch, err := w.queries.ReportChecklist.Handle(c.UserContext(), v.Account.ID, d.Checklist, from, to.AddDate(0, 0, 1))
	var ve *domain.ValidationError
	switch {
	case errors.As(err, &ve):
		vw.Status, vw.Error = fiber.StatusBadRequest, invalidText(vw.Lang, ve)
		return w.render(c, "analytics", vw)
	case err != nil:
		return err
	}
	d.Report, d.ClickHouse = &rep, ch
	d.Bars = layoutBars(rep.Days, from, to.AddDate(0, 0, 1))
	return w.render(c, "analytics", vw)
}

// layoutBars gives every day of the period a slot, so that a quiet day
// shows as a gap and one busy day is not drawn as a wall.
func layoutBars(days []domain.DayStats, from, to time.Time) []dayBar {
	n := int(to.Sub(from).Hours()/24 + 0.5)
	n = min(max(n, 1), 366)
	byDay := make(map[string]domain.DayStats, len(days))
	var most int64 = 1
	for _, d := range days {
		byDay[d.Day] = d
		most = max(most, d.Analyses)
	}
	step := chartW / n
	bw := min(max(2, step*3/4), 48)
	out := make([]dayBar, 0, n)
	for i := 0; i < n; i++ {
		day := from.AddDate(0, 0, i).Format(time.DateOnly)
		d, ok := byDay[day]
		if !ok {
			d = domain.DayStats{Day: day}
		}
		h := int(math.Round(float64(d.Analyses) / float64(most) * float64(chartH-20)))
		out = append(out, dayBar{DayStats: d, X: i*step + (step-bw)/2, Y: chartH - h, W: bw, H: h, Label: day})
	}
	return out
}
