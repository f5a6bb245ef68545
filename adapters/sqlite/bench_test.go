package sqlite

import (
	"fmt"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// BenchmarkHit is the rate limiter's cost on every API request.
func BenchmarkHit(b *testing.B) {
	s := openTemp(b)
	w := domain.RateWindow(t0)
	i := 0
	for b.Loop() {
		if _, err := s.Hit(b.Context(), fmt.Sprint("key-", i%100), w); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkHitParallel shows how hits from many requests queue on the
// single writer.
func BenchmarkHitParallel(b *testing.B) {
	s := openTemp(b)
	w := domain.RateWindow(t0)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Hit(b.Context(), "key", w); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkUpdateJob is one pipeline step: load job and account, save both
// and one outbox event.
func BenchmarkUpdateJob(b *testing.B) {
	s := openTemp(b)
	ctx := b.Context()
	acct := domain.Account{ID: "acc", Name: "Acme", Plan: domain.PlanBusiness, BalanceMs: 1 << 40, CreatedAt: t0}
	if err := s.CreateAccount(ctx, acct); err != nil {
		b.Fatal(err)
	}
	j, evs := domain.NewJob("doc-1", acct.ID, domain.CreateRequest{Type: domain.TypeSingleVoice}, t0, time.Hour)
	if _, err := j.ReceiveUpload(t0, "blob", 1); err != nil {
		b.Fatal(err)
	}
	if err := s.CreateJob(ctx, j, evs); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		err := s.UpdateJob(ctx, j.ID, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
			return j.Redrive(t0.Add(time.Minute)) // processing, unmeasured: re-emits audio.uploaded
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
