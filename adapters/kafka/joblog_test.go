package kafka

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/eventually"
)

type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines are the JSON log lines with msg "job handled".
func (b *logBuffer) lines(t *testing.T) []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if m["msg"] == "job handled" {
			out = append(out, m)
		}
	}
	return out
}

// Every handler call leaves one line an operator can follow a job by:
// docId, stage, attempt, duration, outcome and error, and nothing of the
// event's data.
func TestEveryHandlerCallLogsOneLinePerJob(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 3, topic)
	ev := testEvent(topic, "doc-log", 0)
	ev.Data = json.RawMessage(`{"seq":0,"transcription":"Խոսնակ 1: a secret sentence"}`)
	publish(t, newPublisher(t, e.Addrs()), ev)

	logs := &logBuffer{}
	var calls atomic.Int32
	startConsumer(t, ConsumerConfig{
		Brokers: e.Addrs(), Topics: []string{topic},
		Logger: slog.New(slog.NewJSONHandler(logs, nil)).With("stage", "transcribe"),
		Handler: func(context.Context, domain.Event) error {
			if calls.Add(1) == 1 {
				return fmt.Errorf("speech engine: %w", domain.ErrUnavailable)
			}
			return nil
		},
	})
	eventually.True(t, 10*time.Second, "offset committed", func() bool {
		return sum(committed(t, e.Addrs(), "hyscribe-test", topic)) == 1
	})
	got := logs.lines(t)
	if len(got) != 2 {
		t.Fatalf("%d job lines, want 2 (one failed attempt, one success): %v", len(got), got)
	}
	for i, want := range []struct {
		attempt float64
		outcome string
		err     bool
	}{{1, OutcomeRetry, true}, {2, OutcomeOK, false}} {
		l := got[i]
		if l["docId"] != "doc-log" || l["stage"] != "transcribe" || l["attempt"] != want.attempt || l["outcome"] != want.outcome || l["event"] != "test.event" {
			t.Errorf("line %d = %v, want docId, stage, attempt %v, outcome %s", i, l, want.attempt, want.outcome)
		}
		if _, ok := l["durationMs"].(float64); !ok {
			t.Errorf("line %d has no duration: %v", i, l)
		}
		if e, _ := l["error"].(string); (e != "") != want.err || (want.err && !strings.Contains(e, "speech engine")) {
			t.Errorf("line %d error = %q", i, e)
		}
	}
	if s := logs.buf.String(); strings.Contains(s, "secret sentence") {
		t.Errorf("the log holds the event's data:\n%s", s)
	}
}
