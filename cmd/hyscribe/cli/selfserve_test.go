package cli_test

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// TestOperatorResetLink runs `hyscribe user reset-link`: the person sets a
// new password at the printed link (once), the old one stops working; for
// a person who never accepted their invitation it prints a new invitation.
func TestOperatorResetLink(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service")
	}
	vars := peopleVars(t)
	getenv := env(vars)
	acct := runCLI(t, getenv, "account", "create", "--name", "people", "--plan", "business", "--seconds", "60")["accountId"].(string)
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("the forgotten password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runCLI(t, getenv, "user", "create", "--account", acct, "--email", "lead@example.am", "--password-file", pw, "--role", "owner")
	runCLI(t, getenv, "user", "invite", "--account", acct, "--email", "late@example.am")

	base := startPeople(t, vars)

	var out, errb bytes.Buffer
	if err := cli.Run(context.Background(), []string{"user", "reset-link", "--email", "nobody@example.am"}, getenv, &out, &errb); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("reset-link for an unknown email: %v", err)
	}
	if inv := runCLI(t, getenv, "user", "reset-link", "--email", "late@example.am"); !strings.HasPrefix(inv["inviteLink"].(string), base+"/app/invite/") {
		t.Fatalf("reset-link for a pending invitation printed %v, want a new inviteLink", inv)
	}
	r := runCLI(t, getenv, "user", "reset-link", "--email", "Lead@Example.am")
	link, _ := r["resetLink"].(string)
	if !strings.HasPrefix(link, base+"/app/reset/") || r["email"] != "lead@example.am" || r["expires"] == "" {
		t.Fatalf("reset-link printed %v", r)
	}
	lead := browserless(t)
	page := body(t, get(t, lead, link))
	res := postForm(t, lead, link, url.Values{"_csrf": {csrfOf(t, page)}, "password": {"a remembered password"}})
	if res.Request.URL.Path != "/app/recordings" {
		t.Fatalf("setting the new password ended at %s (%d)", res.Request.URL, res.StatusCode)
	}
	if res := get(t, browserless(t), link); res.StatusCode != 404 {
		t.Fatalf("a used reset link answers %d, want 404", res.StatusCode)
	}
	signIn := func(password string) string {
		c := browserless(t)
		page := body(t, get(t, c, base+"/app/signin"))
		res := postForm(t, c, base+"/app/signin", url.Values{"_csrf": {csrfOf(t, page)}, "email": {"lead@example.am"}, "password": {password}})
		return res.Request.URL.Path
	}
	if p := signIn("the forgotten password"); p == "/app/recordings" {
		t.Fatal("the old password still signs in")
	}
	if p := signIn("a remembered password"); p != "/app/recordings" {
		t.Fatalf("the new password signs in to %s", p)
	}
}
