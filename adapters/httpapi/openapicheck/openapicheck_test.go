package openapicheck

import (
	"strings"
	"testing"
)

const doc = `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/x":{"get":{"responses":{"200":{"description":"ok",
"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Both"}}}}}}}},
"components":{"schemas":{
 "Base":{"type":"object","required":["id"],"properties":{"id":{"type":"string"},"meta":{"type":"object"},
   "items":{"type":"array","items":{"type":"object","properties":{"w":{"type":"string"}}}}}},
 "Both":{"anyOf":[{"allOf":[{"$ref":"#/components/schemas/Base"},{"type":"object","properties":{"a":{"type":"string"}}}]},
   {"allOf":[{"$ref":"#/components/schemas/Base"},{"type":"object","properties":{"b":{"type":"number"},
     "results":{"type":"object","additionalProperties":{"type":"object","properties":{"q":{"type":"string"}}}}}}]}]}}}}`

// TestBodiesMustMatchTheSchema: a body matching any variant passes; a
// missing required member, a wrong type (at any depth, through $ref and
// allOf) or an undocumented status fails.
func TestBodiesMustMatchTheSchema(t *testing.T) {
	d, err := New([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for body, bad := range map[string]string{
		`{"id":"1","a":"x","meta":{"any":1},"items":[{"w":"a"}]}`: "",
		`{"id":"1","b":1,"results":{"k":{"q":"x"}}}`:              "",
		`{"a":"x"}`:                              "id",
		`{"id":"1","items":[{"w":"a"},{"w":2}]}`: "/items/1/w",
		`{"id":1}`:                               "/id",
	} {
		err := d.Response("GET", "/x", 200, "application/json", []byte(body))
		switch {
		case bad == "" && err != nil:
			t.Errorf("%s: %v", body, err)
		case bad != "" && (err == nil || !strings.Contains(err.Error(), bad)):
			t.Errorf("%s: %v, want a refusal naming %s", body, err, bad)
		}
	}
	if err := d.Response("GET", "/x", 404, "application/json", []byte(`{}`)); err == nil {
		t.Error("an undocumented status passed")
	}
}
