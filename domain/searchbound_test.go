package domain

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// bigMetadata is a metadata object of about size bytes of random values:
// many short ones and a few long ones, as an integration dumping a
// record would send.
func bigMetadata(size int) json.RawMessage {
	r := rand.New(rand.NewPCG(1, 2))
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[r.IntN(len(letters))]
		}
		return string(b)
	}
	m := map[string]any{"crm": "B-77"}
	for i, n := 0, 0; n < size; i++ {
		k, v := fmt.Sprintf("k%05d", i), word(40)
		if i%50 == 0 {
			k, v = fmt.Sprintf("blob%05d", i), word(2000)
		}
		m[k] = v
		n += len(k) + len(v) + 6 // "k":"v",
	}
	return mustJSON(m)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// TestSearchTextOfMetadataIsBounded: however much metadata a job has,
// its search text holds at most MaxSearchMetadataBytes of it, no value
// longer than MaxSearchValueBytes, and the short values it holds are
// still found.
func TestSearchTextOfMetadataIsBounded(t *testing.T) {
	meta := bigMetadata(250 << 10)
	if len(meta) < 250<<10 {
		t.Fatalf("metadata of %d bytes, want 250 KiB", len(meta))
	}
	st := SearchText("", "", meta, "")
	if n := len(st); n > MaxSearchMetadataBytes+2 {
		t.Fatalf("search text of 250 KiB metadata: %d bytes, want at most %d", n, MaxSearchMetadataBytes)
	}
	for _, line := range strings.Split(st, "\n") {
		if len(line) > MaxSearchValueBytes {
			t.Fatalf("a searched value of %d bytes", len(line))
		}
	}
	if !strings.Contains(st, "b-77") {
		t.Fatal("the CRM id is not searched")
	}
	vals := SearchMetadataValues(meta)
	if len(vals) < 50 {
		t.Fatalf("only %d values searched", len(vals))
	}
	// Small metadata is searched whole, as before.
	small := json.RawMessage(`{"crm":"B-77","phone":"+37410123456","name":"Արամ"}`)
	if got, want := strings.Join(SearchMetadataValues(small), ","), strings.Join(MetadataValues(small), ","); got != want {
		t.Fatalf("small metadata searched as %q, want %q", got, want)
	}
}
