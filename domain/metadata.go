package domain

import (
	"bytes"
	"encoding/json"
	"io"
	"unicode/utf8"
)

// Limits on a job's metadata (docs/security.md). Metadata is shown on the
// recording page and sent in every event, so its shape is bounded as well as
// its size (MaxCreateBody): 18 KB nested 9,000 arrays deep once cost 162 MB
// and 3.4 s to show.
const (
	// MaxMetadataDepth is the deepest nesting of objects and arrays, the
	// metadata object itself being depth 1.
	MaxMetadataDepth = 10
	// MaxMetadataMembers is how many values (object members and array
	// elements, at every depth) the metadata may hold.
	MaxMetadataMembers = 1000
)

// CheckUTF8 refuses a request body that is not valid UTF-8. encoding/json
// would accept it and replace the bad bytes only when decoding into a
// string; metadata is kept as raw JSON, so they would come back raw in every
// later answer and event, which would then not be valid JSON text either.
func CheckUTF8(body []byte) error {
	if !utf8.Valid(body) {
		return Invalid("invalid_utf8", "request body is not valid UTF-8")
	}
	return nil
}

// checkMetadata enforces MaxMetadataDepth and MaxMetadataMembers on valid
// JSON, in one pass, and says which limit was passed.
func checkMetadata(raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	depth, members := 0, 0
	// open[i] reports whether the container at depth i+1 is an object, whose
	// keys are tokens too and must not be counted as values.
	var inObject []bool
	expectKey := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return Invalid("invalid_metadata", `"metadata" is not valid JSON: %v`, err)
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			depth--
			inObject = inObject[:len(inObject)-1]
			expectKey = len(inObject) > 0 && inObject[len(inObject)-1]
			continue
		}
		if expectKey {
			expectKey = false // a key: its value follows
			continue
		}
		if depth > 0 {
			members++
			if members > MaxMetadataMembers {
				return Invalid("metadata_too_many_members", `"metadata" holds more than %d values (object members and array elements, counted at every depth)`, MaxMetadataMembers)
			}
		}
		if d, ok := tok.(json.Delim); ok {
			depth++
			if depth > MaxMetadataDepth {
				return Invalid("metadata_too_deep", `"metadata" is nested more than %d levels deep (objects and arrays, the metadata object counting as one)`, MaxMetadataDepth)
			}
			inObject = append(inObject, d == '{')
			expectKey = d == '{'
			continue
		}
		expectKey = len(inObject) > 0 && inObject[len(inObject)-1]
	}
}
