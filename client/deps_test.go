package client_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStandardLibraryOnly keeps the client light to import: a customer who
// adds it gets none of the service's dependencies.
func TestStandardLibraryOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "github.com/hyscribe/hyscribe/client").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if deps := strings.Fields(string(out)); len(deps) != 1 || deps[0] != "github.com/hyscribe/hyscribe/client" {
		t.Fatalf("the client depends on %v", deps)
	}
}
