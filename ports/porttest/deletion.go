package porttest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// DeletionStores is a store adapter that also deletes jobs and keeps
// retention rules.
type DeletionStores interface {
	Stores
	ports.JobDeleter
	ports.RetentionStore
}

// Deletion runs the contract suite of ports.JobDeleter and
// ports.RetentionStore. open must return a new, empty store for each call.
func Deletion(t *testing.T, open func(t *testing.T) DeletionStores) {
	for _, st := range deletionTests {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			defer failOnMust(t)
			st.run(t, open(t))
		})
	}
}

var deletionTests = []struct {
	name string
	run  func(t *testing.T, s DeletionStores)
}{
	{"RemovesContentKeepsTombstone", func(t *testing.T, s DeletionStores) {
		acct := newAccount(t, s, "acc", 60_000)
		j, evs := transcribedJob(t, "doc-del", &acct)
		createJob(t, s, j, evs)
		noErr(t, s.SaveAnalysis(ctxOf(t), sampleAnalysis("an-1", j.ID, acct.ID), nil))
		must(s.BeginDelivery(ctxOf(t), delivery("dl-1", "doc-del/transcript.ready", j.ID, t0)))
		noErr(t, s.SavePiece(ctxOf(t), j.ID, "audio.mp3@0.000-30.000", domain.Recognition{Text: "Բարև"}, t0))
		keep, keepEvs := uploadingJob("doc-keep", acct.ID, t0)
		createJob(t, s, keep, keepEvs)

		at := t0.Add(time.Minute)
		old := must(s.DeleteJob(ctxOf(t), j.ID, func(j *domain.Job, a *domain.Account) (domain.Tombstone, []domain.Event, error) {
			return j.Delete(at, domain.DeletedOnRequest, a)
		}))
		if old.ID != j.ID || old.BlobKey == "" || old.Transcription == "" {
			t.Fatalf("DeleteJob must return the job as it was (its audio key above all): %+v", old)
		}
		_, err := s.GetJob(ctxOf(t), j.ID)
		wantErr(t, err, domain.ErrNotFound, "GetJob after delete")
		err = s.UpdateJob(ctxOf(t), j.ID, func(*domain.Job, *domain.Account) ([]domain.Event, error) { return nil, nil })
		wantErr(t, err, domain.ErrNotFound, "UpdateJob after delete")
		_, err = s.AnalysisByDoc(ctxOf(t), j.ID)
		wantErr(t, err, domain.ErrNotFound, "analysis after delete")
		if p := must(s.RecognizedPieces(ctxOf(t), j.ID)); len(p) != 0 {
			t.Fatalf("recognized pieces after delete: %s", dump(p))
		}
		if d := must(s.Deliveries(ctxOf(t), j.ID)); len(d) != 0 {
			t.Fatalf("deliveries after delete: %s", dump(d))
		}
		var deleted []string
		for _, r := range peekOutbox(t, s) {
			if r.Event.DocID == j.ID {
				deleted = append(deleted, r.Event.Type)
			}
		}
		if len(deleted) != 1 || deleted[0] != "job.deleted" {
			t.Fatalf("outbox of the deleted job holds %v; want only its job.deleted event", deleted)
		}
		tomb := must(s.GetTombstone(ctxOf(t), j.ID))
		if tomb.AccountID != acct.ID || tomb.Status != domain.StatusTranscribed || tomb.Type != domain.TypePhoneCall ||
			!sameTime(tomb.CreatedAt, j.CreatedAt) || !sameTime(tomb.UpdatedAt, j.UpdatedAt) || !sameTime(tomb.DeletedAt, at) ||
			tomb.Reason != domain.DeletedOnRequest {
			t.Fatalf("tombstone %+v", tomb)
		}
		_, err = s.DeleteJob(ctxOf(t), j.ID, func(j *domain.Job, a *domain.Account) (domain.Tombstone, []domain.Event, error) {
			return j.Delete(at, domain.DeletedOnRequest, a)
		})
		wantErr(t, err, domain.ErrNotFound, "second delete")
		if _, err := s.GetJob(ctxOf(t), keep.ID); err != nil {
			t.Fatalf("another job of the account was touched: %v", err)
		}
		_, err = s.GetTombstone(ctxOf(t), keep.ID)
		wantErr(t, err, domain.ErrNotFound, "tombstone of a live job")
	}},
	{"NoAnalysisAfterDelete", func(t *testing.T, s DeletionStores) {
		acct := newAccount(t, s, "acc", 60_000)
		j, evs := transcribedJob(t, "doc-del", &acct)
		createJob(t, s, j, evs)
		must(s.DeleteJob(ctxOf(t), j.ID, func(j *domain.Job, a *domain.Account) (domain.Tombstone, []domain.Event, error) {
			return j.Delete(t0, domain.DeletedOnRequest, a)
		}))
		// The analyze stage was running when the job was deleted.
		err := s.SaveAnalysis(ctxOf(t), sampleAnalysis("an-late", j.ID, acct.ID), nil)
		wantErr(t, err, domain.ErrNotFound, "analysis saved after its job was deleted")
		_, err = s.AnalysisByDoc(ctxOf(t), j.ID)
		wantErr(t, err, domain.ErrNotFound, "analysis of a deleted job")
	}},
	{"NoDeliveryAfterDelete", func(t *testing.T, s DeletionStores) {
		acct := newAccount(t, s, "acc", 60_000)
		j, evs := transcribedJob(t, "doc-del", &acct)
		createJob(t, s, j, evs)
		must(s.DeleteJob(ctxOf(t), j.ID, func(j *domain.Job, a *domain.Account) (domain.Tombstone, []domain.Event, error) {
			return j.Delete(t0, domain.DeletedOnRequest, a)
		}))
		// The notify stage had read the job just before it was deleted.
		if first := must(s.BeginDelivery(ctxOf(t), delivery("dl-late", "doc-del/transcript.ready", j.ID, t0))); first {
			t.Fatal("a delivery was begun for a deleted job")
		}
		if d := must(s.Deliveries(ctxOf(t), j.ID)); len(d) != 0 {
			t.Fatalf("deliveries of a deleted job: %s", dump(d))
		}
	}},
	{"RefundsReservedBalance", func(t *testing.T, s DeletionStores) {
		// Measured, not yet sent to recognition: the reservation comes back.
		acct := newAccount(t, s, "acc", 60_000)
		j, evs := processingJob(t, "doc-meas", acct.ID, t0, t0)
		evs = append(evs, must(j.Measure(t0, audioInfo(1.5), &acct, domain.MaxDuration))...)
		noErr(t, s.UpdateAccount(ctxOf(t), acct.ID, func(a *domain.Account) error { a.BalanceMs = acct.BalanceMs; return nil }))
		createJob(t, s, j, evs)
		must(s.DeleteJob(ctxOf(t), j.ID, func(j *domain.Job, a *domain.Account) (domain.Tombstone, []domain.Event, error) {
			return j.Delete(t0, domain.DeletedOnRequest, a)
		}))
		if got := must(s.GetAccount(ctxOf(t), acct.ID)).BalanceMs; got != 60_000 {
			t.Fatalf("balance after deleting a measured job that reserved 1.5 s: %d ms, want 60000", got)
		}
		// Converting: the seconds went to recognition and stay spent.
		acct = must(s.GetAccount(ctxOf(t), acct.ID))
		j, evs = convertingJob(t, "doc-conv", &acct, t0, t0)
		noErr(t, s.UpdateAccount(ctxOf(t), acct.ID, func(a *domain.Account) error { a.BalanceMs = acct.BalanceMs; return nil }))
		createJob(t, s, j, evs)
		must(s.DeleteJob(ctxOf(t), j.ID, func(j *domain.Job, a *domain.Account) (domain.Tombstone, []domain.Event, error) {
			return j.Delete(t0, domain.DeletedOnRequest, a)
		}))
		if got := must(s.GetAccount(ctxOf(t), acct.ID)).BalanceMs; got != 58_500 {
			t.Fatalf("balance after deleting a converting job that reserved 1.5 s: %d ms, want 58500", got)
		}
	}},
	{"FnErrorChangesNothing", func(t *testing.T, s DeletionStores) {
		acct := newAccount(t, s, "acc", 60_000)
		j, evs := uploadingJob("doc-1", acct.ID, t0)
		createJob(t, s, j, evs)
		boom := errors.New("boom")
		_, err := s.DeleteJob(ctxOf(t), j.ID, func(*domain.Job, *domain.Account) (domain.Tombstone, []domain.Event, error) {
			return domain.Tombstone{}, nil, boom
		})
		if err != boom {
			t.Fatalf("fn's error must come back unchanged, got %v", err)
		}
		if _, err := s.GetJob(ctxOf(t), j.ID); err != nil {
			t.Fatal(err)
		}
	}},
	{"RacingDeletesOneWins", func(t *testing.T, s DeletionStores) {
		acct := newAccount(t, s, "acc", 60_000)
		j, evs := processingJob(t, "doc-1", acct.ID, t0, t0)
		createJob(t, s, j, evs)
		const n = 8
		var wg sync.WaitGroup
		errs := make(chan error, 2*n)
		for i := 0; i < n; i++ {
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, err := s.DeleteJob(ctxOf(t), j.ID, func(j *domain.Job, a *domain.Account) (domain.Tombstone, []domain.Event, error) {
					return j.Delete(t0, domain.DeletedOnRequest, a)
				})
				errs <- err
			}()
			go func() {
				defer wg.Done()
				// A stage finishing at the same moment must never bring the job back.
				err := s.UpdateJob(ctxOf(t), j.ID, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
					j.Title = "late"
					return nil, nil
				})
				if err != nil && !errors.Is(err, domain.ErrNotFound) {
					t.Errorf("racing update: %v", err)
				}
			}()
		}
		wg.Wait()
		close(errs)
		won := 0
		for err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, domain.ErrNotFound):
				t.Errorf("racing delete: %v", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d deletes succeeded, want exactly 1", won)
		}
		_, err := s.GetJob(ctxOf(t), j.ID)
		wantErr(t, err, domain.ErrNotFound, "job after racing delete and updates")
	}},
	{"RetentionRule", func(t *testing.T, s DeletionStores) {
		keeps := newAccount(t, s, "keeps", 60_000)
		expires := newAccount(t, s, "expires", 60_000)
		if d := must(s.RetentionDays(ctxOf(t), expires.ID)); d != 0 {
			t.Fatalf("no rule must read 0, got %d", d)
		}
		noErr(t, s.SetRetentionDays(ctxOf(t), expires.ID, 30))
		noErr(t, s.SetRetentionDays(ctxOf(t), expires.ID, 7))
		if d := must(s.RetentionDays(ctxOf(t), expires.ID)); d != 7 {
			t.Fatalf("rule reads %d, want 7", d)
		}
		wantErr(t, s.SetRetentionDays(ctxOf(t), "ghost", 7), domain.ErrNotFound, "rule of a missing account")
		day := 24 * time.Hour
		for _, c := range []struct {
			id   string
			acct domain.AccountID
			age  time.Duration
		}{
			{"old-2", expires.ID, 9 * day}, {"old-1", expires.ID, 10 * day}, {"young", expires.ID, 6 * day},
			{"old-kept", keeps.ID, 100 * day},
		} {
			j, evs := uploadingJob(c.id, c.acct, t0.Add(-c.age))
			createJob(t, s, j, evs)
		}
		if got := ids(must(s.ExpiredJobs(ctxOf(t), t0, 10))); got != "[old-1 old-2]" {
			t.Fatalf("expired jobs %s, want old-1,old-2 (oldest first)", got)
		}
		if got := ids(must(s.ExpiredJobs(ctxOf(t), t0, 1))); got != "[old-1]" {
			t.Fatalf("limit 1 gave %s", got)
		}
		noErr(t, s.SetRetentionDays(ctxOf(t), expires.ID, 0))
		if got := must(s.ExpiredJobs(ctxOf(t), t0, 10)); len(got) != 0 {
			t.Fatalf("with the rule removed, expired jobs %s", ids(got))
		}
	}},
}
