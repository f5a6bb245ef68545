package metrics

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// sample is one parsed sample line.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// exposition is a parsed text-format document.
type exposition struct {
	help    map[string]string
	types   map[string]string
	samples []sample
}

func (e exposition) find(name string, labels map[string]string) (float64, bool) {
next:
	for _, s := range e.samples {
		if s.name != name || len(s.labels) != len(labels) {
			continue
		}
		for k, v := range labels {
			if s.labels[k] != v {
				continue next
			}
		}
		return s.value, true
	}
	return 0, false
}

var (
	sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$`)
	headerLine = regexp.MustCompile(`^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$`)
)

// parse checks text against the exposition format (version 0.0.4) and
// returns what it holds. It is deliberately strict: one HELP and one TYPE per
// family, both before the family's samples, samples of a family together,
// only the suffixes the type allows, and well-formed escapes.
func parse(t *testing.T, text string) exposition {
	t.Helper()
	e := exposition{help: map[string]string{}, types: map[string]string{}}
	if text != "" && !strings.HasSuffix(text, "\n") {
		t.Fatal("output does not end with a newline")
	}
	done := map[string]bool{} // families whose samples are finished
	current := ""
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if m := headerLine.FindStringSubmatch(line); m != nil {
			kind, name, rest := m[1], m[2], m[3]
			if name != current {
				if done[name] {
					t.Fatalf("line %d: %s of %s after its block ended", i+1, kind, name)
				}
				done[current] = true
				current = name
			}
			if kind == "HELP" {
				if _, dup := e.help[name]; dup {
					t.Fatalf("line %d: second HELP for %s", i+1, name)
				}
				e.help[name] = unescape(t, rest, false)
			} else {
				if _, dup := e.types[name]; dup {
					t.Fatalf("line %d: second TYPE for %s", i+1, name)
				}
				switch rest {
				case "counter", "gauge", "histogram", "summary", "untyped":
				default:
					t.Fatalf("line %d: unknown type %q", i+1, rest)
				}
				e.types[name] = rest
			}
			continue
		}
		if strings.HasPrefix(line, "#") || line == "" {
			t.Fatalf("line %d: unexpected %q", i+1, line)
		}
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("line %d: not a sample: %q", i+1, line)
		}
		s := sample{name: m[1], labels: parseLabels(t, m[2])}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("line %d: value %q: %v", i+1, m[3], err)
		}
		s.value = v
		fam := familyOf(s.name, e.types)
		if fam != current {
			t.Fatalf("line %d: sample %s outside its family block (current %q)", i+1, s.name, current)
		}
		typ, ok := e.types[fam]
		if !ok {
			t.Fatalf("line %d: sample %s has no TYPE", i+1, s.name)
		}
		if typ == "histogram" {
			if s.name == fam {
				t.Fatalf("line %d: histogram sample without suffix", i+1)
			}
			if _, ok := s.labels["le"]; ok != strings.HasSuffix(s.name, "_bucket") {
				t.Fatalf("line %d: le label on %s", i+1, s.name)
			}
		} else if s.name != fam && (typ != "summary" || (s.name != fam+"_sum" && s.name != fam+"_count")) {
			t.Fatalf("line %d: %s sample named %s", i+1, typ, s.name)
		}
		e.samples = append(e.samples, s)
	}
	checkHistograms(t, e)
	return e
}

func familyOf(name string, types map[string]string) string {
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && (types[base] == "histogram" || (suffix != "_bucket" && types[base] == "summary")) {
			return base
		}
	}
	return name
}

func parseLabels(t *testing.T, s string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if s == "" {
		return out
	}
	s = s[1 : len(s)-1]
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if eq < 0 || len(s) < eq+2 || s[eq+1] != '"' {
			t.Fatalf("bad labels near %q", s)
		}
		name := s[:eq]
		if !regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`).MatchString(name) {
			t.Fatalf("bad label name %q", name)
		}
		// Find the closing quote, skipping escaped characters.
		i := eq + 2
		for ; i < len(s) && s[i] != '"'; i++ {
			if s[i] == '\\' {
				i++
			}
		}
		if i >= len(s) {
			t.Fatalf("unterminated label value in %q", s)
		}
		if _, dup := out[name]; dup {
			t.Fatalf("label %s twice", name)
		}
		out[name] = unescape(t, s[eq+2:i], true)
		s = s[i+1:]
		if s != "" {
			if s[0] != ',' {
				t.Fatalf("expected ',' in labels, got %q", s)
			}
			s = s[1:]
		}
	}
	return out
}

func unescape(t *testing.T, s string, label bool) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if label && (c == '"' || c == '\n') {
			t.Fatalf("unescaped %q in label value %q", c, s)
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			t.Fatalf("dangling backslash in %q", s)
		}
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		case '"':
			if !label {
				t.Fatalf("\\\" escape in HELP %q", s)
			}
			b.WriteByte('"')
		default:
			t.Fatalf("unknown escape \\%c in %q", s[i], s)
		}
	}
	return b.String()
}

// checkHistograms verifies every histogram series: ascending le bounds,
// cumulative counts, a +Inf bucket equal to _count, and a _sum.
func checkHistograms(t *testing.T, e exposition) {
	t.Helper()
	type series struct {
		les    []float64
		counts []float64
		count  *float64
		sum    bool
	}
	all := map[string]*series{}
	key := func(fam string, labels map[string]string) string {
		var parts []string
		for k, v := range labels {
			if k != "le" {
				parts = append(parts, k+"="+v)
			}
		}
		sort.Strings(parts)
		return fam + "|" + strings.Join(parts, ",")
	}
	for _, s := range e.samples {
		fam := familyOf(s.name, e.types)
		if e.types[fam] != "histogram" {
			continue
		}
		k := key(fam, s.labels)
		if all[k] == nil {
			all[k] = &series{}
		}
		sr := all[k]
		switch {
		case strings.HasSuffix(s.name, "_bucket"):
			le, err := strconv.ParseFloat(s.labels["le"], 64)
			if err != nil {
				t.Fatalf("le %q: %v", s.labels["le"], err)
			}
			sr.les = append(sr.les, le)
			sr.counts = append(sr.counts, s.value)
		case strings.HasSuffix(s.name, "_count"):
			v := s.value
			sr.count = &v
		case strings.HasSuffix(s.name, "_sum"):
			sr.sum = true
		}
	}
	for k, sr := range all {
		if len(sr.les) == 0 || !math.IsInf(sr.les[len(sr.les)-1], +1) {
			t.Fatalf("%s: no le=\"+Inf\" bucket last", k)
		}
		for i := 1; i < len(sr.les); i++ {
			if sr.les[i] <= sr.les[i-1] || sr.counts[i] < sr.counts[i-1] {
				t.Fatalf("%s: buckets not ascending and cumulative: %v %v", k, sr.les, sr.counts)
			}
		}
		if sr.count == nil || *sr.count != sr.counts[len(sr.counts)-1] || !sr.sum {
			t.Fatalf("%s: _count/_sum missing or _count != +Inf bucket", k)
		}
	}
}

func scrape(t *testing.T, r *Registry) exposition {
	t.Helper()
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	return parse(t, buf.String())
}

func TestCounter(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("http_requests_total", "Requests served.", "route", "code")
	c.With("/a", "200").Inc()
	c.With("/a", "200").Inc()
	c.With("/a", "500").Add(2.5)
	plain := r.Counter("events_total", "Events.")

	e := scrape(t, r)
	if e.types["http_requests_total"] != "counter" || e.help["http_requests_total"] != "Requests served." {
		t.Fatalf("header: %v %v", e.types, e.help)
	}
	if v, _ := e.find("http_requests_total", map[string]string{"route": "/a", "code": "200"}); v != 2 {
		t.Fatalf("count = %v, want 2", v)
	}
	if v, _ := e.find("http_requests_total", map[string]string{"route": "/a", "code": "500"}); v != 2.5 {
		t.Fatalf("count = %v, want 2.5", v)
	}
	if v, ok := e.find("events_total", map[string]string{}); !ok || v != 0 {
		t.Fatalf("a counter without labels is written as 0 before use: %v %v", v, ok)
	}
	plain.With().Inc()
	if v, _ := scrape(t, r).find("events_total", map[string]string{}); v != 1 {
		t.Fatalf("events_total = %v", v)
	}
}

func TestEscaping(t *testing.T) {
	r := NewRegistry()
	nasty := "a \"quoted\" \\ back\nslash, = } {x=\"y\"} Խոսնակ"
	r.Counter("weird_total", "Help with \\ backslash\nand \"quotes\".", "v").With(nasty).Inc()
	e := scrape(t, r)
	if got := e.help["weird_total"]; got != "Help with \\ backslash\nand \"quotes\"." {
		t.Fatalf("help round trip: %q", got)
	}
	if v, ok := e.find("weird_total", map[string]string{"v": nasty}); !ok || v != 1 {
		t.Fatalf("label value did not round trip: %+v", e.samples)
	}
}

func TestHistogram(t *testing.T) {
	r := NewRegistry()
	h := r.Histogram("http_request_duration_seconds", "Latency.", []float64{0.1, 0.5, 1}, "route")
	for _, v := range []float64{0.05, 0.1, 0.3, 0.5, 0.7, 2, math.NaN()} {
		h.With("/x").Observe(v)
	}
	e := scrape(t, r)
	want := map[string]float64{"0.1": 2, "0.5": 4, "1": 5, "+Inf": 6} // ≤ le, cumulative; NaN ignored
	for le, n := range want {
		if v, ok := e.find("http_request_duration_seconds_bucket", map[string]string{"route": "/x", "le": le}); !ok || v != n {
			t.Errorf("bucket le=%s = %v (%v), want %v", le, v, ok, n)
		}
	}
	if v, _ := e.find("http_request_duration_seconds_count", map[string]string{"route": "/x"}); v != 6 {
		t.Errorf("_count = %v", v)
	}
	if v, _ := e.find("http_request_duration_seconds_sum", map[string]string{"route": "/x"}); math.Abs(v-3.65) > 1e-9 {
		t.Errorf("_sum = %v, want 3.65", v)
	}
	// A histogram without labels is written, all zero, before use.
	r.Histogram("job_seconds", "Job time.", nil)
	if v, ok := scrape(t, r).find("job_seconds_bucket", map[string]string{"le": "+Inf"}); !ok || v != 0 {
		t.Fatalf("empty histogram: %v %v", v, ok)
	}
}

func TestGauge(t *testing.T) {
	r := NewRegistry()
	n := 3.0
	r.Gauge("queue_depth", "Items waiting.", func() float64 { return n })
	if v, _ := scrape(t, r).find("queue_depth", map[string]string{}); v != 3 {
		t.Fatalf("gauge = %v", v)
	}
	r.Gauge("queue_depth", "Items waiting.", func() float64 { return math.Inf(1) })
	if v, _ := scrape(t, r).find("queue_depth", map[string]string{}); !math.IsInf(v, 1) {
		t.Fatalf("re-registered gauge = %v", v)
	}
}

func TestOutputIsSorted(t *testing.T) {
	r := NewRegistry()
	r.Counter("b_total", "B.", "k").With("z").Inc()
	r.Counter("b_total", "B.", "k").With("a").Inc()
	r.Counter("a_total", "A.")
	var buf bytes.Buffer
	_ = r.WriteText(&buf)
	out := buf.String()
	if !(strings.Index(out, "a_total") < strings.Index(out, "b_total") &&
		strings.Index(out, `k="a"`) < strings.Index(out, `k="z"`)) {
		t.Fatalf("not sorted:\n%s", out)
	}
}

func TestRegistration(t *testing.T) {
	r := NewRegistry()
	a := r.Counter("x_total", "X.", "l")
	if b := r.Counter("x_total", "X again.", "l"); a != b {
		t.Fatal("registering the same counter twice must return the first")
	}
	h := r.Histogram("h_seconds", "H.", []float64{1, 2})
	if r.Histogram("h_seconds", "H.", []float64{1, 2, math.Inf(1)}) != h {
		t.Fatal("an explicit +Inf bucket is the same histogram")
	}
	mustPanic(t, "type conflict", func() { r.Histogram("x_total", "X.", nil, "l") })
	mustPanic(t, "label conflict", func() { r.Counter("x_total", "X.", "other") })
	mustPanic(t, "bucket conflict", func() { r.Histogram("h_seconds", "H.", []float64{1, 3}) })
	mustPanic(t, "bad name", func() { r.Counter("1abc", "") })
	mustPanic(t, "bad label", func() { r.Counter("ok_total", "", "bad-label") })
	mustPanic(t, "reserved label", func() { r.Counter("ok2_total", "", "__x") })
	mustPanic(t, "le on histogram", func() { r.Histogram("ok_seconds", "", nil, "le") })
	mustPanic(t, "repeated label", func() { r.Counter("ok3_total", "", "a", "a") })
	mustPanic(t, "unsorted buckets", func() { r.Histogram("ok4_seconds", "", []float64{2, 1}) })
	mustPanic(t, "label count", func() { a.With("1", "2") })
	mustPanic(t, "negative add", func() { a.With("1").Add(-1) })
	mustPanic(t, "nil gauge", func() { r.Gauge("g", "", nil) })
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", name)
		}
	}()
	f()
}

func TestConcurrentUse(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("c_total", "C.", "w")
	h := r.Histogram("h_seconds", "H.", []float64{0.5}, "w")
	const workers, each = 8, 2000
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			label := strconv.Itoa(w % 2)
			for i := range each {
				c.With(label).Inc()
				h.With(label).Observe(float64(i%2) * 0.75)
				if i%500 == 0 {
					var buf bytes.Buffer
					_ = r.WriteText(&buf) // scrapes race the writers
				}
			}
		}()
	}
	wg.Wait()
	e := scrape(t, r)
	for _, l := range []string{"0", "1"} {
		if v, _ := e.find("c_total", map[string]string{"w": l}); v != workers/2*each {
			t.Errorf("c_total{w=%s} = %v", l, v)
		}
		if v, _ := e.find("h_seconds_bucket", map[string]string{"w": l, "le": "0.5"}); v != workers/2*each/2 {
			t.Errorf("h_seconds_bucket{w=%s,le=0.5} = %v", l, v)
		}
	}
}

func BenchmarkCounterWithInc(b *testing.B) {
	c := NewRegistry().Counter("c_total", "C.", "route", "method", "code")
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.With("/api/getTranscription", "GET", "200").Inc()
		}
	})
}

func BenchmarkHistogramObserve(b *testing.B) {
	h := NewRegistry().Histogram("h_seconds", "H.", nil, "route")
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			h.With("/api/getTranscription").Observe(float64(i%100) / 1000)
			i++
		}
	})
}

func ExampleRegistry() {
	r := NewRegistry()
	r.Counter("jobs_created_total", "Jobs created.", "type").With("phone_call").Inc()
	_ = r.WriteText(stdout{})
	// Output:
	// # HELP jobs_created_total Jobs created.
	// # TYPE jobs_created_total counter
	// jobs_created_total{type="phone_call"} 1
}

type stdout struct{}

func (stdout) Write(p []byte) (int, error) { fmt.Print(string(p)); return len(p), nil }
