// Package migrations reads a store's versioned SQL migrations from an
// embedded folder. Each store applies them its own way (its own lock and
// schema_migrations table); what a migration file is, and in which order the
// files run, is the same for all of them.
package migrations

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Migration is one SQL file: "0002_analyses.sql" is version 2.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Load reads dir/*.sql from fsys in version order. A file whose name does
// not start with a positive number, or two files of one version, are errors:
// the binary must not start with a schema history it cannot order.
func Load(fsys fs.FS, dir string) ([]Migration, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, name := range names {
		base := path.Base(name)
		num, _, _ := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive version number", base)
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: base, SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migrations %s and %s share a version", out[i-1].Name, out[i].Name)
		}
	}
	return out, nil
}

// Marked returns the version of the first of ms whose SQL contains marker
// (a comment asking the store for a step in Go), or 0.
func Marked(ms []Migration, marker string) int {
	for _, m := range ms {
		if strings.Contains(m.SQL, marker) {
			return m.Version
		}
	}
	return 0
}
