package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The client library gives the runtime, process and build metrics every
// Go service is expected to have.
func TestRuntimeMetrics(t *testing.T) {
	r := NewRegistry()
	r.RegisterRuntime()
	e := scrape(t, r)
	for _, name := range []string{"go_goroutines", "go_memstats_alloc_bytes", "process_resident_memory_bytes", "process_cpu_seconds_total", "go_build_info"} {
		if e.types[name] == "" {
			t.Errorf("no %s in /metrics", name)
		}
	}
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(b), "go_goroutines ") {
		t.Fatalf("Handler: %d %.200s", resp.StatusCode, b)
	}
}

func TestGaugeVec(t *testing.T) {
	r := NewRegistry()
	g := r.GaugeVec("kafka_consumer_lag", "Lag.", "group", "topic")
	g.Set(7, "g1", "t1")
	g.Set(2, "g2", "t1")
	if r.GaugeVec("kafka_consumer_lag", "Lag.", "group", "topic") != g {
		t.Fatal("registering the same gauge family twice must return the first")
	}
	e := scrape(t, r)
	if v, _ := e.find("kafka_consumer_lag", map[string]string{"group": "g1", "topic": "t1"}); v != 7 {
		t.Fatalf("lag = %v", v)
	}
	g.Delete("g1", "t1")
	if _, ok := scrape(t, r).find("kafka_consumer_lag", map[string]string{"group": "g1", "topic": "t1"}); ok {
		t.Fatal("a deleted series is still written")
	}
}
