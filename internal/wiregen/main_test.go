package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestGeneratedFilesAreCurrent regenerates every wire type file in memory
// and fails, naming the file and the command, when a committed one differs:
// a change to the document that the Go types do not follow, or a Go type
// edited by hand, fails the build's tests.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(targets) {
		t.Fatalf("%d files generated for %d targets", len(files), len(targets))
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Errorf("%s: %v: run `make generate` (go generate ./...) and commit it", name, err)
		} else if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: it differs from what %s declares; run `make generate` (go generate ./...) and commit it", name, Document)
		}
	}
}

// TestFreeFormObjectsDeclareAdditionalProperties: every object schema
// of the document without properties (metadata) says additionalProperties,
// so that generated clients accept its members; without it
// openapi-typescript types the export's metadata Record<string, never>
// while the answer carries {"crm": …}.
func TestFreeFormObjectsDeclareAdditionalProperties(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", Document))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n *node, at string)
	walk = func(n *node, at string) {
		switch n.kind {
		case objKind:
			if n.str("type") == "object" && n.get("properties") == nil && n.get("additionalProperties") == nil &&
				n.get("patternProperties") == nil && n.get("allOf") == nil && n.get("oneOf") == nil && n.get("anyOf") == nil {
				t.Errorf("%s: a free-form object without additionalProperties", at)
			}
			for _, k := range n.keys {
				walk(n.obj[k], at+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"))
			}
		case arrKind:
			for i, e := range n.arr {
				walk(e, at+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(doc, "#")
}
