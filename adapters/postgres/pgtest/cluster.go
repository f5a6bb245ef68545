package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/internal/testenv"
)

// cluster is how to run a throwaway Postgres: the directory of its
// programs and, when the tests run as root (which initdb refuses), the
// user to run them as.
type cluster struct {
	bin string
	as  *syscall.Credential
}

// findCluster finds Postgres' initdb and postgres: Debian's
// /usr/lib/postgresql/<newest>/bin, else initdb on the PATH.
func findCluster(t testing.TB) cluster {
	t.Helper()
	const install = "apt-get install postgresql, or set " + EnvURL
	var c cluster
	if dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin"); len(dirs) > 0 {
		sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) < version(dirs[j]) })
		c.bin = dirs[len(dirs)-1]
	} else if p, err := exec.LookPath("initdb"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		c.bin = filepath.Dir(p)
	}
	for _, prog := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(c.bin, prog)); c.bin == "" || err != nil {
			testenv.Missing(t, "Postgres: nothing answers at %s, %s is unset, and no %s to start a throwaway cluster (%s)", LocalURL, EnvURL, prog, install)
		}
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			testenv.Missing(t, "Postgres: running as root, which initdb refuses, and no user postgres to run it as (%s): %v", install, err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.as = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	return c
}

// version is the major version of a /usr/lib/postgresql/<v>/bin.
func version(bin string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(bin)))
	return v
}

// command runs prog of the cluster's as its user.
func (c cluster) command(prog string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, prog), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.as}
	return cmd
}

// running is a throwaway cluster: its URL, its directory, and how to
// stop it (which also deletes the directory).
type running struct {
	url, dir string
	stop     func()
}

// start makes a cluster in a temporary directory (user postgres, trust
// auth, no fsync: it is thrown away) and runs it on a free loopback port
// until stop.
func (c cluster) start(t testing.TB) (running, error) {
	dir, err := os.MkdirTemp("", "hyscribe-pg-")
	if err != nil {
		return running{}, err
	}
	fail := func(err error) (running, error) {
		os.RemoveAll(dir)
		return running{}, err
	}
	if c.as != nil {
		if err := os.Chown(dir, int(c.as.Uid), int(c.as.Gid)); err != nil {
			return fail(err)
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := c.command("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync").CombinedOutput(); err != nil {
		return fail(fmt.Errorf("initdb: %v\n%s", err, out))
	}
	port := testenv.FreePort(t)
	var logs bytes.Buffer
	srv := c.command("postgres", "-D", data, "-p", port, "-h", "127.0.0.1", "-k", dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=200")
	testenv.Background(srv)
	srv.Stdout, srv.Stderr = &logs, &logs
	if err := srv.Start(); err != nil {
		return fail(fmt.Errorf("postgres: %w", err))
	}
	exited := make(chan struct{})
	go func() { _ = srv.Wait(); close(exited) }()
	stop := func() {
		_ = srv.Process.Signal(syscall.SIGINT) // fast shutdown
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = srv.Process.Kill()
			<-exited
		}
		os.RemoveAll(dir)
	}
	dbURL := "postgres://postgres@127.0.0.1:" + port + "/postgres?sslmode=disable"
	// Ready when it answers; it has as long as it needs on a loaded
	// machine, unless it exits.
	for {
		select {
		case <-exited:
			stop()
			return running{}, fmt.Errorf("postgres exited:\n%s", logs.String())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		conn, err := pgx.Connect(ctx, dbURL)
		if err == nil {
			conn.Close(ctx)
			cancel()
			return running{dbURL, dir, stop}, nil
		}
		cancel()
		select {
		case <-exited:
		case <-time.After(100 * time.Millisecond):
		}
	}
}
