package kafka

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/eventually"
)

// consumeGroup runs a consumer of group until want events were handled,
// stops it (committing) and returns the IDs it saw. The group's commit
// then reaches the topic's end: nothing is left that it could still have
// handled, so the IDs are all it ever will.
func consumeGroup(t *testing.T, brokers []string, group string, want int) []string {
	t.Helper()
	var mu sync.Mutex
	var ids []string
	r := startConsumer(t, ConsumerConfig{
		Brokers: brokers, Group: group, Topics: []string{topic},
		Handler: func(_ context.Context, ev domain.Event) error {
			mu.Lock()
			defer mu.Unlock()
			ids = append(ids, ev.ID)
			return nil
		},
	})
	eventually.True(t, 10*time.Second, fmt.Sprintf("%d events handled", want), func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(ids) >= want
	})
	r.stop(t)
	if c, end := sum(committed(t, brokers, group, topic)), endOffsets(t, brokers, topic); c != end {
		t.Fatalf("group %s committed %d of %d records after handling %d", group, c, end, want)
	}
	mu.Lock()
	defer mu.Unlock()
	return append([]string(nil), ids...)
}

func eventIDs(doc string, from, to int) []domain.Event {
	var evs []domain.Event
	for i := from; i < to; i++ {
		evs = append(evs, testEvent(topic, doc, i))
	}
	return evs
}

// Records and committed group offsets survive a Close and a start on the
// same directory; the group resumes after its commit.
func TestEmbeddedPersistsAcrossRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e := startClusterIn(t, dir)
	ensureTopics(t, e.Addrs(), 12, topic)
	p := newPublisher(t, e.Addrs())
	publish(t, p, eventIDs("doc-a", 0, 10)...)
	if got := consumeGroup(t, e.Addrs(), "hyscribe-persist", 10); len(got) != 10 {
		t.Fatalf("first run handled %d events", len(got))
	}
	p.Close()
	e.Close()

	e2 := startClusterIn(t, dir)
	if recs := readAll(t, e2.Addrs(), topic, 10); len(recs) != 10 {
		t.Fatalf("after restart %d records", len(recs))
	}
	if n := endOffsets(t, e2.Addrs(), topic); n != 10 {
		t.Fatalf("after restart end offsets sum to %d, want 10", n)
	}
	if n := sum(committed(t, e2.Addrs(), "hyscribe-persist", topic)); n != 10 {
		t.Fatalf("after restart committed offsets sum to %d, want 10", n)
	}
	publish(t, newPublisher(t, e2.Addrs()), eventIDs("doc-a", 10, 15)...)
	got := consumeGroup(t, e2.Addrs(), "hyscribe-persist", 5)
	want := []string{"doc-a/test/10", "doc-a/test/11", "doc-a/test/12", "doc-a/test/13", "doc-a/test/14"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("after restart the group handled %v, want %v", got, want)
	}
}

// What is on disk while the cluster runs (no Close: the process was
// killed) is enough to start again with every acknowledged record and
// every committed offset.
func TestEmbeddedSurvivesKill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e := startClusterIn(t, dir)
	ensureTopics(t, e.Addrs(), 12, topic)
	publish(t, newPublisher(t, e.Addrs()), eventIDs("doc-b", 0, 8)...)
	consumeGroup(t, e.Addrs(), "hyscribe-kill", 8)
	publish(t, newPublisher(t, e.Addrs()), eventIDs("doc-b", 8, 10)...)

	// Snapshot the directory of the running cluster, as a kill -9 leaves it.
	killed := filepath.Join(t.TempDir(), "data")
	if err := os.CopyFS(killed, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	e2 := startClusterIn(t, killed)
	if n := endOffsets(t, e2.Addrs(), topic); n != 10 {
		t.Fatalf("after kill end offsets sum to %d, want 10", n)
	}
	if n := sum(committed(t, e2.Addrs(), "hyscribe-kill", topic)); n != 8 {
		t.Fatalf("after kill committed offsets sum to %d, want 8", n)
	}
	got := consumeGroup(t, e2.Addrs(), "hyscribe-kill", 2)
	if strings.Join(got, " ") != "doc-b/test/8 doc-b/test/9" {
		t.Fatalf("after kill the group handled %v", got)
	}
}

// Outside tools reach the embedded broker at the address it advertises.
func TestEmbeddedServesKcat(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("uses the kcat tool")
	}
	if _, err := exec.LookPath("kcat"); err != nil {
		t.Skip("kcat not installed")
	}
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 12, topic)
	publish(t, newPublisher(t, e.Addrs()), eventIDs("doc-c", 0, 3)...)
	addr := e.Addrs()[0]

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "kcat", "-b", addr, "-L").CombinedOutput()
	if err != nil {
		t.Fatalf("kcat -L: %v\n%s", err, out)
	}
	for _, want := range []string{addr, `topic "` + topic + `" with 12 partitions`, `topic "` + domain.DLQ(topic) + `"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("kcat -L lacks %q:\n%s", want, out)
		}
	}
	out, err = exec.CommandContext(ctx, "kcat", "-b", addr, "-C", "-t", topic, "-o", "beginning", "-e", "-q",
		"-f", "%k %h\n").CombinedOutput()
	if err != nil {
		t.Fatalf("kcat -C: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "doc-c event-id=doc-c/test/") {
		t.Errorf("kcat read:\n%s", out)
	}
}
