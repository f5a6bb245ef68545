package client_test

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestStandardLibraryOnly keeps the client light to install: its own
// module, requiring nothing, for Go 1.22 and later, so that a customer's
// `go get github.com/hyscribe/hyscribe/client` adds one module and leaves
// the customer's go directive alone.
func TestStandardLibraryOnly(t *testing.T) {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(mod), "module github.com/hyscribe/hyscribe/client\n") {
		t.Fatalf("go.mod does not declare the module github.com/hyscribe/hyscribe/client:\n%s", mod)
	}
	if regexp.MustCompile(`(?m)^\s*(require|replace|toolchain)\b`).Match(mod) {
		t.Fatalf("go.mod requires, replaces or pins a toolchain:\n%s", mod)
	}
	m := regexp.MustCompile(`(?m)^go 1\.(\d+)(\.\d+)?$`).FindSubmatch(mod)
	if m == nil {
		t.Fatalf("go.mod has no go directive:\n%s", mod)
	}
	if minor, _ := strconv.Atoi(string(m[1])); minor > 22 {
		t.Fatalf("go.mod says go 1.%d: customers on Go 1.22 could not use the client", minor)
	}
	if testing.Short() {
		return
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if deps := strings.Fields(string(out)); len(deps) != 1 || deps[0] != "github.com/hyscribe/hyscribe/client" {
		t.Fatalf("the client depends on %v", deps)
	}
}
