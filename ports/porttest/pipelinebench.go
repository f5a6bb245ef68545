package porttest

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hyscribe/hyscribe/domain"
)

// BenchPipelineTransitions measures UpdateJob as the pipeline uses it: the
// four transitions of one job after its upload (measure, which reserves
// balance; start converting; recognised; transcribed), from concurrency
// goroutines at once (the worker's partitions) over jobs of 8 accounts.
// One op is one job's four transitions.
func BenchPipelineTransitions(b *testing.B, s Stores) {
	const accounts = 8
	for i := range accounts {
		a := domain.Account{ID: domain.AccountID(fmt.Sprintf("acc-%d", i)), Name: "Acme", Plan: domain.PlanBusiness, BalanceMs: 1 << 50, CreatedAt: t0}
		if err := s.CreateAccount(b.Context(), a); err != nil {
			b.Fatal(err)
		}
	}
	run := 0 // b.Run calls its function more than once
	for _, conc := range []int{1, 16} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			run++
			ids := make([]domain.DocID, b.N)
			for i := range ids {
				ids[i] = domain.DocID(fmt.Sprintf("doc-%d-%d", run, i))
				j, evs := uploadingJob(string(ids[i]), domain.AccountID(fmt.Sprintf("acc-%d", i%accounts)), t0)
				evs = append(evs, must(j.ReceiveUpload(t0, "blobs/"+string(ids[i]), 4096))...)
				if err := s.CreateJob(b.Context(), j, evs); err != nil {
					b.Fatal(err)
				}
			}
			steps := []func(*domain.Job, *domain.Account) ([]domain.Event, error){
				func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
					return j.Measure(t0, audioInfo(1.5), a, domain.MaxDuration)
				},
				func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) { return j.StartConverting(t0) },
				func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
					return j.Recognize(t0, "Բարև ձեզ", []domain.Segment{{Start: 0, End: 1.5, Text: "Բարև ձեզ"}})
				},
				func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
					return j.Complete(t0, "Բարև", "", domain.LanguageArmenian)
				},
			}
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for range conc {
				wg.Go(func() {
					for {
						i := int(next.Add(1)) - 1
						if i >= len(ids) {
							return
						}
						for _, step := range steps {
							if err := s.UpdateJob(b.Context(), ids[i], step); err != nil {
								b.Error(err)
								return
							}
						}
					}
				})
			}
			wg.Wait()
		})
	}
}
