package domain

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestListCursorRoundTripAndOrder(t *testing.T) {
	at := time.Date(2026, 11, 21, 10, 0, 0, 123_456_789, time.UTC)
	c := CursorAfter(at, "Zq3-_x")
	back, err := ParseListCursor(c.String())
	if err != nil || back != (ListCursor{CreatedAt: at.Truncate(time.Millisecond), ID: "Zq3-_x"}) {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	for _, tc := range []struct {
		created time.Time
		id      DocID
		listed  bool
	}{
		{at.Add(-time.Millisecond), "zzz", true},    // earlier
		{at.Add(400 * time.Microsecond), "A", true}, // same millisecond, smaller ID
		{at, "Zq3-_x", false},                       // the cursor's own job
		{at, "a", false},                            // same millisecond, larger ID
		{at.Add(time.Millisecond), "A", false},      // newer
	} {
		if got := c.Listed(tc.created, tc.id); got != tc.listed {
			t.Errorf("Listed(%s, %s) = %v", tc.created, tc.id, got)
		}
	}
	for _, bad := range []string{"", "!!", "YzE6", "eDE6MTIzOmE", "YzE6YWJjOmE", "YzE6MTIzOg"} {
		if _, err := ParseListCursor(bad); !errors.Is(err, ErrValidation) {
			t.Errorf("cursor %q: %v", bad, err)
		}
	}
}

func TestParseListRequest(t *testing.T) {
	r, err := ParseListRequest("", "", "", "", "")
	if err != nil || r.Limit != DefaultListLimit || r.Status != "" || !r.CreatedSince.IsZero() || !r.Cursor.IsZero() {
		t.Fatalf("defaults: %+v %v", r, err)
	}
	r, err = ParseListRequest("failed", "2026-11-21T14:00:00+04:00", "2026-11-22T00:00:00Z", "100", "")
	if err != nil || r.Status != StatusFailed || !r.CreatedSince.Equal(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)) || r.Limit != 100 {
		t.Fatalf("filters: %+v %v", r, err)
	}
	for _, tc := range []struct{ status, since, until, limit, cursor, code string }{
		{"done", "", "", "", "", "invalid_status"},
		{"", "yesterday", "", "", "", "invalid_created_since"},
		{"", "", "2026-11-21", "", "", "invalid_created_until"},
		{"", "2026-11-21T00:00:00Z", "2026-11-21T00:00:00Z", "", "", "invalid_period"},
		{"", "", "", "0", "", "invalid_limit"},
		{"", "", "", "101", "", "invalid_limit"},
		{"", "", "", "ten", "", "invalid_limit"},
		{"", "", "", "", "nope", "invalid_cursor"},
	} {
		_, err := ParseListRequest(tc.status, tc.since, tc.until, tc.limit, tc.cursor)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Code != tc.code {
			t.Errorf("%+v: %v, want %s", tc, err, tc.code)
		}
	}
}

func TestParseResendRequest(t *testing.T) {
	if r, err := ParseResendRequest([]byte(`{"docId":"d1","event":"analysis_ready"}`)); err != nil || r.DocID != "d1" || r.Event != EventAnalysisReady {
		t.Fatalf("%+v %v", r, err)
	}
	for body, code := range map[string]string{
		`[]`: "invalid_json", `{"event":"transcript_ready"}`: "missing_doc_id", `{"docId":"d"}`: "missing_event",
		`{"docId":"d","event":"test"}`: "invalid_event",
	} {
		_, err := ParseResendRequest([]byte(body))
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Code != code || (code == "invalid_event" && !strings.Contains(ve.Msg, `"test"`)) {
			t.Errorf("%s: %v, want %s", body, err, code)
		}
	}
}
