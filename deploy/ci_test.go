package deploy_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every apt-get the CI scripts and the Makefile run waits for the dpkg and
// list locks: on a fresh machine an unattended upgrade or another install
// often holds them, and an apt-get without a timeout fails at once (a
// fresh clone's CI died 8 s in on a held dpkg lock).
func TestEveryAptGetWaitsForTheLock(t *testing.T) {
	files, err := filepath.Glob("../.ci/*.sh")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../.ci/run", "../Makefile")
	call := regexp.MustCompile(`\bapt-get\b`)
	calls := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			code, _, _ := strings.Cut(line, "#")
			if !call.MatchString(code) || strings.Contains(code, "`apt-get`") {
				continue
			}
			calls++
			if !strings.Contains(code, "-o DPkg::Lock::Timeout=") {
				t.Errorf("%s:%d runs apt-get without -o DPkg::Lock::Timeout=…: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
	if calls == 0 {
		t.Fatal("no apt-get call found: the check reads the wrong files")
	}
}
