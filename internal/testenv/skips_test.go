package testenv_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/internal/testenv"
)

// Every skip in the repository's tests is either for -short (inside an if
// on testing.Short()) or goes through testenv.Missing, which fails instead
// under CI: a test that skips under CI for want of a server or a tool
// would pass without running its code.
func TestSkipsAreForShortOrGoThroughMissing(t *testing.T) {
	root := testenv.RepoRoot(t)
	self := filepath.Join(root, "internal", "testenv")
	fset := token.NewFileSet()
	var bad []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || filepath.Dir(path) == self {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, call := range unguardedSkips(f) {
			bad = append(bad, fset.Position(call.Pos()).String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		rel, _ := filepath.Rel(root, b)
		t.Errorf("%s: a skip outside `if testing.Short()`: use testenv.Missing for a missing prerequisite", rel)
	}
}

// unguardedSkips are the calls of Skip, Skipf and SkipNow in f that are
// not in the body of an if on testing.Short().
func unguardedSkips(f *ast.File) []*ast.CallExpr {
	var out []*ast.CallExpr
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || (sel.Sel.Name != "Skip" && sel.Sel.Name != "Skipf" && sel.Sel.Name != "SkipNow") {
			return true
		}
		for i := len(stack) - 2; i >= 0; i-- {
			if s, ok := stack[i].(*ast.IfStmt); ok && isShort(s.Cond) && within(s.Body, call) {
				return true
			}
		}
		out = append(out, call)
		return true
	})
	return out
}

// isShort reports whether e is testing.Short() itself: a condition that
// also asks for something else (testing.Short() || url == "") would let a
// missing prerequisite skip.
func isShort(e ast.Expr) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok || len(c.Args) != 0 {
		return false
	}
	s, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || s.Sel.Name != "Short" {
		return false
	}
	id, ok := s.X.(*ast.Ident)
	return ok && id.Name == "testing"
}

func within(outer ast.Node, n ast.Node) bool { return outer.Pos() <= n.Pos() && n.End() <= outer.End() }

func TestUnguardedSkipsAreFound(t *testing.T) {
	for src, want := range map[string]int{
		`if testing.Short() { t.Skip("slow") }`:                          0,
		`if testing.Short() { if x { b.Skipf("slow %d", 1) } }`:          0,
		`t.Skip("no server")`:                                            1,
		`if os.Getenv("X") == "" { t.SkipNow() }`:                        1,
		`if testing.Short() || url == "" { t.Skip("needs Postgres") }`:   1,
		`if testing.Short() { } else { t.Skip("no server") }`:            1,
		`if testing.Short() { t.Skip("slow") }; if x { t.Skip("tool") }`: 1,
		`testenv.Missing(t, "no server")`:                                0,
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x_test.go", "package x\nfunc f() {\n"+src+"\n}\n", 0)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := len(unguardedSkips(f)); got != want {
			t.Errorf("%s: %d unguarded skips, want %d", src, got, want)
		}
	}
}
