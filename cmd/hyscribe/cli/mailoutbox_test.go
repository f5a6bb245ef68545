package cli_test

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // reads the service's mail outbox behind its back

	"github.com/hyscribe/hyscribe/adapters/smtp/smtptest"
)

// TestResetMailAskedDuringSMTPOutageArrives asks "Forgot password?" while
// the SMTP relay is down: the form gives its one neutral answer at once
// (the same as for an unknown address), the letter waits in the mail
// outbox and is tried again, and once the relay is started it arrives,
// once, with the reset link (issue 35: it used to be tried once and
// dropped).
func TestResetMailAskedDuringSMTPOutageArrives(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service and an SMTP server")
	}
	relay := smtptest.Reserve(t) // its address is known; nothing listens yet
	vars := peopleVars(t)
	vars["HYSCRIBE_SMTP_URL"] = relay.URL("hyscribe@example.am")
	vars["HYSCRIBE_MAIL_RETRY_WAIT"] = "100ms"
	getenv := env(vars)
	acct := runCLI(t, getenv, "account", "create", "--name", "Outage Clinic", "--plan", "business", "--seconds", "60")["accountId"].(string)
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("a long enough password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runCLI(t, getenv, "user", "create", "--account", acct, "--email", "lead@example.am", "--password-file", pw, "--role", "owner")
	base := startPeople(t, vars)

	forgot := func(email string) string {
		t.Helper()
		c := browserless(t)
		page := body(t, get(t, c, base+"/app/forgot"))
		start := time.Now()
		res := postForm(t, c, base+"/app/forgot", url.Values{"_csrf": {csrfOf(t, page)}, "email": {email}})
		took := time.Since(start)
		b := body(t, res)
		if res.StatusCode != 200 || !strings.Contains(b, `id="forgot-sent"`) {
			t.Fatalf("forgot %s with the relay down: %d\n%s", email, res.StatusCode, b)
		}
		if took > 5*time.Second {
			t.Fatalf("forgot %s took %s with the relay down: the answer must not wait for it", email, took)
		}
		return strings.ReplaceAll(b, email, "EMAIL")
	}
	known := forgot("lead@example.am")
	if unknown := forgot("nobody@example.am"); known != unknown {
		t.Fatal("the answer for a known address differs from an unknown one's")
	}

	// The premise: the relay was tried while down, and the letter waits.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(vars["HYSCRIBE_DATA_DIR"], "hyscribe.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	letter := func() (status string, attempts int) {
		t.Helper()
		err := db.QueryRowContext(context.Background(), `SELECT status, attempts FROM mail_outbox WHERE to_addr = 'lead@example.am'`).Scan(&status, &attempts)
		if err != nil {
			t.Fatalf("the reset letter in the mail outbox: %v", err)
		}
		return status, attempts
	}
	waitFor(t, "the letter tried while the relay is down", 20*time.Second, func() (bool, string) {
		st, n := letter()
		return st == "pending" && n >= 2, st
	})

	relay.Up(t)
	waitFor(t, "the reset letter once the relay is up", 60*time.Second, func() (bool, string) {
		return len(relay.Messages(t)) > 0, "no letter"
	})
	waitFor(t, "the letter recorded as sent", 10*time.Second, func() (bool, string) {
		st, _ := letter()
		return st == "sent", st
	})
	msgs := relay.Messages(t)
	if len(msgs) != 1 {
		t.Fatalf("%d letters arrived, want 1 (the unknown address gets none)", len(msgs))
	}
	if m := msgs[0]; m.To != "lead@example.am" || !strings.Contains(m.Text, base+"/app/reset/") || !strings.Contains(m.Text, "Outage Clinic") {
		t.Fatalf("the letter: to %s\n%s", m.To, m.Text)
	}
}
