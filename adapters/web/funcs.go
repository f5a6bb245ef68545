package web

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// funcs are the template functions of pages shown in loc (zone.go).
func (w *Web) funcs(loc *time.Location) template.FuncMap {
	return template.FuncMap{
		"t": func(l Lang, key string) string { return text(l, key) },
		// exportFormats are the recording page's downloads.
		"exportFormats": func() []domain.ExportFormat { return domain.ExportFormats },
		// oneLine shows an organisation's name stored before names were
		// checked (domain.OrgName) on one line, without bidi controls.
		"oneLine": domain.OneLine,
		"tf": func(l Lang, key string, args ...any) string {
			return fmt.Sprintf(text(l, key), args...)
		},
		"when": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return withZone(t.In(loc), "2006-01-02 15:04")
		},
		"whenPtr": func(t *time.Time) string {
			if t == nil {
				return ""
			}
			return withZone(t.In(loc), "2006-01-02 15:04:05")
		},
		"isoTime": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"clock":   clock,
		"seconds": func(p *float64) string {
			if p == nil {
				return "—"
			}
			return clock(*p)
		},
		"secondsOf": clock,
		"statusKey": func(s domain.Status) string { return "status." + string(s) },
		"typeKey":   func(t domain.JobType) string { return "type." + string(t) },
		"answerKey": func(a string) string { return "answer." + a },
		"deliveryKey": func(s string) string {
			return "delivery." + s
		},
		"terminal": func(s domain.Status) bool { return s.Terminal() },
		"pct": func(v float64) string {
			return strconv.FormatFloat(math.Round(v*1000)/10, 'f', -1, 64) + "%"
		},
		"pct100": func(v float64) int { return int(math.Round(v * 100)) },
		"total":  scoreText,
		"score":  func(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', 2, 64) },
		// speaker is the label of a transcript line in the page's
		// language; the API's text keeps the spec's "Խոսնակ N:".
		"speaker": func(l Lang, s string) string {
			if s == "" {
				return ""
			}
			return text(l, "one.speaker") + " " + s
		},
		// evidenceSpeaker is an evidence line's speaker ("Խոսնակ 1", as
		// the analysers and the API write it) in the page's language.
		"evidenceSpeaker": func(l Lang, s *string) string {
			if s == nil {
				return ""
			}
			if n, ok := strings.CutPrefix(*s, domain.SpeakerLabel+" "); ok {
				return text(l, "one.speaker") + " " + n
			}
			return *s
		},
		// Customer-written text, shown inert (inert.go).
		"prettyJSON": prettyJSON,
		"inert":      inert,
		"bytes": func(n int64) string {
			switch {
			case n >= 1<<20:
				return strconv.FormatFloat(math.Round(float64(n)/(1<<20)*10)/10, 'f', -1, 64) + " MiB"
			case n >= 1<<10:
				return strconv.FormatFloat(math.Round(float64(n)/(1<<10)*10)/10, 'f', -1, 64) + " KiB"
			}
			return strconv.FormatInt(n, 10) + " B"
		},
		"join":  strings.Join,
		"add":   func(a, b int) int { return a + b },
		"float": func(p *float64) float64 { return deref(p) },
		"startAttr": func(f float64) string {
			return strconv.FormatFloat(f, 'f', 2, 64)
		},
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// withZone formats t with its zone, so nobody takes Yerevan's time for
// their own: "2026-11-21 14:05 UTC+4" (zones without a name in the zone
// data are written by their offset).
func withZone(t time.Time, layout string) string {
	name, off := t.Zone()
	if name == "" || name[0] == '+' || name[0] == '-' {
		sign := "+"
		if off < 0 {
			sign, off = "-", -off
		}
		name = "UTC" + sign + strconv.Itoa(off/3600)
		if m := off % 3600 / 60; m != 0 {
			name += fmt.Sprintf(":%02d", m)
		}
	}
	return t.Format(layout) + " " + name
}

// clock writes seconds as m:ss or h:mm:ss: every duration on the pages.
//
// Seconds are first rounded to the tenth, then cut to the whole second:
// the chat model reads a line's start to the tenth ("[10.0]" for 9.96) and
// quotes it as its evidence's start, so a line and the evidence quoting it
// read the same time (issue 36: "0:10" in the evidence, "0:09" in the
// transcript).
func clock(s float64) string {
	if s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		s = 0
	}
	t := int(math.Round(s*10) / 10)
	h, m, sec := t/3600, t%3600/60, t%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, sec)
	}
	return fmt.Sprintf("%d:%02d", m, sec)
}
