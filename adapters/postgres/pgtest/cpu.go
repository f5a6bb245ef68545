package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// WithApplicationName returns dbURL with its connections named app
// (application_name), so ServerCPU can find the server processes that
// serve them.
func WithApplicationName(t testing.TB, dbURL, app string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	return u.String()
}

// ServerCPU is the CPU time (user and system) the Postgres server processes
// serving the connections named app have used so far, read from /proc: a
// benchmark's cost on the server side, which its own clock does not see.
// ok is false when the server is not on this machine (its processes are
// not in /proc). Connections closed before the call are not counted.
func ServerCPU(t testing.TB, dbURL, app string) (cpu time.Duration, ok bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatalf("pgtest.ServerCPU: %v", err)
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1`, app)
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatalf("pgtest.ServerCPU: %v", err)
	}
	for _, pid := range pids {
		ticks, err := procTicks(pid)
		if err != nil {
			return 0, false
		}
		cpu += ticks
	}
	return cpu, len(pids) > 0
}

// procTicks reads utime and stime of a process from /proc/<pid>/stat,
// in clock ticks of 10 ms (USER_HZ is 100 on Linux).
func procTicks(pid int32) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("pgtest: /proc/%d/stat: %d fields", pid, len(f))
	}
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	var total int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return time.Duration(total) * 10 * time.Millisecond, nil
}
