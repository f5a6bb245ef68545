package sqlite

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// randomMetadata is a metadata object of about size bytes of random
// 40-byte values (the shape that costs the trigram index most: every
// value is a run of new trigrams).
func randomMetadata(size int) json.RawMessage {
	r := rand.New(rand.NewPCG(3, 4))
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	m := map[string]string{}
	for i, n := 0, 0; n < size; i++ {
		b := make([]byte, 40)
		for j := range b {
			b[j] = letters[r.IntN(len(letters))]
		}
		k := fmt.Sprintf("k%05d", i)
		m[k] = string(b)
		n += len(k) + len(b) + 6
	}
	out, _ := json.Marshal(m)
	return out
}

// BenchmarkCreateLargeMetadata is a create's cost with 250 KiB of random
// metadata values (issue 34: ~1 CPU-second in the trigram index when
// every value was searched) beside one with small metadata; and the p99
// of one account's small creates while another account creates large
// ones without pause (the metric small-p99-ms, to compare with
// small-alone-p99-ms).
func BenchmarkCreateLargeMetadata(b *testing.B) {
	large := randomMetadata(250 << 10)
	small := json.RawMessage(`{"crm":"B-77","phone":"+37410123456"}`)
	s := openTemp(b)
	ctx := b.Context()
	for _, a := range []domain.AccountID{"big", "small"} {
		if err := s.CreateAccount(ctx, domain.Account{ID: a, Name: string(a), Plan: domain.PlanBusiness, CreatedAt: t0}); err != nil {
			b.Fatal(err)
		}
	}
	var n atomic.Int64
	create := func(acct domain.AccountID, meta json.RawMessage) time.Duration {
		id := domain.DocID(fmt.Sprintf("doc-%d", n.Add(1)))
		j, evs := domain.NewJob(id, acct, domain.CreateRequest{Type: domain.TypeSingleVoice, Metadata: meta}, t0, time.Hour)
		start := time.Now()
		if err := s.CreateJob(ctx, j, evs); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	p99 := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)*99/100]) / float64(time.Millisecond)
	}
	b.Run("Small", func(b *testing.B) {
		for b.Loop() {
			create("small", small)
		}
	})
	b.Run("Large250KiB", func(b *testing.B) {
		for b.Loop() {
			create("big", large)
		}
	})
	b.Run("SmallBesideLarge", func(b *testing.B) {
		var alone []time.Duration
		for range 200 {
			alone = append(alone, create("small", small))
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					create("big", large)
				}
			}
		}()
		var beside []time.Duration
		for b.Loop() {
			beside = append(beside, create("small", small))
		}
		close(stop)
		wg.Wait()
		b.ReportMetric(p99(alone), "small-alone-p99-ms")
		b.ReportMetric(p99(beside), "small-p99-ms")
	})
}
