package kafka

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/eventually"
)

// A topic whose group has no member (a stage no process runs) is reported
// with the records waiting on it, and logged once it stays so past Warn; a
// group that runs is reported with its members and no warning.
func TestLagMonitorFindsATopicNobodyConsumes(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	const other = "hyscribe.test.other.v1"
	ensureTopics(t, e.Addrs(), 3, topic, other)
	p := newPublisher(t, e.Addrs())
	publish(t, p, testEvent(topic, "doc-1", 0), testEvent(topic, "doc-2", 0), testEvent(other, "doc-3", 0))

	startConsumer(t, ConsumerConfig{
		Brokers: e.Addrs(), Group: "hyscribe-running", Topics: []string{other},
		Handler: func(context.Context, domain.Event) error { return nil },
	})
	logs := &logBuffer{}
	m, err := NewLagMonitor(e.Addrs(), map[string][]string{
		"hyscribe-running": {other},
		"hyscribe-absent":  {topic},
	}, slog.New(slog.NewJSONHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.Warn, m.Repeat = time.Minute, time.Hour

	check := func(now time.Time) map[string]GroupTopic {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := m.Check(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]GroupTopic{}
		for _, r := range res {
			out[r.Group] = r
		}
		return out
	}
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	eventually.True(t, 10*time.Second, "the running group consumed its topic", func() bool {
		r := check(t0)["hyscribe-running"]
		return r.Members == 1 && r.Lag == 0
	})
	if r := check(t0)["hyscribe-absent"]; r.Members != 0 || r.Lag != 2 || r.UnconsumedFor != 0 {
		t.Fatalf("absent group at first sight: %+v, want no members, lag 2", r)
	}
	if strings.Contains(logs.buf.String(), "no consumer") {
		t.Fatal("warned before Warn passed")
	}
	got := check(t0.Add(90 * time.Second))
	if r := got["hyscribe-absent"]; r.UnconsumedFor != 90*time.Second || r.Lag != 2 {
		t.Fatalf("absent group later: %+v", r)
	}
	if r := got["hyscribe-running"]; r.UnconsumedFor != 0 {
		t.Fatalf("running group: %+v", r)
	}
	s := logs.buf.String()
	if !strings.Contains(s, "has no consumer") || !strings.Contains(s, `"group":"hyscribe-absent"`) || !strings.Contains(s, `"topic":"`+topic+`"`) {
		t.Fatalf("no warning naming the unconsumed topic and group:\n%s", s)
	}
	if strings.Count(s, "has no consumer") != 1 || strings.Contains(s, `"group":"hyscribe-running"`) {
		t.Fatalf("want exactly one warning, for the absent group:\n%s", s)
	}
	check(t0.Add(100 * time.Second)) // within Repeat: no second line
	if n := strings.Count(logs.buf.String(), "has no consumer"); n != 1 {
		t.Fatalf("%d warnings within Repeat", n)
	}
}
