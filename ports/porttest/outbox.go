package porttest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

var rateCounterTests = []subtest{
	{"CountsPerKeyAndWindow", func(t *testing.T, s Stores) {
		w := domain.RateWindow(t0)
		hit := func(key string, window time.Time, want int) {
			t.Helper()
			if got := must(s.Hit(ctxOf(t), key, window)); got != want {
				t.Fatalf("Hit(%s, %v) = %d, want %d", key, window, got, want)
			}
		}
		hit("key-a", w, 1)
		hit("key-a", w, 2)
		hit("key-b", w, 1)
		hit("key-a", w, 3)
		hit("key-a", w.Add(time.Minute), 1)
		hit("key-b", w.Add(time.Minute), 1)
		hit("key-a", w.Add(time.Minute), 2)
	}},
	{"ConcurrentHitsAreDistinct", func(t *testing.T, s Stores) {
		const n = 32
		w := domain.RateWindow(t0)
		counts := make([]int, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				counts[i], errs[i] = s.Hit(ctxOf(t), "key", w)
			})
		}
		close(start)
		wg.Wait()
		for _, err := range errs {
			noErr(t, err)
		}
		slices.Sort(counts)
		for i, c := range counts {
			if c != i+1 {
				t.Fatalf("concurrent hits counted %v, want 1..%d each once", counts, n)
			}
		}
	}},
}

// publishedOnce is the verdict of concurrent publishers: none failed
// (errs, closed here), and each of total records was published exactly
// once (published counts them by seq); when says when it mattered.
func publishedOnce(t *testing.T, errs chan error, published map[int64]int, total int, when string) {
	t.Helper()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(published) != total {
		t.Fatalf("published %d of %d records", len(published), total)
	}
	for seq, n := range published {
		if n != 1 {
			t.Fatalf("record %d published %d times%s", seq, n, when)
		}
	}
}

// seedDocs creates one uploading job per id, each with its one creation
// event, in that order.
func seedDocs(t *testing.T, s Stores, docIDs ...string) []domain.Event {
	t.Helper()
	acct := newAccount(t, s, "acc", 0)
	var all []domain.Event
	for _, id := range docIDs {
		j, evs := uploadingJob(id, acct.ID, t0)
		createJob(t, s, j, evs)
		all = append(all, evs...)
	}
	return all
}

// upload moves an uploading job to processing, which writes two events.
func upload(t *testing.T, s Stores, id string) []domain.Event {
	t.Helper()
	var out []domain.Event
	noErr(t, s.UpdateJob(ctxOf(t), domain.DocID(id), func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
		evs, err := j.ReceiveUpload(t0.Add(time.Second), "blobs/"+id, 10)
		out = evs
		return evs, err
	}))
	return out
}

const lease = 30 * time.Second

var outboxTests = []subtest{
	{"ClaimInSeqOrderWithLimit", func(t *testing.T, s Stores) {
		evs := seedDocs(t, s, "doc-1", "doc-2", "doc-3", "doc-4")
		first := must(s.ClaimOutbox(ctxOf(t), t0, lease, 2))
		rest := must(s.ClaimOutbox(ctxOf(t), t0, lease, 10))
		wantEvents(t, recordEvents(first), evs[:2])
		wantEvents(t, recordEvents(rest), evs[2:])
		all := append(seqs(first), seqs(rest)...)
		for i := 1; i < len(all); i++ {
			if all[i] <= all[i-1] {
				t.Fatalf("seqs %v not increasing in commit order", all)
			}
		}
		if more := must(s.ClaimOutbox(ctxOf(t), t0, lease, 10)); len(more) != 0 {
			t.Fatalf("leased records claimed again: %v", seqs(more))
		}
	}},
	{"LeaseExpiresAndRecordsReturn", func(t *testing.T, s Stores) {
		evs := seedDocs(t, s, "doc-1", "doc-2", "doc-3")
		claimed := must(s.ClaimOutbox(ctxOf(t), t0, lease, 10))
		wantEvents(t, recordEvents(claimed), evs)
		if got := must(s.ClaimOutbox(ctxOf(t), t0.Add(lease-time.Millisecond), lease, 10)); len(got) != 0 {
			t.Fatalf("records %v returned while still leased", seqs(got))
		}
		again := must(s.ClaimOutbox(ctxOf(t), t0.Add(lease), lease, 10))
		if !slices.Equal(seqs(again), seqs(claimed)) {
			t.Fatalf("after the lease ended got %v, want %v again", seqs(again), seqs(claimed))
		}
		wantEvents(t, recordEvents(again), evs)
	}},
	{"MarkSent", func(t *testing.T, s Stores) {
		evs := seedDocs(t, s, "doc-1", "doc-2", "doc-3", "doc-4")
		claimed := must(s.ClaimOutbox(ctxOf(t), t0, lease, 10))
		sent := seqs(claimed[:2])
		noErr(t, s.MarkSent(ctxOf(t), append(sent, 1<<40, -1)))
		noErr(t, s.MarkSent(ctxOf(t), nil))
		noErr(t, s.MarkSent(ctxOf(t), sent)) // already removed: ignored
		again := must(s.ClaimOutbox(ctxOf(t), t0.Add(lease), lease, 10))
		wantEvents(t, recordEvents(again), evs[2:])
		noErr(t, s.MarkSent(ctxOf(t), seqs(again)))
		if left := peekOutbox(t, s); len(left) != 0 {
			t.Fatalf("outbox not empty after marking everything sent: %v", seqs(left))
		}
	}},
	{"PerDocOrderAcrossClaimers", func(t *testing.T, s Stores) {
		// Seq order: a1, b1, a2, a3.
		evs := seedDocs(t, s, "doc-a", "doc-b")
		evs = append(evs, upload(t, s, "doc-a")...)
		a1, b1, a2, a3 := evs[0], evs[1], evs[2], evs[3]

		one := must(s.ClaimOutbox(ctxOf(t), t0, lease, 1)) // claimer 1
		wantEvents(t, recordEvents(one), []domain.Event{a1})
		two := must(s.ClaimOutbox(ctxOf(t), t0.Add(time.Second), lease, 10)) // claimer 2
		wantEvents(t, recordEvents(two), []domain.Event{b1})
		if got := must(s.ClaimOutbox(ctxOf(t), t0.Add(2*time.Second), lease, 10)); len(got) != 0 {
			t.Fatalf("claimed %v while doc-a's first event is leased to claimer 1", eventIDs(recordEvents(got)))
		}
		noErr(t, s.MarkSent(ctxOf(t), seqs(one))) // claimer 1 published a1
		three := must(s.ClaimOutbox(ctxOf(t), t0.Add(3*time.Second), lease, 10))
		wantEvents(t, recordEvents(three), []domain.Event{a2, a3})

		// Every lease lapses: the unsent records come back in seq order.
		later := must(s.ClaimOutbox(ctxOf(t), t0.Add(time.Hour), lease, 10))
		wantEvents(t, recordEvents(later), []domain.Event{b1, a2, a3})
	}},
	{"ExpiredEarlierRecordUnblocksLaterOnes", func(t *testing.T, s Stores) {
		evs := seedDocs(t, s, "doc-a")
		evs = append(evs, upload(t, s, "doc-a")...)
		first := must(s.ClaimOutbox(ctxOf(t), t0, lease, 1))
		wantEvents(t, recordEvents(first), evs[:1])
		// Claimer 1 died; its lease lapsed. The next claimer gets the whole
		// doc in order, the earlier record included.
		all := must(s.ClaimOutbox(ctxOf(t), t0.Add(lease), lease, 10))
		wantEvents(t, recordEvents(all), evs)
	}},
	{"ConcurrentClaimersPublishEachOnceInDocOrder", func(t *testing.T, s Stores) {
		const docs, claimers = 6, 4
		var ids []string
		for i := range docs {
			ids = append(ids, fmt.Sprintf("doc-%d", i))
		}
		seedDocs(t, s, ids...)
		for _, id := range ids {
			upload(t, s, id)
		}
		all := peekOutbox(t, s)
		total := len(all)
		earlier := map[int64][]int64{} // seq → seqs of earlier records of its doc
		var byDoc = map[domain.DocID][]int64{}
		for _, r := range all {
			earlier[r.Seq] = slices.Clone(byDoc[r.Event.DocID])
			byDoc[r.Event.DocID] = append(byDoc[r.Event.DocID], r.Seq)
		}

		var mu sync.Mutex
		published := map[int64]int{}
		errs := make(chan error, claimers)
		deadline := time.Now().Add(10 * time.Second)
		var wg sync.WaitGroup
		for range claimers {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					recs, err := s.ClaimOutbox(ctxOf(t), t0, time.Hour, 2)
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					inBatch := map[int64]bool{}
					for _, r := range recs {
						for _, e := range earlier[r.Seq] {
							if published[e] == 0 && !inBatch[e] {
								mu.Unlock()
								errs <- fmt.Errorf("record %d (%s) claimed before earlier record %d of its doc was sent", r.Seq, r.Event.ID, e)
								return
							}
						}
						inBatch[r.Seq] = true
						published[r.Seq]++
					}
					done := len(published) == total
					mu.Unlock()
					if err := s.MarkSent(ctxOf(t), seqs(recs)); err != nil {
						errs <- err
						return
					}
					if done {
						return
					}
					if len(recs) == 0 {
						time.Sleep(time.Millisecond)
					}
				}
			})
		}
		wg.Wait()
		publishedOnce(t, errs, published, total, " while its lease held")
	}},
	{"PublishRemovesOnlyWhatWasPublished", func(t *testing.T, s Stores) {
		evs := seedDocs(t, s, "doc-1", "doc-2", "doc-3")
		refused := errors.New("broker refused")
		var handed []ports.OutboxRecord
		n, err := s.PublishOutbox(ctxOf(t), t0, lease, 10, func(_ context.Context, recs []ports.OutboxRecord) error {
			handed = recs
			return refused
		})
		if !errors.Is(err, refused) || n != 0 {
			t.Fatalf("PublishOutbox with a failing publish = %d, %v; want 0, the publish error", n, err)
		}
		wantEvents(t, recordEvents(handed), evs)
		// Not removed: claimable again once any lease lapsed.
		n, err = s.PublishOutbox(ctxOf(t), t0.Add(lease), lease, 2, func(_ context.Context, recs []ports.OutboxRecord) error {
			handed = recs
			return nil
		})
		noErr(t, err)
		if n != 2 {
			t.Fatalf("PublishOutbox published %d, want 2 (the limit)", n)
		}
		wantEvents(t, recordEvents(handed), evs[:2])
		n, err = s.PublishOutbox(ctxOf(t), t0.Add(2*lease), lease, 10, func(_ context.Context, recs []ports.OutboxRecord) error {
			handed = recs
			return nil
		})
		if err != nil || n != 1 {
			t.Fatalf("PublishOutbox of the last record = %d, %v; want 1, nil", n, err)
		}
		wantEvents(t, recordEvents(handed), evs[2:])
		if left := peekOutbox(t, s); len(left) != 0 {
			t.Fatalf("outbox not empty after publishing everything: %v", seqs(left))
		}
		if n := must(s.PublishOutbox(ctxOf(t), t0.Add(3*lease), lease, 10, func(context.Context, []ports.OutboxRecord) error {
			t.Fatal("publish called with an empty outbox")
			return nil
		})); n != 0 {
			t.Fatalf("PublishOutbox of an empty outbox = %d", n)
		}
	}},
	{"PublishInFlightHoldsBackItsRecordsAndTheirDocs", func(t *testing.T, s Stores) {
		// Seq order: a1, b1, a2, …: while a1 is being published, another
		// publisher gets b1 only (not a1 again, not a2 before a1 is sent).
		evs := seedDocs(t, s, "doc-a", "doc-b")
		evs = append(evs, upload(t, s, "doc-a")...)
		var inner []ports.OutboxRecord
		n, err := s.PublishOutbox(ctxOf(t), t0, lease, 1, func(ctx context.Context, outer []ports.OutboxRecord) error {
			wantEvents(t, recordEvents(outer), evs[:1])
			done := make(chan error, 1)
			go func() { // another relay, on its own connection
				_, err := s.PublishOutbox(ctx, t0, lease, 10, func(_ context.Context, recs []ports.OutboxRecord) error {
					inner = recs
					return nil
				})
				done <- err
			}()
			return <-done
		})
		noErr(t, err)
		if n != 1 {
			t.Fatalf("outer PublishOutbox published %d, want 1", n)
		}
		wantEvents(t, recordEvents(inner), evs[1:2])
		var rest []ports.OutboxRecord
		must(s.PublishOutbox(ctxOf(t), t0.Add(lease), lease, 10, func(_ context.Context, recs []ports.OutboxRecord) error {
			rest = recs
			return nil
		}))
		wantEvents(t, recordEvents(rest), evs[2:])
	}},
	{"ConcurrentPublishersPublishEachOnceInDocOrder", func(t *testing.T, s Stores) {
		const docs, publishers = 6, 4
		var ids []string
		for i := range docs {
			ids = append(ids, fmt.Sprintf("doc-%d", i))
		}
		seedDocs(t, s, ids...)
		for _, id := range ids {
			upload(t, s, id)
		}
		all := peekOutbox(t, s)
		total := len(all)
		earlier := map[int64][]int64{} // seq → seqs of earlier records of its doc
		byDoc := map[domain.DocID][]int64{}
		for _, r := range all {
			earlier[r.Seq] = slices.Clone(byDoc[r.Event.DocID])
			byDoc[r.Event.DocID] = append(byDoc[r.Event.DocID], r.Seq)
		}
		var mu sync.Mutex
		published := map[int64]int{}
		errs := make(chan error, publishers)
		deadline := time.Now().Add(10 * time.Second)
		var wg sync.WaitGroup
		for range publishers {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					n, err := s.PublishOutbox(ctxOf(t), t0, time.Hour, 2, func(_ context.Context, recs []ports.OutboxRecord) error {
						mu.Lock()
						defer mu.Unlock()
						inBatch := map[int64]bool{}
						for _, r := range recs {
							for _, e := range earlier[r.Seq] {
								if published[e] == 0 && !inBatch[e] {
									return fmt.Errorf("record %d (%s) handed out before earlier record %d of its doc was published", r.Seq, r.Event.ID, e)
								}
							}
							inBatch[r.Seq] = true
							published[r.Seq]++
						}
						return nil
					})
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					done := len(published) == total
					mu.Unlock()
					if done {
						return
					}
					if n == 0 {
						time.Sleep(time.Millisecond)
					}
				}
			})
		}
		wg.Wait()
		publishedOnce(t, errs, published, total, "")
	}},
	{"RecordsCarryParsedEvents", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 60_000)
		j, evs := transcribedJob(t, "doc-1", &acct)
		createJob(t, s, j, evs)
		recs := must(s.ClaimOutbox(ctxOf(t), t0, lease, 100))
		wantEvents(t, recordEvents(recs), evs)
		for _, r := range recs {
			if r.Event.Topic == "" || !slices.Contains(domain.Topics, r.Event.Topic) {
				t.Fatalf("record %d has topic %q", r.Seq, r.Event.Topic)
			}
		}
	}},
}

var deliveryTests = []subtest{
	{"BeginFinishList", func(t *testing.T, s Stores) {
		d := delivery("dl-1", "doc-1/transcript.ready", "doc-1", t0)
		d.Status = "" // Begin saves pending whatever the caller set
		if !must(s.BeginDelivery(ctxOf(t), d)) {
			t.Fatal("BeginDelivery of a new event returned false")
		}
		d.Status = domain.DeliveryPending
		got := must(s.Deliveries(ctxOf(t), "doc-1"))
		if len(got) != 1 {
			t.Fatalf("Deliveries: %s, want one", dump(got))
		}
		wantDelivery(t, got[0], d)

		attempted := t0.Add(1500 * time.Millisecond)
		d.Status, d.HTTPStatus, d.LatencyMs, d.Error, d.AttemptedAt = domain.DeliveryFailed, 502, 1234, "receiver answered 502: Սխալ", &attempted
		noErr(t, s.FinishDelivery(ctxOf(t), d))
		got = must(s.Deliveries(ctxOf(t), "doc-1"))
		if len(got) != 1 {
			t.Fatalf("Deliveries: %s, want one", dump(got))
		}
		wantDelivery(t, got[0], d)

		unknown := delivery("dl-missing", "x", "doc-1", t0)
		wantErr(t, s.FinishDelivery(ctxOf(t), unknown), domain.ErrNotFound, "FinishDelivery of a missing delivery")
	}},
	{"RepeatEventSavesNothing", func(t *testing.T, s Stores) {
		d := delivery("dl-1", "doc-1/transcript.ready", "doc-1", t0)
		if !must(s.BeginDelivery(ctxOf(t), d)) {
			t.Fatal("first BeginDelivery returned false")
		}
		repeat := delivery("dl-2", d.EventID, "doc-1", t0.Add(time.Minute))
		if must(s.BeginDelivery(ctxOf(t), repeat)) {
			t.Fatal("BeginDelivery of a repeated event returned true")
		}
		got := must(s.Deliveries(ctxOf(t), "doc-1"))
		if len(got) != 1 || got[0].ID != d.ID {
			t.Fatalf("Deliveries after a repeat: %s, want only %s", dump(got), d.ID)
		}
		clash := delivery("dl-1", "doc-1/analysis.ready", "doc-1", t0)
		_, err := s.BeginDelivery(ctxOf(t), clash)
		wantErr(t, err, domain.ErrConflict, "BeginDelivery with a used ID for another event")
	}},
	{"ListOldestFirstPerDoc", func(t *testing.T, s Stores) {
		ds := []domain.Delivery{
			delivery("dl-c", "e-c", "doc-1", t0.Add(2*time.Minute)),
			delivery("dl-a", "e-a", "doc-1", t0),
			delivery("dl-x", "e-x", "doc-2", t0.Add(time.Minute)),
			delivery("dl-b", "e-b", "doc-1", t0.Add(time.Minute)),
		}
		for _, d := range ds {
			if !must(s.BeginDelivery(ctxOf(t), d)) {
				t.Fatalf("BeginDelivery(%s) returned false", d.ID)
			}
		}
		got := must(s.Deliveries(ctxOf(t), "doc-1"))
		want := []domain.Delivery{ds[1], ds[3], ds[0]}
		if len(got) != len(want) {
			t.Fatalf("Deliveries(doc-1): %s", dump(got))
		}
		for i := range want {
			wantDelivery(t, got[i], want[i])
		}
		if got := must(s.Deliveries(ctxOf(t), "doc-none")); len(got) != 0 {
			t.Fatalf("Deliveries of a doc without any: %s", dump(got))
		}
	}},
	{"NoAliasing", func(t *testing.T, s Stores) {
		d := delivery("dl-1", "e-1", "doc-1", t0)
		want := delivery("dl-1", "e-1", "doc-1", t0)
		must(s.BeginDelivery(ctxOf(t), d))
		d.Payload[0] = 'X'
		got := must(s.Deliveries(ctxOf(t), "doc-1"))
		wantDelivery(t, got[0], want)
		got[0].Payload[0] = 'X'
		wantDelivery(t, must(s.Deliveries(ctxOf(t), "doc-1"))[0], want)
	}},
}

func delivery(id, eventID string, doc domain.DocID, created time.Time) domain.Delivery {
	return domain.Delivery{
		ID: id, EventID: eventID, DocID: doc, AccountID: "acc", EventType: domain.EventTranscriptReady,
		URL: "https://hooks.example/t", Payload: []byte(`{"event_type":"transcript_ready","title":"Պատվերի զանգ"}`),
		Status: domain.DeliveryPending, CreatedAt: created,
	}
}
