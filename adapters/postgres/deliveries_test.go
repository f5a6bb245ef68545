package postgres

import (
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// TestResendsKeepNoPayloadCopy resends one event ten times with the same
// bytes: the log gains ten rows and not one payload byte.
func TestResendsKeepNoPayloadCopy(t *testing.T) {
	s := openTest(t)
	first := domain.Delivery{ID: "dl-0", EventID: "e-1", DocID: "doc-1", AccountID: "acc", EventType: domain.EventTranscriptReady,
		URL: "https://hooks.example/t", Payload: []byte(`{"event_type":"transcript_ready","text":"Բարև"}`),
		Status: domain.DeliveryPending, CreatedAt: t0}
	if _, err := s.BeginDelivery(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		d := first.Resend("dl-"+string(rune('a'+i)), first.URL, "", t0.Add(time.Duration(i+1)*time.Second))
		if _, err := s.BeginDelivery(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
	var rows, copies, bytes int
	if err := s.pool.QueryRow(t.Context(), `SELECT count(*), count(payload), coalesce(sum(length(payload)), 0) FROM deliveries WHERE doc_id = 'doc-1'`).Scan(&rows, &copies, &bytes); err != nil {
		t.Fatal(err)
	}
	if rows != 11 || copies != 1 || bytes != len(first.Payload) {
		t.Errorf("%d rows, %d payload copies, %d payload bytes; want 11 rows and one copy of %d bytes", rows, copies, bytes, len(first.Payload))
	}
}
