package domain

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseIdempotencyKey(t *testing.T) {
	for _, c := range []struct {
		header, want string
		ok           bool
	}{
		{"", "", true},
		{"8e03978e-40d5-43e8-bc93-6894a57f9324", "8e03978e-40d5-43e8-bc93-6894a57f9324", true},
		{`"8e03978e-40d5"`, "8e03978e-40d5", true}, // the draft's Structured Field string
		{"  order 1042 ", "order 1042", true},
		{strings.Repeat("k", MaxIdempotencyKey), strings.Repeat("k", MaxIdempotencyKey), true},
		{strings.Repeat("k", MaxIdempotencyKey+1), "", false},
		{`""`, "", false},
		{"ключ", "", false},
		{"a\tb", "", false},
		{`a"b`, "", false},
		{`a\b`, "", false},
	} {
		got, err := ParseIdempotencyKey(c.header)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseIdempotencyKey(%q) = %q, %v; want %q, ok %v", c.header, got, err, c.want, c.ok)
		}
		var ve *ValidationError
		if err != nil && (!errors.As(err, &ve) || ve.Code != "invalid_idempotency_key") {
			t.Errorf("ParseIdempotencyKey(%q): error %v is not invalid_idempotency_key", c.header, err)
		}
	}
}

func TestFingerprintComparesWhatIsAsked(t *testing.T) {
	fp := func(body string) string {
		t.Helper()
		req, err := ParseCreateRequest([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return req.Fingerprint()
	}
	base := fp(`{"type":"phone_call","metadata":{"a":1,"b":{"c":[1,2]}},"checklistId":"q"}`)
	for _, same := range []string{
		`{"checklistId":"q","metadata":{"b":{"c":[1,2]},"a":1},"type":"phone_call"}`,
		"{ \"type\" : \"phone_call\",\n \"metadata\": {\"a\": 1, \"b\": {\"c\": [1, 2]}}, \"checklistId\": \"q\", \"extra\": 1}",
	} {
		if fp(same) != base {
			t.Errorf("%s: another fingerprint for the same request", same)
		}
	}
	for _, other := range []string{
		`{"type":"single_voice","metadata":{"a":1,"b":{"c":[1,2]}},"checklistId":"q"}`,
		`{"type":"phone_call","metadata":{"a":1,"b":{"c":[2,1]}},"checklistId":"q"}`,
		`{"type":"phone_call","metadata":{"a":1.0,"b":{"c":[1,2]}},"checklistId":"q"}`,
		`{"type":"phone_call","metadata":{"a":1,"b":{"c":[1,2]}}}`,
		`{"type":"phone_call","checklistId":"q"}`,
	} {
		if fp(other) == base {
			t.Errorf("%s: the same fingerprint as a different request", other)
		}
	}
	if fp(`{"type":"single_voice"}`) != fp(`{"type":"single_voice","metadata":{}}`) {
		t.Error("absent metadata and {} make the same job but differ")
	}
}

func TestIdempotencyReplayAndWindow(t *testing.T) {
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	r := Idempotency{Fingerprint: "fp", Response: json.RawMessage(`{"docId":"d"}`), CreatedAt: at}
	if got, err := r.Replay("fp"); err != nil || string(got) != `{"docId":"d"}` {
		t.Fatalf("Replay(same) = %s, %v", got, err)
	}
	if _, err := r.Replay("other"); !errors.Is(err, ErrIdempotencyKeyReused) {
		t.Fatalf("Replay(other) error %v", err)
	}
	if !r.Live(at.Add(IdempotencyWindow-time.Millisecond)) || r.Live(at.Add(IdempotencyWindow)) {
		t.Fatal("a record lives for exactly IdempotencyWindow")
	}
}
