package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

const (
	sectionBegin = "<!-- bench:growth begin (written by make bench) -->"
	sectionEnd   = "<!-- bench:growth end -->"
)

// report is the markdown table of every size, each beside its store's
// first (the baseline) as a ratio.
func report(all []figures) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s UTC by `make bench` (`bench/growth`); the machine's load average then: %s.\n\n", time.Now().UTC().Format("2006-01-02 15:04"), loadavg())
	b.WriteString("| store, jobs | seeding | startup: ready / store quiet | first-touch polls/s | poll p50 / p99 (8 clients) | polls/s | list, first page p50 | list, cursor 90 % in, p50 | create+upload jobs/s |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	base := map[string]figures{}
	for _, f := range all {
		b0, ok := base[f.store]
		if !ok {
			base[f.store], b0 = f, f
		}
		seeded := "reused"
		if f.seeded > 0 {
			seeded = f.seeded.Round(time.Second).String()
		}
		ratio := func(x, y float64) string {
			if f.jobs == b0.jobs || y == 0 {
				return ""
			}
			return fmt.Sprintf(" (×%.2f)", x/y)
		}
		dr := func(x, y time.Duration) string { return ratio(float64(x), float64(y)) }
		fmt.Fprintf(&b, "| %s, %d | %s | %s%s / %s%s | %.0f%s | %s%s / %s%s | %.0f%s | %s%s | %s%s (×%.2f of first) | %.0f%s |\n",
			f.store, f.jobs, seeded,
			f.startup.Round(time.Millisecond), dr(f.startup, b0.startup), f.quiet.Round(time.Millisecond), dr(f.quiet, b0.quiet),
			f.firstTouch, ratio(f.firstTouch, b0.firstTouch),
			ms(f.pollP50), dr(f.pollP50, b0.pollP50), ms(f.pollP99), dr(f.pollP99, b0.pollP99),
			f.pollRate, ratio(f.pollRate, b0.pollRate),
			ms(f.listFirst), dr(f.listFirst, b0.listFirst),
			ms(f.listDeep), dr(f.listDeep, b0.listDeep), float64(f.listDeep)/float64(f.listFirst),
			f.create, ratio(f.create, b0.create))
	}
	return b.String()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// writeSection replaces the text between the section's markers in path
// (appending the section when it has none).
func writeSection(path, table string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(old)
	section := sectionBegin + "\n" + table + sectionEnd
	i, j := strings.Index(s, sectionBegin), strings.Index(s, sectionEnd)
	if i >= 0 && j > i {
		s = s[:i] + section + s[j+len(sectionEnd):]
	} else {
		s = strings.TrimRight(s, "\n") + "\n\n" + section + "\n"
	}
	return os.WriteFile(path, []byte(s), 0o644)
}
