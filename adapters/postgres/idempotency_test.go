package postgres

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports/porttest"
)

// BenchmarkCreate: what an Idempotency-Key costs a createTranscription's
// write (docs/performance.md).
func BenchmarkCreate(b *testing.B) { porttest.BenchCreate(b, openTest(b)) }

// TestIdempotencyAcrossReplicas races one Idempotency-Key from several
// stores on one database, as API replicas would: exactly one creates the
// job, and every one answers with its record.
func TestIdempotencyAcrossReplicas(t *testing.T) {
	url := pgtest.URL(t)
	const replicas, perReplica = 4, 4
	stores := make([]*Store, replicas)
	for i := range stores {
		stores[i] = openURL(t, url)
	}
	acct := domain.Account{ID: "acc", Name: "Acme", Plan: domain.PlanBusiness, CreatedAt: t0}
	if err := stores[0].CreateAccount(t.Context(), acct); err != nil {
		t.Fatal(err)
	}
	req := domain.CreateRequest{Type: domain.TypeSingleVoice}
	type result struct {
		doc     domain.DocID
		created bool
		err     error
	}
	results := make(chan result, replicas*perReplica)
	var wg sync.WaitGroup
	for r, s := range stores {
		for i := range perReplica {
			wg.Go(func() {
				id := domain.DocID(fmt.Sprintf("doc-%d-%d", r, i))
				j, evs := domain.NewJob(id, acct.ID, req, t0, domain.UploadWindow)
				rec := domain.Idempotency{AccountID: acct.ID, Key: "k", Fingerprint: req.Fingerprint(), DocID: id,
					Response: json.RawMessage(`{"docId":"` + string(id) + `"}`), CreatedAt: t0}
				first, created, err := s.CreateJobOnce(t.Context(), rec, j, evs)
				results <- result{first.DocID, created, err}
			})
		}
	}
	wg.Wait()
	close(results)
	winners, docs := 0, map[domain.DocID]bool{}
	for r := range results {
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.created {
			winners++
		}
		docs[r.doc] = true
	}
	var jobs int
	if err := stores[0].pool.QueryRow(t.Context(), `SELECT count(*) FROM jobs`).Scan(&jobs); err != nil {
		t.Fatal(err)
	}
	if winners != 1 || len(docs) != 1 || jobs != 1 {
		t.Fatalf("%d creators, %d docIds answered, %d jobs in the database; want 1, 1, 1", winners, len(docs), jobs)
	}
}

func BenchmarkPipelineTransitions(b *testing.B) { porttest.BenchPipelineTransitions(b, openTest(b)) }
