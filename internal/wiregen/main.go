// Command wiregen writes the Go types of the API's bodies and webhook
// events from the one source of the wire format, the OpenAPI document
// adapters/httpapi/openapi.json: the service's in domain/wire_gen.go, the
// client module's in client/wire_gen.go (docs/architecture.md, Wire types).
// A property's order, name, nullability and presence in the document are
// its Go field's order, name, pointer and omitempty, so the Go types cannot
// say what the document does not. Run it with `go generate ./internal/wiregen`
// (or `make generate`); TestGeneratedFilesAreCurrent fails while a
// committed file differs from what it writes.
package main

//go:generate go run .

import (
	"bytes"
	"fmt"
	"go/format"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Document is where the wire format is declared, from the repository root.
const Document = "adapters/httpapi/openapi.json"

// target is one generated file: the schemas it declares as Go types and how
// the document's types read in its package.
type target struct {
	file, pkg string
	dateTime  string            // Go type of a date-time string
	named     map[string]string // component schema → Go type (generated or the package's own)
	generate  []string          // the component schemas written here, in order
	fields    map[string]string // "Schema.prop" or "*.prop" → Go type, optionally ",omitempty"
}

// targets are the generated files. The service formats its own times
// (domain.TimeFormat); the client reads them as time.Time.
var targets = []target{
	{
		file: "domain/wire_gen.go", pkg: "domain", dateTime: "string",
		named: map[string]string{
			"JobType": "JobType", "JobStatus": "Status",
			"Error": "ErrorBody", "CreateTranscriptionResponse": "CreateResult", "DeleteTranscriptionResponse": "DeleteResult",
			"Job": "PollView", "JobSummary": "JobSummary", "JobPage": "JobPage",
			"ResendEventRequest": "ResendRequest", "ResendEventResult": "ResendResult",
			"TranscriptExport": "ExportDocument", "ExportSegment": "ExportSegment", "ExportWord": "ExportWord",
			"TranscriptReadyEvent": "TranscriptReadyPayload", "AnalysisReadyEvent": "AnalysisReadyPayload",
			"TranscriptFailedEvent": "TranscriptFailedPayload", "TestEvent": "TestPayload",
			"QuestionResult": "QuestionResult", "Evidence": "Evidence",
		},
		generate: []string{
			"Error", "CreateTranscriptionResponse", "DeleteTranscriptionResponse", "Job", "JobSummary", "JobPage",
			"ResendEventRequest", "ResendEventResult", "TranscriptExport", "ExportSegment", "ExportWord",
			"TranscriptReadyEvent", "AnalysisReadyEvent", "TranscriptFailedEvent", "TestEvent", "QuestionResult", "Evidence",
		},
		fields: map[string]string{
			"*.docId": "DocID", "*.accountId": "AccountID",
			"QuestionResult.reason": "string,omitempty", // the analysers leave it empty when they know no reason
		},
	},
	{
		file: "client/wire_gen.go", pkg: "client", dateTime: "time.Time",
		named: map[string]string{
			"JobType": "JobType", "JobStatus": "string",
			"CreateTranscriptionResponse": "Created", "Job": "Job", "JobSummary": "JobSummary",
			"ResendEventResult": "ResendResult", "TranscriptExport": "Transcript",
			"ExportSegment": "Segment", "ExportWord": "Word", "QuestionResult": "QuestionResult", "Evidence": "Evidence",
		},
		generate: []string{
			"CreateTranscriptionResponse", "Job", "JobSummary", "ResendEventResult",
			"TranscriptExport", "ExportSegment", "ExportWord", "QuestionResult", "Evidence",
		},
		fields: map[string]string{
			"Job.type":              "JobType", // "" while the job has none (v1 of the client)
			"QuestionResult.reason": "string,omitempty",
		},
	},
}

func main() {
	root, err := repoRoot()
	if err == nil {
		err = writeAll(root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "wiregen:", err)
		os.Exit(1)
	}
}

func writeAll(root string) error {
	files, err := Generate(root)
	if err != nil {
		return err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer func() { _ = r.Close() }() // the files are written and closed by WriteFile
	for name, src := range files {
		if err := r.WriteFile(name, src, 0o644); err != nil { // a source file, as git checks it out
			return err
		}
	}
	return nil
}

// Generate returns every generated file's contents by its path from root.
func Generate(root string) (map[string][]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer func() { _ = r.Close() }() // read-only use of a directory handle
	raw, err := r.ReadFile(Document)
	if err != nil {
		return nil, err
	}
	doc, err := parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Document, err)
	}
	schemas := doc.at("components", "schemas")
	if schemas == nil {
		return nil, fmt.Errorf("%s has no components.schemas", Document)
	}
	out := map[string][]byte{}
	for _, t := range targets {
		src, err := t.source(schemas)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.file, err)
		}
		out[t.file] = src
	}
	return out, nil
}

// field is one property of a generated struct.
type field struct {
	name string
	node *node
}

func (t target) source(schemas *node) ([]byte, error) {
	var body bytes.Buffer
	imports := map[string]bool{}
	for _, name := range t.generate {
		s := schemas.get(name)
		if s == nil {
			return nil, fmt.Errorf("no schema %s", name)
		}
		props, required := t.properties(schemas, s)
		comment(&body, "", fmt.Sprintf("%s is %s of the OpenAPI document (GET /api/openapi.json). %s", t.named[name], name, s.str("description")))
		fmt.Fprintf(&body, "type %s struct {\n", t.named[name])
		for _, p := range props {
			typ, omit, err := t.goType(schemas, name, p.name, p.node, required[p.name])
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", name, p.name, err)
			}
			if strings.Contains(typ, "json.") {
				imports["encoding/json"] = true
			}
			if strings.Contains(typ, "time.") {
				imports["time"] = true
			}
			tag := p.name
			if omit {
				tag += ",omitempty"
			}
			comment(&body, "\t", p.node.str("description"))
			fmt.Fprintf(&body, "\t%s %s `json:%q`\n", goName(p.name), typ, tag)
		}
		body.WriteString("}\n\n")
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by go run ./internal/wiregen from %s; DO NOT EDIT.\n\npackage %s\n\n", Document, t.pkg)
	if len(imports) > 0 {
		b.WriteString("import (\n")
		for _, imp := range slices.Sorted(maps.Keys(imports)) {
			fmt.Fprintf(&b, "\t%q\n", imp)
		}
		b.WriteString(")\n\n")
	}
	b.Write(body.Bytes())
	return format.Source(b.Bytes())
}

// properties lists a schema's properties in the document's order, with
// those every value has: allOf adds its parts', oneOf keeps the properties
// of any variant but requires only those all variants require. A property
// a part forbids (false) is left out; the first declaration of a name wins.
func (t target) properties(schemas, s *node) ([]field, map[string]bool) {
	if ref := s.str("$ref"); ref != "" {
		return t.properties(schemas, schemas.get(strings.TrimPrefix(ref, "#/components/schemas/")))
	}
	var props []field
	required := map[string]bool{}
	add := func(ps []field) {
		for _, p := range ps {
			if !slices.ContainsFunc(props, func(q field) bool { return q.name == p.name }) {
				props = append(props, p)
			}
		}
	}
	if parts := s.get("allOf"); parts != nil {
		for _, part := range parts.arr {
			ps, req := t.properties(schemas, part)
			add(ps)
			for k := range req {
				required[k] = true
			}
		}
	}
	if variants := s.get("oneOf"); variants != nil {
		counts := map[string]int{}
		for _, v := range variants.arr {
			ps, req := t.properties(schemas, v)
			add(ps)
			for k := range req {
				counts[k]++
			}
		}
		for k, n := range counts {
			if n == len(variants.arr) {
				required[k] = true
			}
		}
	}
	if p := s.get("properties"); p != nil {
		for _, k := range p.keys {
			if v := p.obj[k]; v.kind != boolKind {
				add([]field{{k, v}})
			}
		}
	}
	if r := s.get("required"); r != nil {
		for _, k := range r.arr {
			required[k.s] = true
		}
	}
	return props, required
}

// goType is the Go type of property prop of schema owner, and whether it
// is omitted when empty. Nullable or optional properties are pointers
// (absent and empty differ), except booleans, maps, lists and raw JSON,
// whose empty value is their absence.
func (t target) goType(schemas *node, owner, prop string, s *node, required bool) (string, bool, error) {
	for _, k := range []string{owner + "." + prop, "*." + prop} {
		if o, ok := t.fields[k]; ok {
			typ, omit := strings.CutSuffix(o, ",omitempty")
			return typ, omit, nil
		}
	}
	typ, nullable, err := t.baseType(schemas, s)
	if err != nil {
		return "", false, err
	}
	direct := typ == "bool" || typ == "json.RawMessage" || strings.HasPrefix(typ, "[]") || strings.HasPrefix(typ, "map[")
	if (nullable || !required) && !direct {
		typ = "*" + typ
	}
	return typ, !required, nil
}

// baseType is the Go type of a schema and whether it admits null.
func (t target) baseType(schemas, s *node) (string, bool, error) {
	if ref := s.str("$ref"); ref != "" {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		if goName, ok := t.named[name]; ok {
			return goName, false, nil
		}
		return "", false, fmt.Errorf("%s has no Go type in %s", name, t.file)
	}
	if alts := s.get("oneOf"); alts != nil && len(alts.arr) == 2 && alts.arr[1].str("type") == "null" {
		typ, _, err := t.baseType(schemas, alts.arr[0])
		return typ, true, err
	}
	var types []string
	if ty := s.get("type"); ty != nil {
		if ty.kind == arrKind {
			for _, x := range ty.arr {
				types = append(types, x.s)
			}
		} else {
			types = []string{ty.s}
		}
	} else if c := s.get("const"); c != nil && c.kind == strKind {
		types = []string{"string"}
	}
	nullable := slices.Contains(types, "null")
	types = slices.DeleteFunc(types, func(x string) bool { return x == "null" })
	if len(types) != 1 {
		return "", false, fmt.Errorf("a type the generator does not map: %v", types)
	}
	switch types[0] {
	case "string":
		if s.str("format") == "date-time" {
			return t.dateTime, nullable, nil
		}
		return "string", nullable, nil
	case "number":
		return "float64", nullable, nil
	case "integer":
		return "int", nullable, nil
	case "boolean":
		return "bool", nullable, nil
	case "array":
		elem, _, err := t.baseType(schemas, s.get("items"))
		return "[]" + elem, nullable, err
	case "object":
		ap := s.get("additionalProperties")
		switch {
		case ap != nil && ap.kind == objKind:
			elem, _, err := t.baseType(schemas, ap)
			return "map[string]" + elem, nullable, err
		case s.get("properties") == nil && ap != nil && ap.kind == boolKind && ap.b:
			return "json.RawMessage", nullable, nil
		case s.get("properties") == nil:
			return "", false, fmt.Errorf("a free-form object must say additionalProperties: true (without it openapi-typescript types it Record<string, never>)")
		}
	}
	return "", false, fmt.Errorf("a schema the generator does not map: type %v", types)
}

// goName is a property's Go field name: docId → DocID, event_type → EventType.
func goName(prop string) string {
	var b strings.Builder
	for _, w := range strings.Split(prop, "_") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	s := b.String()
	for _, ini := range []string{"Id", "Url"} {
		if strings.HasSuffix(s, ini) {
			s = strings.TrimSuffix(s, ini) + strings.ToUpper(ini)
		}
	}
	return s
}

// comment writes text as a Go comment wrapped near 80 columns.
func comment(b *bytes.Buffer, indent, text string) {
	line := indent + "//"
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > 78 && line != indent+"//" {
			b.WriteString(line + "\n")
			line = indent + "//"
		}
		line += " " + w
	}
	if line != indent+"//" {
		b.WriteString(line + "\n")
	}
}

// repoRoot is the directory of the main module's go.mod, above the
// working directory (go generate runs in internal/wiregen).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(b, []byte("module github.com/hyscribe/hyscribe\n")) { //nolint:gosec // our own go.mod, found upwards
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of github.com/hyscribe/hyscribe above the working directory")
		}
		dir = parent
	}
}
