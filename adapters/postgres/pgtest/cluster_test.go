package pgtest

import (
	"os"
	"strings"
	"testing"
)

// A machine with Postgres installed but no server running (a fresh
// clone's plain go test) still runs the Postgres tests: pgtest starts a
// cluster of its own, which serves, and leaves nothing when stopped.
func TestThrowawayClusterServes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs initdb and a Postgres server")
	}
	r, err := findCluster(t).start(t)
	if err != nil {
		t.Fatal(err)
	}
	if err := execSQL(r.url, "CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1)"); err != nil {
		r.stop()
		t.Fatalf("throwaway cluster at %s: %v", r.url, err)
	}
	if strings.Contains(r.url, ":5432/") {
		t.Errorf("throwaway cluster on the default port: %s", r.url)
	}
	r.stop()
	if execSQL(r.url, "SELECT 1") == nil {
		t.Errorf("%s still answers after stop", r.url)
	}
	if _, err := os.Stat(r.dir); !os.IsNotExist(err) {
		t.Errorf("cluster directory %s left behind: %v", r.dir, err)
	}
}
