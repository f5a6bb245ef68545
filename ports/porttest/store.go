// Package porttest is the executable form of the store contracts in ports:
// one suite run against every adapter (the in-memory fake, SQLite and
// Postgres), so that a use case tested against the fake behaves the same on
// a real database.
//
// Times are compared truncated to the millisecond, the precision every
// adapter is required to keep.
package porttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Stores is everything a store adapter provides: every store port, and the
// outbox's two steps, claiming records and marking them sent. No use case
// calls those (the relay calls ports.Outbox.PublishOutbox), but every store
// has them and the suite reads the outbox through them: ClaimOutbox's
// leases and order are what PublishOutbox promises. (The suite itself is
// the function Store, so the interface takes the plural.)
type Stores interface {
	ports.Stores
	ports.JobPager
	OutboxSteps
}

// OutboxSteps are the two steps of publishing the outbox that
// PublishOutbox runs in one call.
type OutboxSteps interface {
	// ClaimOutbox returns up to limit unsent records in commit (Seq) order and
	// leases them to the caller until now+lease, so that relays running at the
	// same time do not publish the same record. Records not marked sent by then
	// are returned again. A record is never returned while an earlier record
	// of the same docId is leased to someone else.
	ClaimOutbox(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]ports.OutboxRecord, error)
	// MarkSent removes published records. Unknown seqs are ignored.
	MarkSent(ctx context.Context, seqs []int64) error
}

// Store runs the contract suite. open must return a new, empty store for each
// call (subtests run in parallel) and close it in t.Cleanup.
func Store(t *testing.T, open func(t *testing.T) Stores) {
	groups := []struct {
		name  string
		tests []subtest
	}{
		{"Jobs", jobTests},
		{"UpdateJob", updateJobTests},
		{"StaleJobs", staleJobTests},
		{"Accounts", accountTests},
		{"APIKeys", apiKeyTests},
		{"Checklists", checklistTests},
		{"ChecklistVersions", checklistVersionTests},
		{"Analyses", analysisTests},
		{"RateCounter", rateCounterTests},
		{"Outbox", outboxTests},
		{"Deliveries", deliveryTests},
		{"DeliveryLeases", leaseTests},
		{"Users", userTests},
		{"Sessions", sessionTests},
		{"JobList", jobListTests},
		{"JobPages", jobPageTests},
		{"Search", searchTests},
		{"History", historyTests},
		{"AnalysisList", analysisListTests},
		{"Idempotency", idempotencyTests},
		{"QA", qaTests},
		{"Reviews", reviewTests},
		{"RecognizedPieces", pieceTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			for _, st := range g.tests {
				t.Run(st.name, func(t *testing.T) {
					t.Parallel()
					defer failOnMust(t)
					st.run(t, open(t))
				})
			}
		})
	}
}

type subtest struct {
	name string
	run  func(t *testing.T, s Stores)
}

// t0 is the suite's "now": fixed and whole milliseconds, so results do not
// depend on the wall clock.
var t0 = time.Date(2025, 3, 14, 9, 26, 53, 589_000_000, time.UTC)

// meta is compact, as domain.ParseCreateRequest leaves it; stores must give
// back exactly these bytes.
const meta = `{"crm":"A-1","n":2}`

func ctxOf(t *testing.T) context.Context { return t.Context() }

// must returns v, or fails the subtest when err is set. Go cannot pass t
// alongside a two-value call, so it panics with a failure that the subtest
// runner turns into t.Fatal; it must only be called on the subtest's own
// goroutine.
func must[T any](v T, err error) T {
	if err != nil {
		_, file, line, _ := runtime.Caller(1)
		panic(failure(fmt.Sprintf("%s:%d: unexpected error: %v", filepath.Base(file), line, err)))
	}
	return v
}

type failure string

func failOnMust(t *testing.T) {
	if r := recover(); r != nil {
		f, ok := r.(failure)
		if !ok {
			panic(r)
		}
		t.Fatal(string(f))
	}
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

func wantErr(t *testing.T, err, target error, what string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got error %v, want %v", what, err, target)
	}
}

// ms is how far a time must survive a round trip.
func ms(t time.Time) time.Time { return t.Truncate(time.Millisecond).UTC() }

func msPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := ms(*t)
	return &v
}

func sameTime(a, b time.Time) bool { return ms(a).Equal(ms(b)) }

// normJob makes two jobs comparable with reflect.DeepEqual: times at
// millisecond precision, and an empty slice equal to a nil one.
func normJob(j domain.Job) domain.Job {
	j.CreatedAt, j.UpdatedAt, j.UploadExpiresAt = ms(j.CreatedAt), ms(j.UpdatedAt), ms(j.UploadExpiresAt)
	if len(j.Metadata) == 0 {
		j.Metadata = nil
	}
	if len(j.Segments) == 0 {
		j.Segments = nil
	}
	return j
}

func wantJob(t *testing.T, got, want domain.Job) {
	t.Helper()
	if !bytes.Equal(got.Metadata, want.Metadata) {
		t.Fatalf("job %s metadata: got %q, want %q (byte-exact)", want.ID, got.Metadata, want.Metadata)
	}
	if g, w := normJob(got), normJob(want); !reflect.DeepEqual(g, w) {
		t.Fatalf("job %s:\n got %s\nwant %s", want.ID, dump(g), dump(w))
	}
}

func normAccount(a domain.Account) domain.Account {
	a.CreatedAt = ms(a.CreatedAt)
	return a
}

func wantAccount(t *testing.T, got, want domain.Account) {
	t.Helper()
	if g, w := normAccount(got), normAccount(want); g != w {
		t.Fatalf("account %s:\n got %+v\nwant %+v", want.ID, g, w)
	}
}

func normKey(k domain.APIKey) domain.APIKey {
	k.CreatedAt, k.LastUsedAt, k.RevokedAt = ms(k.CreatedAt), msPtr(k.LastUsedAt), msPtr(k.RevokedAt)
	return k
}

func wantKey(t *testing.T, got, want domain.APIKey) {
	t.Helper()
	if g, w := normKey(got), normKey(want); !reflect.DeepEqual(g, w) {
		t.Fatalf("API key %s:\n got %s\nwant %s", want.ID, dump(g), dump(w))
	}
}

func normChecklist(c domain.Checklist) domain.Checklist {
	c.CreatedAt = ms(c.CreatedAt)
	if len(c.Questions) == 0 {
		c.Questions = nil
	}
	qs := make([]domain.Question, len(c.Questions))
	for i, q := range c.Questions {
		if len(q.Expect) == 0 {
			q.Expect = nil
		}
		qs[i] = q
	}
	if c.Questions != nil {
		c.Questions = qs
	}
	return c
}

func wantChecklist(t *testing.T, got, want domain.Checklist) {
	t.Helper()
	if g, w := normChecklist(got), normChecklist(want); !reflect.DeepEqual(g, w) {
		t.Fatalf("checklist %s:\n got %s\nwant %s", want.ID, dump(g), dump(w))
	}
}

func normDelivery(d domain.Delivery) domain.Delivery {
	d.CreatedAt, d.AttemptedAt = ms(d.CreatedAt), msPtr(d.AttemptedAt)
	if len(d.Payload) == 0 {
		d.Payload = nil
	}
	return d
}

func wantDelivery(t *testing.T, got, want domain.Delivery) {
	t.Helper()
	if g, w := normDelivery(got), normDelivery(want); !reflect.DeepEqual(g, w) {
		t.Fatalf("delivery %s:\n got %s\nwant %s", want.ID, dump(g), dump(w))
	}
}

// wantEvents compares events as a relay would publish them: every envelope
// field, Topic included, and Data byte for byte.
func wantEvents(t *testing.T, got []domain.Event, want []domain.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d events %v, want %d %v", len(got), eventIDs(got), len(want), eventIDs(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.Topic != w.Topic || g.Type != w.Type || g.Version != w.Version ||
			g.DocID != w.DocID || g.AccountID != w.AccountID || !sameTime(g.OccurredAt, w.OccurredAt) ||
			!bytes.Equal(g.Data, w.Data) {
			t.Fatalf("event %d:\n got %s\nwant %s", i, dump(g), dump(w))
		}
	}
}

func eventIDs(evs []domain.Event) []string {
	ids := make([]string, len(evs))
	for i, e := range evs {
		ids[i] = e.ID
	}
	return ids
}

func recordEvents(recs []ports.OutboxRecord) []domain.Event {
	evs := make([]domain.Event, len(recs))
	for i, r := range recs {
		evs[i] = r.Event
	}
	return evs
}

func seqs(recs []ports.OutboxRecord) []int64 {
	out := make([]int64, len(recs))
	for i, r := range recs {
		out[i] = r.Seq
	}
	return out
}

// peeks counts looks at the outbox. Each look claims with a zero lease at
// a moment in 1970, later than the previous look and long before any time
// the tests use: it returns every record not leased at t0 and leaves it
// claimable at any later time, so it changes nothing the tests observe.
var peeks atomic.Int64

func peekOutbox(t *testing.T, s Stores) []ports.OutboxRecord {
	t.Helper()
	at := time.UnixMilli(peeks.Add(1)).UTC()
	recs := must(s.ClaimOutbox(ctxOf(t), at, 0, 100000))
	if !sort.SliceIsSorted(recs, func(i, j int) bool { return recs[i].Seq < recs[j].Seq }) {
		t.Fatalf("outbox records not in seq order: %v", seqs(recs))
	}
	return recs
}

func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}

// newAccount saves a business account with balanceMs milliseconds.
func newAccount(t *testing.T, s Stores, id string, balanceMs int64) domain.Account {
	t.Helper()
	a := domain.Account{
		ID: domain.AccountID(id), Name: "Acme " + id, Plan: domain.PlanBusiness, BalanceMs: balanceMs,
		WebhookURL: "https://hooks.example/" + id, WebhookSecret: "whsec_" + id, CreatedAt: t0.Add(-24 * time.Hour),
	}
	noErr(t, s.CreateAccount(ctxOf(t), a))
	return a
}

func createRequest() domain.CreateRequest {
	return domain.CreateRequest{Type: domain.TypeSingleVoice, Metadata: json.RawMessage(meta)}
}

// uploadingJob is a new job created at at, in memory only.
func uploadingJob(id string, acct domain.AccountID, at time.Time) (domain.Job, []domain.Event) {
	return domain.NewJob(domain.DocID(id), acct, createRequest(), at, domain.UploadWindow)
}

// processingJob is a job created at created whose upload arrived at
// uploaded, in memory only.
func processingJob(t *testing.T, id string, acct domain.AccountID, created, uploaded time.Time) (domain.Job, []domain.Event) {
	t.Helper()
	j, evs := uploadingJob(id, acct, created)
	evs = append(evs, must(j.ReceiveUpload(uploaded, "blobs/"+id, 4096))...)
	return j, evs
}

// convertingJob is measured and converting since at, in memory only; acct's
// balance pays for it.
func convertingJob(t *testing.T, id string, acct *domain.Account, created, at time.Time) (domain.Job, []domain.Event) {
	t.Helper()
	j, evs := processingJob(t, id, acct.ID, created, at)
	evs = append(evs, must(j.Measure(at, audioInfo(1.5), acct, domain.MaxDuration))...)
	evs = append(evs, must(j.StartConverting(at))...)
	return j, evs
}

func audioInfo(seconds float64) domain.AudioInfo {
	return domain.AudioInfo{Format: "mp3", Duration: seconds, Channels: 2, SampleRate: 44100, Bitrate: 128000, Frames: 473}
}

// transcribedJob sets every field of a job through the state machine, with
// Armenian text and times off the millisecond, in memory only.
func transcribedJob(t *testing.T, id string, acct *domain.Account) (domain.Job, []domain.Event) {
	t.Helper()
	at := t0.Add(-time.Hour + 456789*time.Nanosecond).In(time.FixedZone("AMT", 4*3600))
	req := domain.CreateRequest{Type: domain.TypePhoneCall, Metadata: json.RawMessage(meta), ChecklistID: "cl-sales", ChecklistVersion: 3}
	j, evs := domain.NewJob(domain.DocID(id), acct.ID, req, at, domain.UploadWindow)
	step := func(e []domain.Event, err error) {
		t.Helper()
		evs = append(evs, must(e, err)...)
	}
	step(j.ReceiveUpload(at.Add(time.Second), "blobs/"+id, 1234567))
	step(j.Measure(at.Add(2*time.Second), domain.AudioInfo{Format: "mp3", Duration: 12.345, Channels: 2, SampleRate: 44100, Bitrate: 96000, Frames: 473}, acct, domain.MaxDuration))
	step(j.StartConverting(at.Add(3 * time.Second)))
	segs := []domain.Segment{
		{Start: 0, End: 1.25, Text: "Բարև ձեզ, ինչո՞վ կարող եմ օգնել", Speaker: "1"},
		{Start: 1.5, End: 3.125, Text: "Ուզում եմ պատվեր տալ։", Speaker: "2"},
	}
	step(j.Recognize(at.Add(4*time.Second), domain.FormatPhoneCall(segs), segs))
	step(j.Redrive(at.Add(5 * time.Second)))
	step(j.Complete(at.Add(6*time.Second), "Պատվերի զանգ", "Հաճախորդը ցանկանում է պատվեր տալ։", domain.LanguageArmenian))
	return j, evs
}

// createJob saves j with its events.
func createJob(t *testing.T, s Stores, j domain.Job, evs []domain.Event) domain.Job {
	t.Helper()
	noErr(t, s.CreateJob(ctxOf(t), j, evs))
	return j
}
