package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/cmd/hyscribe/servicetest"
)

// The hyscribe binary, built once per test run for the tests that start
// real processes.
var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

func hyscribeBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "hyscribe-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "hyscribe")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/hyscribe/hyscribe/cmd/hyscribe").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// proc is a hyscribe process started by a test; its JSON log goes to a file
// that is printed when the test fails.
type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	waitErr error
}

// startProc runs the binary with args and exactly the variables in vars
// (plus PATH and HOME), stopped with SIGTERM when the test ends.
func startProc(t *testing.T, name string, vars map[string]string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, logPath: filepath.Join(t.TempDir(), name+".log"), done: make(chan struct{})}
	logf, err := os.Create(p.logPath)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(hyscribeBinary(t), args...)
	p.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range vars {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop(10 * time.Second)
		if t.Failed() {
			b, _ := os.ReadFile(p.logPath)
			if len(b) > 8000 {
				b = b[len(b)-8000:]
			}
			t.Logf("--- %s log (tail) ---\n%s", p.name, b)
		}
	})
	return p
}

// stop sends SIGTERM and waits up to grace, then kills.
func (p *proc) stop(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// kill ends the process with SIGKILL: no shutdown, no goodbye to Kafka.
func (p *proc) kill() {
	p.cmd.Process.Kill()
	<-p.done
}

// waitLog waits for a log line whose msg is msg and returns it decoded.
func (p *proc) waitLog(t *testing.T, msg string, within time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if b, err := os.ReadFile(p.logPath); err == nil {
			sc := bufio.NewScanner(bytes.NewReader(b))
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				var line map[string]any
				if json.Unmarshal(sc.Bytes(), &line) == nil && line["msg"] == msg {
					return line
				}
			}
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited (%v) before logging %q", p.name, p.waitErr, msg)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not log %q within %s", p.name, msg, within)
		}
		select { // the log is a file: read again shortly, or stop at an exit
		case <-p.done:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// startAPI starts `hyscribe api` and returns it with its bound address,
// read from its "http listening" log line (it listens on port 0).
func startAPI(t *testing.T, name string, vars map[string]string) (*proc, string) {
	t.Helper()
	p := startProc(t, name, vars, "api")
	line := p.waitLog(t, "http listening", 60*time.Second)
	addr, _ := line["addr"].(string)
	if addr == "" {
		t.Fatalf("%s: no addr in %v", name, line)
	}
	return p, addr
}

// waitFor polls cond until it holds or within passes.
func waitFor(t *testing.T, what string, within time.Duration, cond func() (bool, string)) {
	t.Helper()
	servicetest.Eventually(t, what, within, cond)
}
