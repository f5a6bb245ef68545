package clickhouse_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/eventually"
)

func TestJobDeletedDropsItsRows(t *testing.T) {
	s, conn, _ := newStore(t)
	ctx := context.Background()
	gone, kept := domain.Job{ID: "doc-gone", AccountID: "acc", CreatedAt: t0}, domain.Job{ID: "doc-kept", AccountID: "acc"}
	_, status := domain.NewJob(gone.ID, gone.AccountID, domain.CreateRequest{Type: domain.TypeSingleVoice}, t0, time.Hour)
	events := append([]domain.Event{analysisEvent("doc-gone", "acc", "cl", t0, "yes", "no"), analysisEvent("doc-kept", "acc", "cl", t0, "yes")}, status...)
	if err := s.Write(ctx, events); err != nil {
		t.Fatal(err)
	}
	_, deleted, err := gone.Delete(t0.Add(time.Minute), domain.DeletedOnRequest, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, deleted); err != nil {
		t.Fatal(err)
	}
	rowsOf := func(doc string) uint64 {
		var n uint64
		for _, table := range []string{"checklist_results", "analyses", "job_status_events"} {
			n += count(t, conn, "SELECT count() FROM "+table+" WHERE doc_id = ?", doc)
		}
		return n
	}
	// The drop is a mutation that completes in the background.
	eventually.Holds(t, 30*time.Second, "the deleted job's rows dropped", func() (bool, string) {
		n := rowsOf("doc-gone")
		return n == 0, fmt.Sprintf("%d rows remain", n)
	})
	if n := rowsOf(string(kept.ID)); n != 2 {
		t.Fatalf("the other job has %d rows, want 2", n)
	}
	// A redelivered event of the deleted job, alone or with its deletion
	// in the same batch, writes nothing again.
	if err := s.Write(ctx, []domain.Event{analysisEvent("doc-gone", "acc", "cl", t0, "yes")}); err != nil {
		t.Fatal(err)
	}
	_, again, _ := (&domain.Job{ID: "doc-late", AccountID: "acc"}).Delete(t0, domain.DeletedByRetention, nil)
	if err := s.Write(ctx, append([]domain.Event{analysisEvent("doc-late", "acc", "cl", t0, "no")}, again...)); err != nil {
		t.Fatal(err)
	}
	if n := rowsOf("doc-gone") + rowsOf("doc-late"); n != 0 {
		t.Fatalf("redelivered events of deleted jobs wrote %d rows", n)
	}
}
