package porttest

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

var jobTests = []subtest{
	{"CreateGetRoundTrip", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 60_000)
		full, evs := transcribedJob(t, "doc-full", &acct)
		full.Filename = "զանգ 2026-03-01 «Ա».mp3" // the uploaded file's name, kept as given
		createJob(t, s, full, evs)
		wantJob(t, must(s.GetJob(ctxOf(t), full.ID)), full)

		failed, fevs := processingJob(t, "doc-failed", acct.ID, t0, t0.Add(time.Second))
		fevs = append(fevs, must(failed.Fail(t0.Add(2*time.Second), "ֆայլը WAV ձայնագրություն է, ոչ MP3", nil))...)
		createJob(t, s, failed, fevs)
		wantJob(t, must(s.GetJob(ctxOf(t), failed.ID)), failed)

		fresh, nevs := uploadingJob("doc-new", acct.ID, t0)
		createJob(t, s, fresh, nevs)
		got := must(s.GetJob(ctxOf(t), fresh.ID))
		wantJob(t, got, fresh)
		if got.Audio != nil || got.Segments != nil {
			t.Fatalf("unmeasured job: Audio %v, Segments %v; want nil", got.Audio, got.Segments)
		}
	}},
	{"CreateWritesEventsToOutbox", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 60_000)
		full, evs := transcribedJob(t, "doc-1", &acct)
		createJob(t, s, full, evs)
		wantEvents(t, recordEvents(peekOutbox(t, s)), evs)
	}},
	{"CreateConflict", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 0)
		j, evs := uploadingJob("doc-1", acct.ID, t0)
		createJob(t, s, j, evs)
		other, oevs := processingJob(t, "doc-1", acct.ID, t0.Add(time.Minute), t0.Add(time.Minute))
		wantErr(t, s.CreateJob(ctxOf(t), other, oevs), domain.ErrConflict, "second CreateJob with one ID")
		wantJob(t, must(s.GetJob(ctxOf(t), j.ID)), j)
		wantEvents(t, recordEvents(peekOutbox(t, s)), evs)
	}},
	{"CreateForUnknownAccount", func(t *testing.T, s Stores) {
		j, evs := uploadingJob("doc-1", "nobody", t0)
		wantErr(t, s.CreateJob(ctxOf(t), j, evs), domain.ErrNotFound, "CreateJob for a missing account")
		if recs := peekOutbox(t, s); len(recs) != 0 {
			t.Fatalf("refused job left %d outbox records", len(recs))
		}
	}},
	{"GetNotFound", func(t *testing.T, s Stores) {
		_, err := s.GetJob(ctxOf(t), "missing")
		wantErr(t, err, domain.ErrNotFound, "GetJob of a missing job")
	}},
	{"GetJobAndAccount", func(t *testing.T, s Stores) {
		newAccount(t, s, "acc-other", 1_000)
		acct := newAccount(t, s, "acc", 60_000)
		j, evs := transcribedJob(t, "doc-1", &acct)
		createJob(t, s, j, evs)
		gotJob, gotAcct, err := s.GetJobAndAccount(ctxOf(t), j.ID)
		noErr(t, err)
		wantJob(t, gotJob, j)
		if want := must(s.GetAccount(ctxOf(t), acct.ID)); !reflect.DeepEqual(gotAcct, want) {
			t.Fatalf("GetJobAndAccount's account = %+v, want %+v", gotAcct, want)
		}
		if _, _, err := s.GetJobAndAccount(ctxOf(t), "doc-none"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("GetJobAndAccount of an unknown job: %v, want ErrNotFound", err)
		}
	}},
	{"NoAliasing", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 60_000)
		j, evs := transcribedJob(t, "doc-1", &acct)
		want := deepJob(j)
		wantEvs := deepEvents(evs)
		createJob(t, s, j, evs)
		scribble(&j)
		evs[0].Data[0] = 'X'
		got := must(s.GetJob(ctxOf(t), want.ID))
		wantJob(t, got, want)
		scribble(&got)
		wantJob(t, must(s.GetJob(ctxOf(t), want.ID)), want)
		recs := peekOutbox(t, s)
		wantEvents(t, recordEvents(recs), wantEvs)
		recs[0].Event.Data[0] = 'X'
		wantEvents(t, recordEvents(peekOutbox(t, s)), wantEvs)

		var kept *domain.Job
		noErr(t, s.UpdateJob(ctxOf(t), want.ID, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
			kept = j
			return nil, nil
		}))
		scribble(kept)
		wantJob(t, must(s.GetJob(ctxOf(t), want.ID)), want)
	}},
}

// scribble changes a job through every reference it holds, to prove the
// store kept none of them.
func scribble(j *domain.Job) {
	j.Metadata[2] = 'X'
	j.Segments[0].Text = "scribbled"
	j.Audio.Duration = 999
	j.Title = "scribbled"
}

func deepJob(j domain.Job) domain.Job {
	j.Metadata = slices.Clone(j.Metadata)
	j.Segments = slices.Clone(j.Segments)
	if j.Audio != nil {
		a := *j.Audio
		j.Audio = &a
	}
	return j
}

func deepEvents(evs []domain.Event) []domain.Event {
	out := slices.Clone(evs)
	for i := range out {
		out[i].Data = slices.Clone(out[i].Data)
	}
	return out
}

var errRefused = errors.New("porttest: fn refused")

var updateJobTests = []subtest{
	{"SavesJobAccountAndEvents", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 10_000)
		j, evs := processingJob(t, "doc-1", acct.ID, t0, t0.Add(time.Second))
		createJob(t, s, j, evs)
		before := peekOutbox(t, s)

		var fnEvents []domain.Event
		noErr(t, s.UpdateJob(ctxOf(t), j.ID, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
			if a == nil || a.ID != acct.ID || a.BalanceMs != 10_000 {
				return nil, fmt.Errorf("fn got account %+v, want %s with 10000 ms", a, acct.ID)
			}
			var err error
			fnEvents, err = j.Measure(t0.Add(2*time.Second), audioInfo(2.5), a, domain.MaxDuration)
			return fnEvents, err
		}))

		want, wantAcct := deepJob(j), acct
		wantEvs := must(want.Measure(t0.Add(2*time.Second), audioInfo(2.5), &wantAcct, domain.MaxDuration))
		wantEvents(t, fnEvents, wantEvs)
		got := must(s.GetJob(ctxOf(t), j.ID))
		if got.Audio == nil || got.Audio.Duration != 2.5 || got.ReservedMs != 2500 || !sameTime(got.UpdatedAt, t0.Add(2*time.Second)) {
			t.Fatalf("job after Measure: Audio %+v ReservedMs %d UpdatedAt %v", got.Audio, got.ReservedMs, got.UpdatedAt)
		}
		wantJob(t, got, want)
		wantAccount(t, must(s.GetAccount(ctxOf(t), acct.ID)), wantAcct)
		if wantAcct.BalanceMs != 7_500 {
			t.Fatalf("test setup: balance after reserving 2.5 s of 10 s is %d ms", wantAcct.BalanceMs)
		}
		after := peekOutbox(t, s)
		if len(after) != len(before)+1 {
			t.Fatalf("outbox has %d records, want %d", len(after), len(before)+1)
		}
		if after[len(after)-1].Seq <= before[len(before)-1].Seq {
			t.Fatalf("new record seq %d not after %d", after[len(after)-1].Seq, before[len(before)-1].Seq)
		}
		wantEvents(t, recordEvents(after[len(before):]), wantEvs)
	}},
	{"FnErrorSavesNothing", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 10_000)
		j, evs := processingJob(t, "doc-1", acct.ID, t0, t0.Add(time.Second))
		createJob(t, s, j, evs)
		before := peekOutbox(t, s)

		err := s.UpdateJob(ctxOf(t), j.ID, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
			evs, err := j.Measure(t0.Add(2*time.Second), audioInfo(2.5), a, domain.MaxDuration)
			if err != nil {
				return nil, err
			}
			j.Title = "half-done"
			a.WebhookURL = "https://changed.example"
			return evs, errRefused
		})
		// Identity, not errors.Is: the contract says "returned unchanged".
		if err != errRefused {
			t.Fatalf("UpdateJob returned %v (%T), want fn's error unchanged", err, err)
		}
		wantJob(t, must(s.GetJob(ctxOf(t), j.ID)), j)
		wantAccount(t, must(s.GetAccount(ctxOf(t), acct.ID)), acct)
		after := peekOutbox(t, s)
		if !slices.Equal(seqs(after), seqs(before)) {
			t.Fatalf("outbox seqs %v after a refused update, want %v", seqs(after), seqs(before))
		}

		// A domain error is returned unchanged too, so callers can tell it apart.
		err = s.UpdateJob(ctxOf(t), j.ID, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
			return j.StartConverting(t0.Add(3 * time.Second)) // not measured yet
		})
		if !errors.Is(err, domain.ErrInvalidTransition) {
			t.Fatalf("UpdateJob returned %v, want ErrInvalidTransition", err)
		}
	}},
	{"NotFound", func(t *testing.T, s Stores) {
		called := false
		err := s.UpdateJob(ctxOf(t), "missing", func(*domain.Job, *domain.Account) ([]domain.Event, error) {
			called = true
			return nil, nil
		})
		wantErr(t, err, domain.ErrNotFound, "UpdateJob of a missing job")
		if called {
			t.Fatal("fn was called for a missing job")
		}
	}},
	{"ConcurrentTransitionOneWins", func(t *testing.T, s Stores) {
		const n = 16
		acct := newAccount(t, s, "acc", 0)
		j, evs := uploadingJob("doc-1", acct.ID, t0)
		createJob(t, s, j, evs)

		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				errs[i] = s.UpdateJob(ctxOf(t), j.ID, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
					return j.ReceiveUpload(t0.Add(time.Second), fmt.Sprintf("blob-%d", i), int64(i+1))
				})
			})
		}
		close(start)
		wg.Wait()

		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("goroutines %d and %d both won the same transition", winner, i)
			case err == nil:
				winner = i
			case !errors.Is(err, domain.ErrInvalidTransition):
				t.Fatalf("goroutine %d: %v, want ErrInvalidTransition", i, err)
			}
		}
		if winner < 0 {
			t.Fatal("no goroutine won the transition")
		}
		got := must(s.GetJob(ctxOf(t), j.ID))
		if got.Status != domain.StatusProcessing || got.BlobKey != fmt.Sprintf("blob-%d", winner) || got.AudioBytes != int64(winner+1) {
			t.Fatalf("job is %s with blob %q (%d bytes), want processing with the winner's blob-%d", got.Status, got.BlobKey, got.AudioBytes, winner)
		}
		if recs := peekOutbox(t, s); len(recs) != len(evs)+2 {
			t.Fatalf("outbox has %d records, want %d: creation plus one winning transition", len(recs), len(evs)+2)
		}
	}},
	{"ConcurrentUpdatesFailOnlyTheirOwn", func(t *testing.T, s Stores) {
		// Updates at the same moment may share a transaction (Postgres
		// commits them as a group): one failing, by its fn or by the
		// events it returns, must leave the others to commit, and change
		// nothing itself.
		const n = 24
		acct := newAccount(t, s, "acc", 1_000_000)
		for i := range n {
			j, evs := processingJob(t, fmt.Sprintf("doc-%02d", i), acct.ID, t0, t0.Add(time.Second))
			createJob(t, s, j, evs)
		}
		before := len(peekOutbox(t, s))
		probe, _ := processingJob(t, "probe", acct.ID, t0, t0.Add(time.Second))
		probeAcct := acct
		perMeasure := len(must(probe.Measure(t0.Add(2*time.Second), audioInfo(1.5), &probeAcct, domain.MaxDuration)))
		refused := errors.New("refused by fn")
		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				errs[i] = s.UpdateJob(ctxOf(t), domain.DocID(fmt.Sprintf("doc-%02d", i)), func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
					evs, err := j.Measure(t0.Add(2*time.Second), audioInfo(1.5), a, domain.MaxDuration)
					switch i % 3 {
					case 0:
						return nil, refused
					case 2:
						return append(evs, domain.Event{ID: "broken"}), err // no topic: refused by the store
					}
					return evs, err
				})
			})
		}
		close(start)
		wg.Wait()
		ok := 0
		for i, err := range errs {
			j := must(s.GetJob(ctxOf(t), domain.DocID(fmt.Sprintf("doc-%02d", i))))
			switch i % 3 {
			case 0:
				if !errors.Is(err, refused) {
					t.Errorf("doc-%02d: %v, want fn's own error", i, err)
				}
			case 1:
				if err != nil {
					t.Errorf("doc-%02d: %v", i, err)
				}
				ok++
			case 2:
				if err == nil {
					t.Errorf("doc-%02d: an event without a topic was saved", i)
				}
			}
			if applied := j.Audio != nil; applied != (i%3 == 1) || (applied && j.ReservedMs != 1500) {
				t.Errorf("doc-%02d: applied %v, reserved %d ms, error %v", i, applied, j.ReservedMs, err)
			}
		}
		if a := must(s.GetAccount(ctxOf(t), acct.ID)); a.BalanceMs != acct.BalanceMs-int64(ok)*1500 {
			t.Errorf("balance %d ms after %d reservations of 1500 ms from %d", a.BalanceMs, ok, acct.BalanceMs)
		}
		if got := len(peekOutbox(t, s)) - before; got != ok*perMeasure {
			t.Errorf("outbox gained %d records, want %d (%d successful updates)", got, ok*perMeasure, ok)
		}
	}},
	{"ConcurrentReserveNeverOverdraws", func(t *testing.T, s Stores) {
		const n, affordable = 16, 10
		acct := newAccount(t, s, "acc", affordable*1500)
		for i := range n {
			j, evs := processingJob(t, fmt.Sprintf("doc-%02d", i), acct.ID, t0, t0.Add(time.Second))
			createJob(t, s, j, evs)
		}
		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				errs[i] = s.UpdateJob(ctxOf(t), domain.DocID(fmt.Sprintf("doc-%02d", i)), func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
					if a.BalanceMs < 0 {
						return nil, fmt.Errorf("fn saw a negative balance: %d", a.BalanceMs)
					}
					return j.Measure(t0.Add(2*time.Second), audioInfo(1.5), a, domain.MaxDuration)
				})
			})
		}
		close(start)
		wg.Wait()

		var ok int
		var reserved int64
		for i, err := range errs {
			if err == nil {
				ok++
			} else if !domain.IsPermanent(err) {
				t.Fatalf("goroutine %d: %v, want success or the permanent balance error", i, err)
			}
			j := must(s.GetJob(ctxOf(t), domain.DocID(fmt.Sprintf("doc-%02d", i))))
			if (err == nil) != (j.Audio != nil) {
				t.Fatalf("doc-%02d: error %v but Audio %+v", i, err, j.Audio)
			}
			reserved += j.ReservedMs
		}
		a := must(s.GetAccount(ctxOf(t), acct.ID))
		if ok != affordable || a.BalanceMs != 0 || reserved != acct.BalanceMs {
			t.Fatalf("%d reservations succeeded, balance %d ms, %d ms reserved; want %d, 0, %d", ok, a.BalanceMs, reserved, affordable, acct.BalanceMs)
		}
	}},
	{"SignalsOutboxWritten", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 0)
		ch := s.OutboxWritten()
		if ch == nil {
			t.Fatal("OutboxWritten returned a nil channel")
		}
		drain(ch)
		j, evs := uploadingJob("doc-1", acct.ID, t0)
		createJob(t, s, j, evs)
		waitSignal(t, ch, "CreateJob")

		drain(ch)
		noErr(t, s.UpdateJob(ctxOf(t), j.ID, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
			return j.ReceiveUpload(t0.Add(time.Second), "blob", 1)
		}))
		// The contract allows a store that never signals (relays poll too),
		// but both adapters in this repository do, and the relay's latency
		// depends on it.
		waitSignal(t, ch, "UpdateJob")
	}},
}

func drain(ch <-chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

func waitSignal(t *testing.T, ch <-chan struct{}, after string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(2 * time.Second):
		t.Fatalf("OutboxWritten did not fire after %s wrote events", after)
	}
}

var staleJobTests = []subtest{
	{"Selection", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 60_000)
		stuckBefore := t0.Add(-15 * time.Minute)
		save := func(j domain.Job, evs []domain.Event) domain.Job { return createJob(t, s, j, evs) }

		// Stale: upload window closed before now, or exactly at now.
		upPast := save(uploadingJob("up-past", acct.ID, t0.Add(-2*time.Hour)))
		upAtNow := save(uploadingJob("up-at-now", acct.ID, t0.Add(-domain.UploadWindow)))
		// Stale: processing or converting, untouched since before stuckBefore.
		procOld := save(processingJob(t, "proc-old", acct.ID, t0.Add(-3*time.Hour), stuckBefore.Add(-time.Second)))
		convOld := save(convertingJob(t, "conv-old", &acct, t0.Add(-4*time.Hour), t0.Add(-3*time.Hour)))

		// Not stale: the upload window is still open (a millisecond left),
		// however long ago the job was last updated.
		save(uploadingJob("up-open", acct.ID, t0.Add(-domain.UploadWindow+time.Millisecond)))
		// Not stale: updated after stuckBefore, or exactly at it.
		save(processingJob(t, "proc-fresh", acct.ID, t0.Add(-3*time.Hour), t0.Add(-5*time.Minute)))
		save(processingJob(t, "proc-boundary", acct.ID, t0.Add(-3*time.Hour), stuckBefore))
		save(convertingJob(t, "conv-fresh", &acct, t0.Add(-3*time.Hour), t0.Add(-time.Minute)))
		// Not stale: terminal, however old.
		save(transcribedJob(t, "done-old", &acct))
		failed, fevs := uploadingJob("failed-old", acct.ID, t0.Add(-5*time.Hour))
		fevs = append(fevs, must(failed.Fail(t0.Add(-4*time.Hour), "upload window expired", nil))...)
		save(failed, fevs)

		got := must(s.StaleJobs(ctxOf(t), t0, stuckBefore, 100))
		want := []domain.Job{convOld, procOld, upPast, upAtNow} // oldest (created) first
		if ids(got) != ids(want) {
			t.Fatalf("StaleJobs: got %s, want %s", ids(got), ids(want))
		}
		for i := range want {
			wantJob(t, got[i], want[i])
		}

		got = must(s.StaleJobs(ctxOf(t), t0, stuckBefore, 2))
		if ids(got) != ids(want[:2]) {
			t.Fatalf("StaleJobs limit 2: got %s, want %s", ids(got), ids(want[:2]))
		}
	}},
	{"Empty", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 0)
		j, evs := uploadingJob("doc-1", acct.ID, t0)
		createJob(t, s, j, evs)
		if got := must(s.StaleJobs(ctxOf(t), t0, t0.Add(-time.Hour), 10)); len(got) != 0 {
			t.Fatalf("StaleJobs: got %s, want none", ids(got))
		}
	}},
}

func ids(jobs []domain.Job) string {
	s := make([]string, len(jobs))
	for i, j := range jobs {
		s[i] = string(j.ID)
	}
	return fmt.Sprint(s)
}
