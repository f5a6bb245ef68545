// Package metrics is the process's one metrics registry, on the Prometheus
// client library (github.com/prometheus/client_golang), written in the
// Prometheus text format for GET /metrics.
//
// Its small API (Counter, Histogram, Gauge, GaugeVec, each a family with
// labels) is what hyscribe's components register with; registering a name
// again with the same shape returns the first family, so components need
// not coordinate. Registration mistakes (bad names, a name reused with
// another shape, the wrong number of label values) are programming errors
// and panic, as in the client library.
package metrics

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// ContentType is the media type of WriteText's output.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// DefaultBuckets suit request latencies in seconds (Prometheus' defaults).
var DefaultBuckets = prometheus.DefBuckets

// Registry holds metric families and writes them out.
type Registry struct {
	reg *prometheus.Registry

	mu       sync.Mutex
	families map[string]family
}

// family is what a name was registered as, to return it again or refuse a
// conflicting shape.
type family struct {
	kind    string
	labels  []string
	buckets []float64
	v       any
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{reg: prometheus.NewRegistry(), families: map[string]family{}}
}

// RegisterRuntime adds what every Go service exports: the Go runtime
// (go_*), the process (process_*: CPU, resident memory, open files) and
// go_build_info. A process's main registry calls it once.
func (r *Registry) RegisterRuntime() {
	r.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewBuildInfoCollector(),
	)
}

// Handler serves the registry for net/http servers.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{})
}

// The classic name rules: the client library would also take UTF-8 names,
// which older scrapers and PromQL without quoting do not.
var (
	metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelName  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

func checkNames(name, kind string, labels []string) {
	if !metricName.MatchString(name) {
		panic(fmt.Sprintf("metrics: invalid metric name %q", name))
	}
	for _, l := range labels {
		if !labelName.MatchString(l) || strings.HasPrefix(l, "__") || (kind == "histogram" && l == "le") {
			panic(fmt.Sprintf("metrics: invalid label name %q for %s", l, name))
		}
	}
}

// register returns the family already registered under name with the same
// shape, or registers the one make builds.
func (r *Registry) register(name, kind string, labels []string, buckets []float64, make func() (prometheus.Collector, any)) any {
	checkNames(name, kind, labels)
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.families[name]; ok {
		if old.kind != kind || !slices.Equal(old.labels, labels) || !slices.Equal(old.buckets, buckets) {
			panic(fmt.Sprintf("metrics: %s is already registered with another type, labels or buckets", name))
		}
		return old.v
	}
	c, v := make()
	r.reg.MustRegister(c)
	r.families[name] = family{kind: kind, labels: slices.Clone(labels), buckets: slices.Clone(buckets), v: v}
	return v
}

// WriteText writes every metric in the Prometheus text format, families
// sorted by name and samples by label values.
func (r *Registry) WriteText(w io.Writer) error {
	mfs, err := r.reg.Gather()
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return fmt.Errorf("metrics: %w", err)
		}
	}
	return nil
}

// CounterVec is a counter family with labels.
type CounterVec struct{ vec *prometheus.CounterVec }

// Counter is one labelled counter.
type Counter struct{ c prometheus.Counter }

// Counter registers (or returns the already registered) counter family.
func (r *Registry) Counter(name, help string, labelNames ...string) *CounterVec {
	v := r.register(name, "counter", labelNames, nil, func() (prometheus.Collector, any) {
		vec := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labelNames)
		return vec, &CounterVec{vec: vec}
	}).(*CounterVec)
	if len(labelNames) == 0 {
		v.With() // a counter without labels is written as 0 before its first increment
	}
	return v
}

// With returns the counter for these label values, in the order of the
// label names given at registration.
func (v *CounterVec) With(labelValues ...string) *Counter {
	return &Counter{c: v.vec.WithLabelValues(labelValues...)}
}

// Inc adds one.
func (c *Counter) Inc() { c.c.Inc() }

// Add adds delta, which must not be negative: counters only go up.
func (c *Counter) Add(delta float64) {
	if math.IsNaN(delta) {
		panic("metrics: a counter cannot add NaN")
	}
	c.c.Add(delta)
}

// Value is the current count.
func (c *Counter) Value() float64 {
	var m dto.Metric
	_ = c.c.Write(&m)
	return m.GetCounter().GetValue()
}

// HistogramVec is a histogram family with labels.
type HistogramVec struct{ vec *prometheus.HistogramVec }

// Histogram is one labelled histogram.
type Histogram struct{ o prometheus.Observer }

// Histogram registers (or returns the already registered) histogram family.
// buckets are upper bounds in ascending order (nil: DefaultBuckets); the
// +Inf bucket is implicit.
func (r *Registry) Histogram(name, help string, buckets []float64, labelNames ...string) *HistogramVec {
	if len(buckets) == 0 {
		buckets = DefaultBuckets
	}
	b := slices.Clone(buckets)
	if math.IsInf(b[len(b)-1], +1) {
		b = b[:len(b)-1]
	}
	v := r.register(name, "histogram", labelNames, b, func() (prometheus.Collector, any) {
		vec := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: b}, labelNames)
		return vec, &HistogramVec{vec: vec}
	}).(*HistogramVec)
	if len(labelNames) == 0 {
		v.With()
	}
	return v
}

// With returns the histogram for these label values.
func (v *HistogramVec) With(labelValues ...string) *Histogram {
	return &Histogram{o: v.vec.WithLabelValues(labelValues...)}
}

// Observe records one value (for latencies: seconds).
func (h *Histogram) Observe(v float64) {
	if math.IsNaN(v) {
		return // a NaN would poison the sum forever
	}
	h.o.Observe(v)
}

// Gauge registers a gauge whose value fn returns at every scrape; fn must be
// safe to call concurrently and quick. Registering the name again replaces fn.
func (r *Registry) Gauge(name, help string, fn func() float64) {
	if fn == nil {
		panic("metrics: gauge " + name + " needs a function")
	}
	p := r.register(name, "gaugefunc", nil, nil, func() (prometheus.Collector, any) {
		p := new(atomic.Pointer[func() float64])
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 { return (*p.Load())() }), p
	}).(*atomic.Pointer[func() float64])
	p.Store(&fn)
}

// CounterFunc registers a counter whose total fn returns at every scrape (a
// total kept elsewhere, which never decreases); fn must be safe to call
// concurrently and quick. Registering the name again replaces fn.
func (r *Registry) CounterFunc(name, help string, fn func() float64) {
	if fn == nil {
		panic("metrics: counter " + name + " needs a function")
	}
	p := r.register(name, "counterfunc", nil, nil, func() (prometheus.Collector, any) {
		p := new(atomic.Pointer[func() float64])
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 { return (*p.Load())() }), p
	}).(*atomic.Pointer[func() float64])
	p.Store(&fn)
}

// GaugeVec is a gauge family with labels whose values are set.
type GaugeVec struct{ vec *prometheus.GaugeVec }

// GaugeVec registers (or returns the already registered) settable gauge
// family.
func (r *Registry) GaugeVec(name, help string, labelNames ...string) *GaugeVec {
	return r.register(name, "gauge", labelNames, nil, func() (prometheus.Collector, any) {
		vec := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labelNames)
		return vec, &GaugeVec{vec: vec}
	}).(*GaugeVec)
}

// Set sets the gauge of these label values.
func (v *GaugeVec) Set(value float64, labelValues ...string) {
	v.vec.WithLabelValues(labelValues...).Set(value)
}

// Delete removes the gauge of these label values (a series that no longer
// exists, such as a group that went away).
func (v *GaugeVec) Delete(labelValues ...string) { v.vec.DeleteLabelValues(labelValues...) }
