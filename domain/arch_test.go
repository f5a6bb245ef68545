package domain_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyRule keeps the hexagon's direction: domain and ports import
// nothing but the standard library and each other.
func TestDependencyRule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "github.com/hyscribe/hyscribe/domain/...", "github.com/hyscribe/hyscribe/ports").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep != "github.com/hyscribe/hyscribe/domain" && dep != "github.com/hyscribe/hyscribe/ports" {
			t.Errorf("domain/ports depend on %s", dep)
		}
	}
}
