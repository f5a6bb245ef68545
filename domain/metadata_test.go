package domain

import (
	"errors"
	"strings"
	"testing"
)

func TestCreateRequestBoundsMetadata(t *testing.T) {
	nested := func(depth int) string { // depth counts the metadata object itself
		return `{"type":"single_voice","metadata":{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}}`
	}
	values := func(n int) string {
		return `{"type":"single_voice","metadata":{"a":[` + strings.TrimSuffix(strings.Repeat(`1,`, n-1), ",") + `]}}`
	}
	objects := func(n int) string { // n objects of one member each, in an array: 2n+1 values with the array
		return `{"type":"single_voice","metadata":{"a":[` + strings.TrimSuffix(strings.Repeat(`{"k":"v"},`, n), ",") + `]}}`
	}
	for _, c := range []struct {
		name, body, code string
	}{
		{"depth at the limit", nested(MaxMetadataDepth), ""},
		{"one level deeper", nested(MaxMetadataDepth + 1), "metadata_too_deep"},
		{"9,000 levels", nested(9000), "metadata_too_deep"},
		{"values at the limit", values(MaxMetadataMembers), ""},
		{"one value more", values(MaxMetadataMembers + 1), "metadata_too_many_members"},
		{"members of nested objects count", objects(MaxMetadataMembers / 2), "metadata_too_many_members"},
		{"keys are not values", objects(MaxMetadataMembers/2 - 1), ""},
		{"invalid UTF-8 in a value", "{\"type\":\"single_voice\",\"metadata\":{\"a\":\"\xff\"}}", "invalid_utf8"},
		{"invalid UTF-8 in a key", "{\"type\":\"single_voice\",\"x\xc3\":1}", "invalid_utf8"},
		{"escaped NUL is valid JSON text", `{"type":"single_voice","metadata":{"a":"\u0000"}}`, ""},
	} {
		_, err := ParseCreateRequest([]byte(c.body))
		var ve *ValidationError
		switch {
		case c.code == "" && err != nil:
			t.Errorf("%s: %v, want accepted", c.name, err)
		case c.code != "" && (!errors.As(err, &ve) || ve.Code != c.code):
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		case c.code != "" && !strings.Contains(ve.Msg, "metadata") && c.code != "invalid_utf8":
			t.Errorf("%s: message %q does not name the limit", c.name, ve.Msg)
		}
	}
}
