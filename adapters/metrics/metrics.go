// Package metrics is a small, dependency-free registry of counters,
// histograms and gauges written in the Prometheus text exposition format
// (version 0.0.4) for GET /metrics.
//
// Any component may register its metrics in the one Registry the process
// shares. Recording is lock-free: a labelled child is found through a
// sync.Map and updated with atomics, so metrics cost next to nothing on the
// request path. Registration mistakes (bad names, a name reused with another
// shape, the wrong number of label values) are programming errors and panic.
package metrics

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// ContentType is the media type of WriteText's output.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// DefaultBuckets suit request latencies in seconds (Prometheus' defaults).
var DefaultBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

var (
	metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelName  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// Registry holds metric families and writes them out.
type Registry struct {
	mu       sync.Mutex
	families map[string]family
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{families: map[string]family{}} }

type family interface {
	// same reports whether other describes the same metric, so that
	// registering it twice returns the first.
	same(other family) bool
	write(w *bufio.Writer)
}

// register adds f under name or returns the family already registered with
// the same shape.
func (r *Registry) register(name string, f family) family {
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.families[name]; ok {
		if !old.same(f) {
			panic(fmt.Sprintf("metrics: %s is already registered with another type, labels or buckets", name))
		}
		return old
	}
	r.families[name] = f
	return f
}

func checkNames(name string, labels []string, reserved ...string) {
	if !metricName.MatchString(name) {
		panic(fmt.Sprintf("metrics: invalid metric name %q", name))
	}
	seen := map[string]bool{}
	for _, l := range labels {
		if !labelName.MatchString(l) || strings.HasPrefix(l, "__") || slices.Contains(reserved, l) {
			panic(fmt.Sprintf("metrics: invalid label name %q for %s", l, name))
		}
		if seen[l] {
			panic(fmt.Sprintf("metrics: label %q repeated for %s", l, name))
		}
		seen[l] = true
	}
}

// WriteText writes every metric in the Prometheus text format, families
// sorted by name and samples by label values, so the output is stable.
func (r *Registry) WriteText(w io.Writer) error {
	r.mu.Lock()
	names := make([]string, 0, len(r.families))
	for n := range r.families {
		names = append(names, n)
	}
	fams := make([]family, len(names))
	sort.Strings(names)
	for i, n := range names {
		fams[i] = r.families[n]
	}
	r.mu.Unlock()

	bw := bufio.NewWriter(w)
	for _, f := range fams {
		f.write(bw)
	}
	return bw.Flush()
}

// children is the set of labelled children of one family.
type children[T any] struct {
	labels []string
	m      sync.Map // joined label values → *T
	newT   func(values []string) *T
}

func (c *children[T]) with(name string, values []string) *T {
	if len(values) != len(c.labels) {
		panic(fmt.Sprintf("metrics: %s takes %d label values (%s), got %d", name, len(c.labels), strings.Join(c.labels, ", "), len(values)))
	}
	key := strings.Join(values, "\xff") // a byte that cannot occur in UTF-8 text
	if v, ok := c.m.Load(key); ok {
		return v.(*T)
	}
	v, _ := c.m.LoadOrStore(key, c.newT(slices.Clone(values)))
	return v.(*T)
}

// sorted returns the children ordered by their label values.
func (c *children[T]) sorted() []*T {
	type kv struct {
		k string
		v *T
	}
	var all []kv
	c.m.Range(func(k, v any) bool {
		all = append(all, kv{k.(string), v.(*T)})
		return true
	})
	sort.Slice(all, func(i, j int) bool { return all[i].k < all[j].k })
	out := make([]*T, len(all))
	for i, e := range all {
		out[i] = e.v
	}
	return out
}

// CounterVec is a counter family with labels.
type CounterVec struct {
	name, help string
	kids       children[Counter]
}

// Counter is one labelled counter.
type Counter struct {
	values []string
	bits   atomic.Uint64 // float64 bits
}

// Counter registers (or returns the already registered) counter family.
func (r *Registry) Counter(name, help string, labelNames ...string) *CounterVec {
	checkNames(name, labelNames)
	v := &CounterVec{name: name, help: help, kids: children[Counter]{
		labels: slices.Clone(labelNames),
		newT:   func(values []string) *Counter { return &Counter{values: values} },
	}}
	got := r.register(name, v).(*CounterVec)
	if len(labelNames) == 0 {
		got.With() // a counter without labels is written as 0 before its first increment
	}
	return got
}

func (v *CounterVec) same(f family) bool {
	o, ok := f.(*CounterVec)
	return ok && slices.Equal(o.kids.labels, v.kids.labels)
}

// With returns the counter for these label values, in the order of the
// label names given at registration.
func (v *CounterVec) With(labelValues ...string) *Counter { return v.kids.with(v.name, labelValues) }

// Inc adds one.
func (c *Counter) Inc() { c.Add(1) }

// Add adds delta, which must not be negative: counters only go up.
func (c *Counter) Add(delta float64) {
	if delta < 0 || math.IsNaN(delta) {
		panic("metrics: a counter cannot decrease")
	}
	addFloat(&c.bits, delta)
}

// Value is the current count.
func (c *Counter) Value() float64 { return math.Float64frombits(c.bits.Load()) }

func (v *CounterVec) write(w *bufio.Writer) {
	writeHeader(w, v.name, v.help, "counter")
	for _, c := range v.kids.sorted() {
		writeSample(w, v.name, v.kids.labels, c.values, "", "", c.Value())
	}
}

// HistogramVec is a histogram family with labels.
type HistogramVec struct {
	name, help string
	buckets    []float64 // upper bounds, ascending, without +Inf
	kids       children[Histogram]
}

// Histogram is one labelled histogram.
type Histogram struct {
	values  []string
	upper   []float64
	counts  []atomic.Uint64 // per bucket, not cumulative; the last is +Inf
	sumBits atomic.Uint64
}

// Histogram registers (or returns the already registered) histogram family.
// buckets are upper bounds in ascending order (nil: DefaultBuckets); the
// +Inf bucket is implicit.
func (r *Registry) Histogram(name, help string, buckets []float64, labelNames ...string) *HistogramVec {
	checkNames(name, labelNames, "le")
	if len(buckets) == 0 {
		buckets = DefaultBuckets
	}
	b := slices.Clone(buckets)
	if math.IsInf(b[len(b)-1], +1) {
		b = b[:len(b)-1]
	}
	for i, x := range b {
		if math.IsNaN(x) || math.IsInf(x, 0) || (i > 0 && x <= b[i-1]) {
			panic(fmt.Sprintf("metrics: buckets of %s must be finite and strictly ascending", name))
		}
	}
	v := &HistogramVec{name: name, help: help, buckets: b, kids: children[Histogram]{
		labels: slices.Clone(labelNames),
		newT: func(values []string) *Histogram {
			return &Histogram{values: values, upper: b, counts: make([]atomic.Uint64, len(b)+1)}
		},
	}}
	got := r.register(name, v).(*HistogramVec)
	if len(labelNames) == 0 {
		got.With()
	}
	return got
}

func (v *HistogramVec) same(f family) bool {
	o, ok := f.(*HistogramVec)
	return ok && slices.Equal(o.kids.labels, v.kids.labels) && slices.Equal(o.buckets, v.buckets)
}

// With returns the histogram for these label values.
func (v *HistogramVec) With(labelValues ...string) *Histogram {
	return v.kids.with(v.name, labelValues)
}

// Observe records one value (for latencies: seconds).
func (h *Histogram) Observe(v float64) {
	if math.IsNaN(v) {
		return // a NaN would poison the sum forever
	}
	// The first bound ≥ v: buckets count values less than or equal to "le".
	h.counts[sort.SearchFloat64s(h.upper, v)].Add(1)
	addFloat(&h.sumBits, v)
}

func (v *HistogramVec) write(w *bufio.Writer) {
	writeHeader(w, v.name, v.help, "histogram")
	for _, h := range v.kids.sorted() {
		// _count is the sum of the buckets read here, so it always equals
		// the +Inf bucket even while observations race the scrape.
		var cum uint64
		for i := range h.counts {
			cum += h.counts[i].Load()
			le := "+Inf"
			if i < len(h.upper) {
				le = formatFloat(h.upper[i])
			}
			writeSample(w, v.name+"_bucket", v.kids.labels, h.values, "le", le, float64(cum))
		}
		writeSample(w, v.name+"_sum", v.kids.labels, h.values, "", "", math.Float64frombits(h.sumBits.Load()))
		writeSample(w, v.name+"_count", v.kids.labels, h.values, "", "", float64(cum))
	}
}

// gauge is a value read when metrics are written.
type gauge struct {
	name, help string
	fn         atomic.Pointer[func() float64]
}

// Gauge registers a gauge whose value fn returns at every scrape; fn must be
// safe to call concurrently and quick. Registering the name again replaces fn.
func (r *Registry) Gauge(name, help string, fn func() float64) {
	checkNames(name, nil)
	if fn == nil {
		panic("metrics: gauge " + name + " needs a function")
	}
	g := &gauge{name: name, help: help}
	g.fn.Store(&fn)
	got := r.register(name, g).(*gauge)
	got.fn.Store(&fn)
}

func (g *gauge) same(f family) bool { _, ok := f.(*gauge); return ok }

func (g *gauge) write(w *bufio.Writer) {
	writeHeader(w, g.name, g.help, "gauge")
	writeSample(w, g.name, nil, nil, "", "", (*g.fn.Load())())
}

func writeHeader(w *bufio.Writer, name, help, typ string) {
	w.WriteString("# HELP " + name + " " + escapeHelp(help) + "\n")
	w.WriteString("# TYPE " + name + " " + typ + "\n")
}

// writeSample writes `name{l1="v1",…,extra="extraValue"} value`.
func writeSample(w *bufio.Writer, name string, labels, values []string, extra, extraValue string, v float64) {
	w.WriteString(name)
	if len(labels) > 0 || extra != "" {
		w.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString(l + `="` + escapeLabel(values[i]) + `"`)
		}
		if extra != "" {
			if len(labels) > 0 {
				w.WriteByte(',')
			}
			w.WriteString(extra + `="` + escapeLabel(extraValue) + `"`)
		}
		w.WriteByte('}')
	}
	w.WriteByte(' ')
	w.WriteString(formatFloat(v))
	w.WriteByte('\n')
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

func escapeHelp(s string) string  { return helpEscaper.Replace(s) }
func escapeLabel(s string) string { return labelEscaper.Replace(s) }

func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, +1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case math.IsNaN(f):
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func addFloat(bits *atomic.Uint64, delta float64) {
	for {
		old := bits.Load()
		if bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+delta)) {
			return
		}
	}
}
