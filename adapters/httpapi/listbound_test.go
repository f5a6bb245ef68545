package httpapi

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// TestListPageLeavesOutLargeMetadata: a page of jobs with 200 KiB of
// metadata each holds none of it — each item says metadataOmitted — so
// its size is bounded whatever the metadata; small metadata is listed as
// before, and getTranscription still returns the whole of a large one.
func TestListPageLeavesOutLargeMetadata(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanBusiness)
	large := `{"crm":"B-77","notes":"` + strings.Repeat("n", 200<<10) + `"}`
	var bigID string
	for range 5 {
		r := e.create(key, `{"type":"single_voice","metadata":`+large+`}`)
		if r.status != 200 {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		bigID, _ = r.json(t)["docId"].(string)
	}
	small := e.create(key, `{"type":"single_voice","metadata":{"crm":"A-1"}}`)
	if small.status != 200 {
		t.Fatalf("create: %d %s", small.status, small.body)
	}
	r := e.list(key, "limit=100")
	if r.status != 200 {
		t.Fatalf("list: %d %s", r.status, r.body)
	}
	// Six items of a few hundred bytes each, not a megabyte.
	if len(r.body) > 6*1024 {
		t.Fatalf("a page of 6 jobs is %d bytes", len(r.body))
	}
	var page struct {
		Items []struct {
			DocID           string          `json:"docId"`
			Metadata        json.RawMessage `json:"metadata"`
			MetadataOmitted bool            `json:"metadataOmitted"`
		} `json:"items"`
	}
	if err := json.Unmarshal(r.body, &page); err != nil || len(page.Items) != 6 {
		t.Fatalf("page %s: %v", r.body, err)
	}
	for _, it := range page.Items {
		wantOmitted := it.DocID != small.json(t)["docId"]
		if it.MetadataOmitted != wantOmitted || (wantOmitted && string(it.Metadata) != "{}") || (!wantOmitted && string(it.Metadata) != `{"crm":"A-1"}`) {
			t.Errorf("item %s: metadata %s, omitted %v", it.DocID, it.Metadata, it.MetadataOmitted)
		}
	}
	got := e.do("GET", "/api/getTranscription?docId="+bigID, bearer(key), nil)
	if got.status != 200 || !strings.Contains(string(got.body), strings.Repeat("n", 200<<10)) {
		t.Fatalf("getTranscription of a large-metadata job: %d, %d bytes; want the whole metadata", got.status, len(got.body))
	}
}

// blockingLister holds every ListJobs and PageJobs, once armed, until release is
// closed, after telling entered.
type blockingLister struct {
	store
	armed   atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (b *blockingLister) ListJobs(ctx context.Context, q ports.JobQuery) ([]ports.ListedJob, int, error) {
	if b.armed.Load() {
		b.entered <- struct{}{}
		<-b.release
	}
	return b.store.ListJobs(ctx, q)
}

// PageJobs is the API list's read (ports.JobPager), held like ListJobs.
func (b *blockingLister) PageJobs(ctx context.Context, q ports.JobQuery) ([]ports.ListedJob, error) {
	if b.armed.Load() {
		b.entered <- struct{}{}
		<-b.release
	}
	return b.store.PageJobs(ctx, q)
}

// TestHeavyRequestsPerKeyAreBounded: while a key has HeavyPerKey lists in
// progress, its next list and export are 429 too_many_in_progress with
// Retry-After; another key is not held back, and once they finish the key
// lists again.
func TestHeavyRequestsPerKeyAreBounded(t *testing.T) {
	t.Parallel()
	bl := &blockingLister{entered: make(chan struct{}), release: make(chan struct{})}
	e := newEnv(t, func(o *options) {
		o.cfg.HeavyPerKey = 2
		o.wrapStore = func(s store) store { bl.store = s; return bl }
	})
	_, key := e.account(domain.PlanBusiness)
	_, otherKey := e.account(domain.PlanBusiness)
	id, _ := e.newJob(key)
	bl.armed.Store(true)
	var wg sync.WaitGroup
	held := make([]response, 2)
	for i := range held {
		wg.Add(1)
		go func() { defer wg.Done(); held[i] = e.list(key, "") }()
		entered(t, bl.entered) // in progress
	}
	r := e.list(key, "")
	ex := e.do("GET", "/api/exportTranscription?docId="+id+"&format=txt", bearer(key), nil)
	for name, r := range map[string]response{"list": r, "export": ex} {
		if r.status != 429 || r.header.Get("Retry-After") == "" || !strings.Contains(string(r.body), `"code":"too_many_in_progress"`) {
			t.Errorf("a third heavy %s of the key: %d %s %v, want 429 too_many_in_progress with Retry-After", name, r.status, r.body, r.header)
		}
	}
	other := make(chan response)
	go func() { other <- e.list(otherKey, "") }()
	entered(t, bl.entered) // the other key's list is in progress beside the key's two
	close(bl.release)
	if r := <-other; r.status != 200 {
		t.Fatalf("another key's list: %d %s", r.status, r.body)
	}
	wg.Wait()
	for i, r := range held {
		if r.status != 200 {
			t.Fatalf("held list %d: %d %s", i, r.status, r.body)
		}
	}
	bl.armed.Store(false)
	if r := e.list(key, ""); r.status != 200 {
		t.Fatalf("the key's list after the others finished: %d %s", r.status, r.body)
	}
}

// entered waits for a held read to begin; a read the test no longer holds
// (the handler reads through another port) fails it instead of hanging.
func entered(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatal("the list never reached the store's held read: which port does it read through?")
	}
}
