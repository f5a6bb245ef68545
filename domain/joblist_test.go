package domain

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
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

// TestParseListCursorRefusesWhatTheStoreCannotHold: a cursor whose
// fields are not the syntax this service writes — NUL, invalid UTF-8,
// characters no docId has, a sign, a time past what the stores hold, a
// non-canonical encoding — is a validation error, never a cursor.
func TestParseListCursorRefusesWhatTheStoreCannotHold(t *testing.T) {
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for name, raw := range map[string]string{
		"NUL in the docId":        "c1:123:a\x00b",
		"invalid UTF-8":           "c1:123:\xff\xfe",
		"a dot in the docId":      "c1:123:a.b",
		"a space in the docId":    "c1:123:a b",
		"a second colon":          "c1:123:a:b",
		"a 65-character docId":    "c1:123:" + strings.Repeat("a", 65),
		"a plus sign":             "c1:+123:a",
		"a minus sign":            "c1:-123:a",
		"no milliseconds":         "c1::a",
		"after the year 9999":     "c1:253402300800000:a",
		"milliseconds overflow":   "c1:99999999999999999999:a",
		"NUL in the milliseconds": "c1:1\x0023:a",
	} {
		if _, err := ParseListCursor(enc(raw)); !errors.Is(err, ErrValidation) {
			t.Errorf("%s (%q): %v, want a validation error", name, raw, err)
		}
	}
	// Padded base64 decodes to the same bytes but is not what String gives.
	if _, err := ParseListCursor(base64.URLEncoding.EncodeToString([]byte("c1:1:ab"))); !errors.Is(err, ErrValidation) {
		t.Errorf("padded cursor accepted: %v", err)
	}
	if c, err := ParseListCursor(enc("c1:253402300799999:Az09-_")); err != nil || c.ID != "Az09-_" {
		t.Errorf("the latest valid cursor: %+v %v", c, err)
	}
}

// FuzzParseListCursor: whatever a client sends, a cursor that parses is
// one String writes back byte for byte, with a docId of the URL-safe
// alphabet (so nothing the store cannot hold reaches its query).
func FuzzParseListCursor(f *testing.F) {
	f.Add(CursorAfter(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC), "Zq3-_x").String())
	f.Add(base64.RawURLEncoding.EncodeToString([]byte("c1:1:a\x00")))
	f.Add("YzE6MTIzOg")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseListCursor(s)
		if err != nil {
			if !errors.Is(err, ErrValidation) {
				t.Fatalf("%q: %v is not a validation error", s, err)
			}
			return
		}
		if c.String() != s || !utf8.ValidString(string(c.ID)) || strings.ContainsRune(string(c.ID), 0) {
			t.Fatalf("%q parsed to %+v, which writes %q", s, c, c.String())
		}
	})
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
