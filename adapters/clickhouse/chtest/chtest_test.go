package chtest

import (
	"os"
	"testing"

	"github.com/hyscribe/hyscribe/internal/testenv"
)

// A machine with ClickHouse installed but no server running (a fresh
// clone's plain go test) still runs the ClickHouse tests: chtest starts a
// server of its own, which answers, and leaves nothing when stopped.
func TestOwnServerServes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a ClickHouse server")
	}
	r, err := start(t, testenv.LookPath(t, "clickhouse-server", "apt-get install clickhouse-server"))
	if err != nil {
		t.Fatal(err)
	}
	if err := answers(r.dsn); err != nil {
		r.stop()
		t.Fatalf("own server at %s: %v", r.dsn, err)
	}
	r.stop()
	if answers(r.dsn) == nil {
		t.Errorf("%s still answers after stop", r.dsn)
	}
	if _, err := os.Stat(r.dir); !os.IsNotExist(err) {
		t.Errorf("server directory %s left behind: %v", r.dir, err)
	}
}
