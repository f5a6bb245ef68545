// Package servicetest is what the tests that run hyscribe in-process share
// (cmd/hyscribe/cli's and the browser tests): starting the service with its
// log kept for a failure, waiting for a condition, and a buffer that
// concurrent writers may share. Test code only: nothing else imports it.
package servicetest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
	"github.com/hyscribe/hyscribe/internal/eventually"
)

// LogTail is how much of the service's log a failed test prints.
const LogTail = 6000

// Start runs cli.Start in this process with the configuration getenv
// gives, logging to a file; the service is stopped when t ends, and the
// tail of its log is printed if t failed.
func Start(t testing.TB, getenv func(string) string, roles cli.Role, stages []string) *cli.Service {
	t.Helper()
	cfg, err := cli.LoadConfig(getenv)
	if err != nil {
		t.Fatal(err)
	}
	logs, err := os.Create(filepath.Join(t.TempDir(), "service.log"))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := cli.Start(context.Background(), cfg, roles, stages, logs)
	if err != nil {
		_ = logs.Close() // the start's error is the test's failure
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = svc.Stop()
		logs.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logs.Name())
			if len(b) > LogTail {
				b = b[len(b)-LogTail:]
			}
			t.Logf("--- service log (tail) ---\n%s", b)
		}
	})
	return svc
}

// Eventually polls cond every 100 ms until it holds, and fails t with what
// and cond's last word on the state once within has passed. A check of the
// whole service costs requests, so it is not repeated faster.
func Eventually(t testing.TB, what string, within time.Duration, cond func() (bool, string)) {
	t.Helper()
	eventually.Every(t, 100*time.Millisecond, within, what, cond)
}

// LockedBuffer is a bytes.Buffer that concurrent writers (a service's log
// handlers) and a reading test may share.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
