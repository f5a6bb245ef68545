package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/eventually"
	"github.com/hyscribe/hyscribe/ports"
)

// recordingPublisher stands in for Kafka: it keeps what each relay
// published, in order, and takes a little time per batch like a broker ack.
type recordingPublisher struct {
	mu    sync.Mutex
	byDoc map[domain.DocID][]string // event IDs in publication order
	count map[string]int
}

func (p *recordingPublisher) Publish(ctx context.Context, evs []domain.Event) error {
	time.Sleep(time.Millisecond) // a producer's round trip: relays overlap while one publishes
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range evs {
		p.byDoc[e.DocID] = append(p.byDoc[e.DocID], e.ID)
		p.count[e.ID]++
	}
	return nil
}

func (p *recordingPublisher) total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.count)
}

// TestRelaysShareOneOutbox runs three relays (as three processes would) on
// one Postgres outbox while 50 jobs write 2,000 events, and checks that
// every event is published once, each doc's in commit order.
func TestRelaysShareOneOutbox(t *testing.T) {
	const docs, perDoc, relays = 50, 40, 3
	url := pgtest.URL(t)
	writer := openURL(t, url)
	ctx := t.Context()
	acct := domain.Account{ID: "acc", Name: "Acme", Plan: domain.PlanBusiness, BalanceMs: 1 << 40, CreatedAt: t0}
	if err := writer.CreateAccount(ctx, acct); err != nil {
		t.Fatal(err)
	}

	pub := &recordingPublisher{byDoc: map[domain.DocID][]string{}, count: map[string]int{}}
	var latMu sync.Mutex
	var latencies []time.Duration
	runCtx, stop := context.WithCancel(context.Background())
	var running sync.WaitGroup
	for i := range relays {
		// The first relay shares the writers' store, as in one process; the
		// others have stores (pools) of their own, as in other processes,
		// and hear of commits through LISTEN/NOTIFY.
		store := writer
		if i > 0 {
			store = openURL(t, url)
		}
		r := app.NewRelay(store, pub, ports.SystemClock{}, slog.New(slog.DiscardHandler))
		r.Batch = 100 // Interval stays 500 ms: commits wake every relay through NOTIFY
		r.Observe = func(d time.Duration) {
			latMu.Lock()
			latencies = append(latencies, d)
			latMu.Unlock()
		}
		running.Go(func() { r.Run(runCtx) })
	}

	// Write: one goroutine per doc, its events committed in order.
	want := map[domain.DocID][]string{}
	var wantMu sync.Mutex
	var writers sync.WaitGroup
	errs := make(chan error, docs)
	for d := range docs {
		id := domain.DocID(fmt.Sprintf("doc-%02d", d))
		writers.Go(func() {
			now := time.Now()
			j, evs := domain.NewJob(id, acct.ID, domain.CreateRequest{Type: domain.TypeSingleVoice}, now, time.Hour)
			more, err := j.ReceiveUpload(now, "blob", 1)
			if err != nil {
				errs <- err
				return
			}
			evs = append(evs, more...)
			if err := writer.CreateJob(ctx, j, evs); err != nil {
				errs <- err
				return
			}
			ids := eventIDsOf(evs)
			for len(ids) < perDoc {
				err := writer.UpdateJob(ctx, id, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
					evs, err := j.Redrive(time.Now())
					ids = append(ids, eventIDsOf(evs)...)
					return evs, err
				})
				if err != nil {
					errs <- err
					return
				}
			}
			wantMu.Lock()
			want[id] = ids
			wantMu.Unlock()
		})
	}
	writers.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	eventually.True(t, 30*time.Second, "every event published", func() bool { return pub.total() >= docs*perDoc })
	stop()
	running.Wait()

	pub.mu.Lock()
	defer pub.mu.Unlock()
	if len(pub.count) != docs*perDoc {
		t.Fatalf("published %d distinct events, want %d", len(pub.count), docs*perDoc)
	}
	for id, n := range pub.count {
		if n != 1 {
			t.Fatalf("event %s published %d times", id, n)
		}
	}
	for id, ids := range want {
		if !slices.Equal(pub.byDoc[id], ids) {
			t.Fatalf("%s published as\n%v\nwant commit order\n%v", id, pub.byDoc[id], ids)
		}
	}
	slices.Sort(latencies)
	p := func(q float64) time.Duration { return latencies[int(q*float64(len(latencies)-1))] }
	t.Logf("%d relays, %d events: commit-to-publish latency p50 %v, p99 %v, max %v",
		relays, len(latencies), p(0.50), p(0.99), latencies[len(latencies)-1])
}

func eventIDsOf(evs []domain.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.ID
	}
	return out
}
