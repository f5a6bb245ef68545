package httpapi

import (
	"bytes"
	"encoding/json"
)

// servedOpenAPI is the embedded document with publicURL as its server, so
// that clients generated from /api/openapi.json call the service that
// served it. Only the top-level "servers" changes; "" changes nothing.
func servedOpenAPI(doc []byte, publicURL string) []byte {
	if publicURL == "" {
		return doc
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		panic("httpapi: embedded openapi.json: " + err.Error()) // the tests parse it: cannot happen in a build
	}
	servers := []map[string]string{{
		"url":         publicURL,
		"description": "This service ({base_url} in the specification).",
	}}
	top["servers"] = mustJSON(servers)
	return mustJSON(top)
}

// mustJSON encodes v as JSON without escaping <, > and &, which the
// document's examples hold (WebVTT voice tags).
func mustJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic("httpapi: encode openapi.json: " + err.Error())
	}
	return b.Bytes()
}

// OpenAPI returns the OpenAPI document served at /api/openapi.json, for
// the web application's API page.
func OpenAPI() []byte { return openAPIDocument }

// marshalUnescaped is json.Marshal without HTML escaping.
func marshalUnescaped(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
