// Package chtest gives each test a ClickHouse database of its own. The
// server is the one CLICKHOUSE_TEST_DSN names (the Makefile sets it), else
// the one .ci/clickhouse.sh starts (native port 19000), else one this
// package starts for the test process from Debian's clickhouse-server with
// that script's configuration in a temporary directory: a test that needs ClickHouse never skips for
// want of a running server where ClickHouse is installed (and fails under
// CI where it is not). Test code only.
package chtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/hyscribe/hyscribe/internal/testenv"
)

// EnvDSN names the variable with the test server's DSN.
const EnvDSN = "CLICKHOUSE_TEST_DSN"

// LocalDSN is the server .ci/clickhouse.sh starts, tried when EnvDSN is
// unset.
const LocalDSN = "clickhouse://127.0.0.1:19000/default"

// Database creates a database named prefix plus a random suffix, returns
// a DSN naming it and its name, and drops it when t ends.
func Database(t testing.TB, prefix string) (dsn, name string) {
	t.Helper()
	conn, name, dsn := Name(t, prefix)
	if err := conn.Exec(context.Background(), "CREATE DATABASE `"+name+"`"); err != nil {
		t.Fatalf("chtest: create database %s: %v", name, err)
	}
	return dsn, name
}

// Name returns a connection to the server, a database name of the test's
// own (prefix plus a random suffix; quoted where used, so a prefix may
// hold what an identifier may not) and a DSN naming it, without creating
// it (for a test of what creates it); the database is dropped when t ends
// if it was created.
func Name(t testing.TB, prefix string) (admin ch.Conn, name, dsn string) {
	t.Helper()
	base := Server(t)
	conn, err := open(base)
	if err != nil {
		t.Fatalf("chtest: %v", err)
	}
	var b [6]byte
	rand.Read(b[:])
	name = prefix + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		if err := conn.Exec(context.Background(), "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
			t.Errorf("chtest: drop database %s: %v", name, err)
		}
		conn.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("chtest: %s is not a URL: %v", base, err)
	}
	u.Path = "/" + name
	return conn, name, u.String()
}

// Server returns the DSN of the server the tests use (see the package
// comment), starting one for the test process if need be; the package
// then needs TestMain through testenv.Main.
func Server(t testing.TB) string {
	t.Helper()
	return server.URL(t)
}

var server = &testenv.Server{
	Env:     EnvDSN,
	Local:   LocalDSN,
	Answers: answers,
	Start: func(t testing.TB) (string, func(), error) {
		bin := testenv.LookPath(t, "clickhouse-server", "apt-get install clickhouse-server (.ci/deps.sh does), or set "+EnvDSN)
		r, err := start(t, bin)
		return r.dsn, r.stop, err
	},
}

func open(dsn string) (ch.Conn, error) {
	opts, err := ch.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	return ch.Open(opts)
}

// answers pings the server of dsn.
func answers(dsn string) error {
	conn, err := open(dsn)
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return conn.Ping(ctx)
}

// running is a server this package started: its DSN, its directory, and
// how to stop it (which also deletes the directory).
type running struct {
	dsn, dir string
	stop     func()
}

// start runs clickhouse-server on free loopback ports with its data in a
// temporary directory, configured by .ci/clickhouse.sh as the server of
// make test is. A port found free can be taken by another process before
// the server binds it (the interserver port, HTTP + 1, is not even
// reserved), so a server that exits with "Address already in use" is
// started again on other ports, a few times.
func start(t testing.TB, bin string) (running, error) {
	for try := 1; ; try++ {
		r, err := startOnce(t, bin)
		if err == nil || try == 5 || !strings.Contains(err.Error(), "Address already in use") {
			return r, err
		}
		t.Logf("chtest: %v; starting again on other ports", err)
	}
}

func startOnce(t testing.TB, bin string) (running, error) {
	dir, err := os.MkdirTemp("", "hyscribe-ch-")
	if err != nil {
		return running{}, err
	}
	// The script puts interserver on the HTTP port + 1.
	tcp, http := testenv.FreePort(t), testenv.FreePort(t)
	script := exec.Command("bash", filepath.Join(testenv.RepoRoot(t), ".ci", "clickhouse.sh"), "config")
	script.Env = append(os.Environ(), "CLICKHOUSE_DIR="+dir, "CLICKHOUSE_TCP_PORT="+tcp, "CLICKHOUSE_HTTP_PORT="+http)
	if out, err := script.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return running{}, fmt.Errorf(".ci/clickhouse.sh config: %v\n%s", err, out)
	}
	var logs bytes.Buffer
	srv := exec.Command(bin, "--config-file="+filepath.Join(dir, "config.xml"))
	srv.Dir = dir
	srv.Stdout, srv.Stderr = &logs, &logs
	testenv.Background(srv)
	if err := srv.Start(); err != nil {
		os.RemoveAll(dir)
		return running{}, fmt.Errorf("clickhouse-server: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = srv.Wait(); close(exited) }()
	stop := func() {
		_ = srv.Process.Kill() // thrown away: nothing to flush
		<-exited
		os.RemoveAll(dir)
	}
	dsn := "clickhouse://127.0.0.1:" + tcp + "/default"
	// Ready when it answers; it has as long as it needs on a loaded
	// machine, unless it exits.
	for {
		if answers(dsn) == nil {
			return running{dsn, dir, stop}, nil
		}
		select {
		case <-exited:
			errLog, _ := os.ReadFile(filepath.Join(dir, "log", "error.log"))
			stop()
			return running{}, fmt.Errorf("clickhouse-server exited:\n%s\n%s", logs.String(), tail(errLog))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func tail(b []byte) []byte {
	if len(b) > 4000 {
		return b[len(b)-4000:]
	}
	return b
}
