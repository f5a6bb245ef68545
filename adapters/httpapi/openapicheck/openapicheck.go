// Package openapicheck validates what the service sends (API answers and
// webhook events) against the schemas of its OpenAPI 3.1 document, with a
// JSON Schema 2020-12 validator independent of the code that writes them:
// statuses, media types, required members, nulls, enums and formats. That
// a body has no member the document does not declare needs no check: the
// bodies' Go types are generated from the document (internal/wiregen).
// Tests use it; the service does not.
package openapicheck

import (
	"bytes"
	"fmt"
	"mime"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// docURL names the document inside the compiler.
const docURL = "https://hyscribe.invalid/openapi.json"

// Doc is a parsed OpenAPI document with its schemas compiled on demand.
// It is safe for concurrent use (parallel tests share one).
type Doc struct {
	raw map[string]any // read only

	mu       sync.Mutex // guards the compiler and compiled
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

// New parses an OpenAPI 3.1 document (JSON).
func New(doc []byte) (*Doc, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("openapicheck: %w", err)
	}
	raw, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("openapicheck: the document is not a JSON object")
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat() // date-time, uri: the document promises them
	if err := c.AddResource(docURL, v); err != nil {
		return nil, fmt.Errorf("openapicheck: %w", err)
	}
	return &Doc{raw: raw, compiler: c, compiled: map[string]*jsonschema.Schema{}}, nil
}

// Response checks one answer of the operation at path template tmpl (as
// written under "paths", e.g. "/api/getTranscription") and method: its
// status must be documented, and a JSON body must match the documented
// schema of its media type. Bodies of other media types must be documented
// under their type.
func (d *Doc) Response(method, tmpl string, status int, contentType string, body []byte) error {
	opPtr := "/paths/" + escape(tmpl) + "/" + strings.ToLower(method)
	op, ok := d.at(opPtr).(map[string]any)
	if !ok {
		return fmt.Errorf("%s %s is not documented", method, tmpl)
	}
	responses, _ := op["responses"].(map[string]any)
	code := strconv.Itoa(status)
	resPtr := opPtr + "/responses/" + code
	if _, ok := responses[code]; !ok {
		return fmt.Errorf("%s %s: status %d is not documented", method, tmpl, status)
	}
	resPtr, res := d.deref(resPtr)
	content, _ := res["content"].(map[string]any)
	if len(content) == 0 {
		if len(body) > 0 {
			return fmt.Errorf("%s %s %d: a body of %d bytes where the document describes none", method, tmpl, status, len(body))
		}
		return nil
	}
	mediaType, _, _ := mime.ParseMediaType(contentType)
	if _, ok := content[mediaType]; !ok {
		return fmt.Errorf("%s %s %d: Content-Type %q is not documented", method, tmpl, status, contentType)
	}
	return d.validate(resPtr+"/content/"+escape(mediaType)+"/schema", mediaType, body)
}

// Webhook checks the body of an event against the request schema of the
// document's webhooks entry name ("transcript_ready", …).
func (d *Doc) Webhook(name string, body []byte) error {
	ptr := "/webhooks/" + escape(name) + "/post/requestBody/content/application~1json/schema"
	if d.at(ptr) == nil {
		return fmt.Errorf("webhook %q is not documented", name)
	}
	return d.validate(ptr, "application/json", body)
}

// Event checks a webhook body against the entry its event_type names.
func (d *Doc) Event(body []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("event body is not JSON: %w", err)
	}
	m, _ := v.(map[string]any)
	name, _ := m["event_type"].(string)
	if name == "" {
		return fmt.Errorf("event body has no event_type: %.200s", body)
	}
	return d.Webhook(name, body)
}

func (d *Doc) validate(schemaPtr, mediaType string, body []byte) error {
	if mediaType != "application/json" {
		return nil // text formats: documented as strings
	}
	sch, err := d.schema(schemaPtr)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("body is not JSON: %w: %.200s", err, body)
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("body does not match %s: %v\nbody: %.500s", schemaPtr, err, body)
	}
	return nil
}

// schema compiles the schema at ptr once.
func (d *Doc) schema(ptr string) (*jsonschema.Schema, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if sch, ok := d.compiled[ptr]; ok {
		return sch, nil
	}
	sch, err := d.compiler.Compile(docURL + "#" + ptr)
	if err != nil {
		return nil, fmt.Errorf("openapicheck: schema %s: %w", ptr, err)
	}
	d.compiled[ptr] = sch
	return sch, nil
}

// deref follows the $ref of a response object (to components/responses)
// and returns where it ends and the object there.
func (d *Doc) deref(ptr string) (string, map[string]any) {
	for range 8 {
		m, _ := d.at(ptr).(map[string]any)
		ref, ok := m["$ref"].(string)
		if !ok {
			return ptr, m
		}
		ptr = strings.TrimPrefix(ref, "#")
	}
	return ptr, nil
}

// at is the value at a JSON pointer into the document, nil if none.
func (d *Doc) at(ptr string) any {
	var v any = d.raw
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")]
	}
	return v
}

func escape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}
