// Package chtest gives each test a ClickHouse database of its own. The
// server is the one CLICKHOUSE_TEST_DSN names (the Makefile sets it), else
// the one .ci/clickhouse.sh starts (native port 19000), else one this
// package starts for the test process from Debian's clickhouse-server with
// a temporary configuration: a test that needs ClickHouse never skips for
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
	"sync"
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

var shared struct {
	mu  sync.Mutex
	dsn string
	err error
}

// Server returns the DSN of the server the tests use (see the package
// comment), starting one for the test process if need be; the package
// then needs TestMain through testenv.Main.
func Server(t testing.TB) string {
	t.Helper()
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		return dsn // one that does not answer fails the test where it is used
	}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.dsn != "" {
		return shared.dsn
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	if answers(LocalDSN) == nil {
		shared.dsn = LocalDSN
		return shared.dsn
	}
	bin := testenv.LookPath(t, "clickhouse-server", "apt-get install clickhouse-server (.ci/deps.sh does), or set "+EnvDSN)
	s, err := start(t, bin)
	if err != nil {
		shared.err = fmt.Errorf("chtest: %s unset, nothing answers at %s, and a server of our own: %w", EnvDSN, LocalDSN, err)
		t.Fatal(shared.err)
	}
	testenv.AtExit(t, s.stop)
	shared.dsn = s.dsn
	return s.dsn
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
// temporary directory, configured as .ci/clickhouse.sh configures the
// server of make test.
func start(t testing.TB, bin string) (running, error) {
	dir, err := os.MkdirTemp("", "hyscribe-ch-")
	if err != nil {
		return running{}, err
	}
	tcp, http, inter := testenv.FreePort(t), testenv.FreePort(t), testenv.FreePort(t)
	config := filepath.Join(dir, "config.xml")
	if err := os.WriteFile(config, []byte(fmt.Sprintf(configXML, dir, dir, tcp, http, inter, dir, dir, dir, dir, dir)), 0o600); err != nil {
		os.RemoveAll(dir)
		return running{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, "users.xml"), []byte(usersXML), 0o600); err != nil {
		os.RemoveAll(dir)
		return running{}, err
	}
	var logs bytes.Buffer
	srv := exec.Command(bin, "--config-file="+config)
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

// configXML is .ci/clickhouse.sh's configuration; the verbs are the
// server's directory (for its logs), its ports (native, HTTP,
// interserver), then the directory again (for its data and users).
const configXML = `<?xml version="1.0"?>
<yandex>
  <logger>
    <level>warning</level>
    <log>%s/log/server.log</log>
    <errorlog>%s/log/error.log</errorlog>
    <size>10M</size>
    <count>1</count>
  </logger>
  <listen_host>127.0.0.1</listen_host>
  <tcp_port>%s</tcp_port>
  <http_port>%s</http_port>
  <interserver_http_port>%s</interserver_http_port>
  <max_connections>512</max_connections>
  <keep_alive_timeout>3</keep_alive_timeout>
  <max_concurrent_queries>200</max_concurrent_queries>
  <mark_cache_size>268435456</mark_cache_size>
  <path>%s/data/</path>
  <tmp_path>%s/tmp/</tmp_path>
  <user_files_path>%s/user_files/</user_files_path>
  <format_schema_path>%s/format_schemas/</format_schema_path>
  <users_config>%s/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
</yandex>
`

const usersXML = `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default>
      <max_memory_usage>4000000000</max_memory_usage>
    </default>
  </profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas>
    <default>
      <interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval>
    </default>
  </quotas>
</yandex>
`
