// Package smtptest starts a real SMTP server for tests, Debian's aiosmtpd
// (python3-aiosmtpd), on loopback, storing what it receives in a Maildir
// that the test reads back.
package smtptest

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/internal/testenv"
)

// Server is a running aiosmtpd.
type Server struct {
	Addr string // host:port
	dir  string
}

// Message is one received e-mail, decoded.
type Message struct {
	From, To, Subject, Lang string
	Text                    string
	Header                  mail.Header
}

// python finds a Python with aiosmtpd: HYSCRIBE_TEST_SMTPD_PYTHON (set
// by `make test`; then a missing aiosmtpd fails the test), else Debian's
// /usr/bin/python3; without aiosmtpd the test stops through
// testenv.Missing.
func python(t testing.TB) string {
	t.Helper()
	p := os.Getenv("HYSCRIBE_TEST_SMTPD_PYTHON")
	must := p != ""
	if p == "" {
		p = "/usr/bin/python3"
	}
	if err := exec.Command(p, "-c", "import aiosmtpd").Run(); err != nil {
		if must {
			t.Fatalf("HYSCRIBE_TEST_SMTPD_PYTHON=%s has no aiosmtpd (%v): .ci/deps.sh installs python3-aiosmtpd", p, err)
		}
		testenv.Missing(t, "%s has no aiosmtpd, the SMTP server of the e-mail tests (apt-get install python3-aiosmtpd; .ci/deps.sh does): %v", p, err)
	}
	return p
}

// Start runs aiosmtpd on a free loopback port until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := Reserve(t)
	s.Up(t)
	return s
}

// Reserve picks a free loopback port for a server that is not running
// yet: a relay that is down, whose address the service already has. Up
// starts it there.
func Reserve(t testing.TB) *Server {
	t.Helper()
	python(t) // a missing aiosmtpd stops the test before it starts anything
	return &Server{Addr: "127.0.0.1:" + testenv.FreePort(t), dir: filepath.Join(t.TempDir(), "maildir")}
}

// Up runs aiosmtpd on s.Addr until the test ends. A reserved port another
// program took meanwhile fails the test.
func (s *Server) Up(t testing.TB) {
	t.Helper()
	py := python(t)
	for attempt := 0; ; attempt++ {
		cmd := exec.Command(py, "-m", "aiosmtpd", "-n", "-l", s.Addr, "-c", "aiosmtpd.handlers.Mailbox", s.dir)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatalf("start aiosmtpd: %v", err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		stop := func() {
			_ = cmd.Process.Kill()
			<-done
		}
		if waitListening(s.Addr, done, 10*time.Second) {
			t.Cleanup(stop)
			return
		}
		stop()
		if attempt == 2 {
			t.Fatalf("aiosmtpd did not listen on %s:\n%s", s.Addr, out.String())
		}
	}
}

func waitListening(addr string, exited <-chan struct{}, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return false
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// URL is the HYSCRIBE_SMTP_URL of this server with sender from.
func (s *Server) URL(from string) string { return "smtp://" + s.Addr + "?from=" + from }

// Messages returns every message received so far, oldest first.
func (s *Server) Messages(t testing.TB) []Message {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(s.dir, "new", "*"))
	type stamped struct {
		m   Message
		mod time.Time
	}
	var all []stamped
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := decode(b)
		if err != nil {
			t.Fatalf("received message %s: %v\n%s", f, err, b)
		}
		fi, _ := os.Stat(f)
		all = append(all, stamped{m, fi.ModTime()})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].mod.Before(all[j].mod) })
	out := make([]Message, len(all))
	for i := range all {
		out[i] = all[i].m
	}
	return out
}

// Await waits up to d for the messages to to number n at least, and
// returns them.
func (s *Server) Await(t testing.TB, to string, n int, d time.Duration) []Message {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		var got []Message
		for _, m := range s.Messages(t) {
			if m.To == to {
				got = append(got, m)
			}
		}
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d message(s) to %s after %s, want %d; all received: %+v", len(got), to, d, n, s.Messages(t))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func decode(raw []byte) (Message, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Message{}, err
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		return Message{}, fmt.Errorf("subject: %w", err)
	}
	var body io.Reader = msg.Body
	if strings.EqualFold(msg.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	text, err := io.ReadAll(body)
	if err != nil {
		return Message{}, fmt.Errorf("body: %w", err)
	}
	return Message{From: msg.Header.Get("From"), To: msg.Header.Get("To"), Subject: subject, Lang: msg.Header.Get("Content-Language"),
		Text: strings.ReplaceAll(string(text), "\r\n", "\n"), Header: msg.Header}, nil
}
