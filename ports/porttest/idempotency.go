package porttest

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// keyed is an Idempotency record of account for the job id, made at at.
func keyed(account domain.AccountID, key, fingerprint, id string, at time.Time) domain.Idempotency {
	return domain.Idempotency{
		AccountID: account, Key: key, Fingerprint: fingerprint, DocID: domain.DocID(id),
		Response: json.RawMessage(`{"docId":"` + id + `","uploadUrl":"https://up.example/` + id + `"}`), CreatedAt: at,
	}
}

func wantIdempotency(t *testing.T, got, want domain.Idempotency) {
	t.Helper()
	if got.AccountID != want.AccountID || got.Key != want.Key || got.Fingerprint != want.Fingerprint ||
		got.DocID != want.DocID || string(got.Response) != string(want.Response) || !sameTime(got.CreatedAt, want.CreatedAt) {
		t.Fatalf("idempotency record:\n got %s\nwant %s", dump(got), dump(want))
	}
}

// createOnce calls CreateJobOnce for a new uploading job id.
func createOnce(t *testing.T, s Stores, rec domain.Idempotency) (domain.Idempotency, bool) {
	t.Helper()
	j, evs := uploadingJob(string(rec.DocID), rec.AccountID, rec.CreatedAt)
	first, created, err := s.CreateJobOnce(ctxOf(t), rec, j, evs)
	noErr(t, err)
	return first, created
}

var idempotencyTests = []subtest{
	{"FirstCreatesThenReplays", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 0)
		rec := keyed(acct.ID, "k-1", "fp-a", "doc-1", t0)
		first, created := createOnce(t, s, rec)
		if !created {
			t.Fatal("first call with a key: created false")
		}
		wantIdempotency(t, first, rec)
		j := must(s.GetJob(ctxOf(t), "doc-1"))
		if j.AccountID != acct.ID || j.Status != domain.StatusUploading {
			t.Fatalf("created job %s of %s in %s", j.ID, j.AccountID, j.Status)
		}
		if n := len(peekOutbox(t, s)); n == 0 {
			t.Fatal("the created job's events did not reach the outbox")
		}
		outbox := len(peekOutbox(t, s))

		// A retry an hour later, with another body even: nothing new, the
		// first record back (comparing fingerprints is the caller's part).
		again, created := createOnce(t, s, keyed(acct.ID, "k-1", "fp-b", "doc-2", t0.Add(time.Hour)))
		if created {
			t.Fatal("second call with a live key: created true")
		}
		wantIdempotency(t, again, rec)
		if _, err := s.GetJob(ctxOf(t), "doc-2"); err == nil {
			t.Fatal("a retry created a second job")
		}
		if n := len(peekOutbox(t, s)); n != outbox {
			t.Fatalf("a retry wrote events: outbox %d, was %d", n, outbox)
		}
	}},
	{"KeysAreAnAccountsOwn", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc-a", 0)
		b := newAccount(t, s, "acc-b", 0)
		createOnce(t, s, keyed(a.ID, "shared", "fp", "doc-a", t0))
		rec := keyed(b.ID, "shared", "fp", "doc-b", t0.Add(time.Second))
		first, created := createOnce(t, s, rec)
		if !created {
			t.Fatal("another account's key with the same text: created false")
		}
		wantIdempotency(t, first, rec)
		createOnce(t, s, keyed(a.ID, "other", "fp", "doc-a2", t0))
		must(s.GetJob(ctxOf(t), "doc-a2"))
	}},
	{"KeyExpiresAfterTheWindow", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 0)
		createOnce(t, s, keyed(acct.ID, "k", "fp", "doc-1", t0))
		// Just inside the window: still the first.
		if _, created := createOnce(t, s, keyed(acct.ID, "k", "fp", "doc-2", t0.Add(domain.IdempotencyWindow-time.Millisecond))); created {
			t.Fatal("a key 1 ms before the end of its window created a job")
		}
		// At the end of the window the key is free: a new job.
		rec := keyed(acct.ID, "k", "fp", "doc-3", t0.Add(domain.IdempotencyWindow))
		first, created := createOnce(t, s, rec)
		if !created {
			t.Fatal("a key past its window did not create a job")
		}
		wantIdempotency(t, first, rec)
		// And that new record is the one retries get.
		again, _ := createOnce(t, s, keyed(acct.ID, "k", "fp", "doc-4", rec.CreatedAt.Add(time.Minute)))
		wantIdempotency(t, again, rec)
	}},
	{"RefusedJobKeepsNoKey", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 0)
		taken, tevs := uploadingJob("taken", acct.ID, t0)
		createJob(t, s, taken, tevs)
		// The job's ID exists: the store refuses it and must not keep the key.
		j, evs := uploadingJob("taken", acct.ID, t0)
		_, _, err := s.CreateJobOnce(ctxOf(t), keyed(acct.ID, "k", "fp", "taken", t0), j, evs)
		wantErr(t, err, domain.ErrConflict, "CreateJobOnce with an existing docId")
		rec := keyed(acct.ID, "k", "fp", "doc-2", t0.Add(time.Second))
		if _, created := createOnce(t, s, rec); !created {
			t.Fatal("a key whose job was refused stayed taken")
		}
	}},
	{"ConcurrentCallsMakeOneJob", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 0)
		const n = 8
		var wg sync.WaitGroup
		firsts := make([]domain.Idempotency, n)
		createdBy := make([]bool, n)
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := fmt.Sprintf("doc-%d", i)
				j, evs := uploadingJob(id, acct.ID, t0)
				firsts[i], createdBy[i], errs[i] = s.CreateJobOnce(ctxOf(t), keyed(acct.ID, "k", "fp", id, t0), j, evs)
			}()
		}
		wg.Wait()
		winners, winner := 0, domain.DocID("")
		for i := range n {
			noErr(t, errs[i])
			if createdBy[i] {
				winners++
				winner = firsts[i].DocID
			}
		}
		if winners != 1 {
			t.Fatalf("%d of %d concurrent calls with one key created a job, want 1", winners, n)
		}
		for i := range n {
			if firsts[i].DocID != winner {
				t.Fatalf("call %d got docId %s, the winner made %s", i, firsts[i].DocID, winner)
			}
			_, err := s.GetJob(ctxOf(t), domain.DocID(fmt.Sprintf("doc-%d", i)))
			if exists := err == nil; exists != (domain.DocID(fmt.Sprintf("doc-%d", i)) == winner) {
				t.Fatalf("job doc-%d exists = %v; only the winner %s may", i, exists, winner)
			}
		}
	}},
}

// BenchCreate measures creating a job plainly, under a new Idempotency-Key
// each time, and answering a retry of one key, on the store s (empty).
func BenchCreate(b *testing.B, s Stores) {
	acct := domain.Account{ID: "acc", Name: "Acme", Plan: domain.PlanBusiness, CreatedAt: t0}
	if err := s.CreateAccount(b.Context(), acct); err != nil {
		b.Fatal(err)
	}
	n := 0
	create := func(key string) bool {
		n++
		id := fmt.Sprintf("doc-%d", n)
		j, evs := uploadingJob(id, acct.ID, t0)
		if key == "" {
			if err := s.CreateJob(b.Context(), j, evs); err != nil {
				b.Fatal(err)
			}
			return true
		}
		_, created, err := s.CreateJobOnce(b.Context(), keyed(acct.ID, key, "fp", id, t0), j, evs)
		if err != nil {
			b.Fatal(err)
		}
		return created
	}
	b.Run("Plain", func(b *testing.B) {
		for b.Loop() {
			create("")
		}
	})
	b.Run("NewKey", func(b *testing.B) {
		for b.Loop() {
			create(fmt.Sprintf("key-%d", n))
		}
	})
	b.Run("Replay", func(b *testing.B) {
		create("retried")
		for b.Loop() {
			if create("retried") {
				b.Fatal("a retry created a job")
			}
		}
	})
}
