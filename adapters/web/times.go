package web

import (
	"fmt"
	"math"
)

// span writes an amount of audio time (seconds remaining, used, a day's
// seconds, a trial) in the page's language, as its readers write hours:
// "27 ր 03 վ" / "27 min 03 s" under an hour, "1 ժ 00 ր" / "1 h 00 min"
// from an hour on (seconds dropped). A moment of a recording, and a
// recording's length, are clock's m:ss or h:mm:ss, as players show them.
func span(lang Lang, s float64) string {
	if s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		s = 0
	}
	t := int(math.Round(s))
	h, m, sec := t/3600, t%3600/60, t%60
	u := spanUnits[lang == LangEn]
	switch {
	case h > 0:
		return fmt.Sprintf("%d %s %02d %s", h, u[0], m, u[1])
	case m > 0:
		return fmt.Sprintf("%d %s %02d %s", m, u[1], sec, u[2])
	}
	return fmt.Sprintf("%d %s", sec, u[2])
}

// spanUnits are the abbreviations of hour, minute and second: Armenian
// (ժամ, րոպե, վայրկյան), and English.
var spanUnits = map[bool][3]string{false: {"ժ", "ր", "վ"}, true: {"h", "min", "s"}}
