package cli_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// peopleVars are the settings of the tests of the people commands: a
// service of its own with an embedded Kafka, quiet.
func peopleVars(t *testing.T) map[string]string {
	return map[string]string{
		"HYSCRIBE_DATA_DIR":            t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":    "1",
		"HYSCRIBE_LOG_LEVEL":           "warn",
	}
}

// startPeople starts the API and the worker as vars configure them, until
// the test ends, and returns their base URL, which it sets as
// HYSCRIBE_PUBLIC_URL so that the commands print links to them.
func startPeople(t *testing.T, vars map[string]string) string {
	t.Helper()
	cfg, err := cli.LoadConfig(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := cli.Start(context.Background(), cfg, cli.RoleAPI|cli.RoleWorker, cli.AllStages, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop() })
	base := "http://" + svc.HTTPAddr()
	vars["HYSCRIBE_PUBLIC_URL"] = base
	return base
}

// TestOperatorAddsPeople runs `hyscribe user create` and `user invite` and
// signs both people in through the web application's forms, over HTTP.
func TestOperatorAddsPeople(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service")
	}
	vars := peopleVars(t)
	vars["HYSCRIBE_SIGNUP"] = "false"
	getenv := env(vars)
	acct := runCLI(t, getenv, "account", "create", "--name", "people", "--plan", "business", "--seconds", "60")["accountId"].(string)
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("a long enough password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	u := runCLI(t, getenv, "user", "create", "--account", acct, "--email", "Lead@Example.am", "--password-file", pw, "--role", "owner")
	if u["email"] != "lead@example.am" || u["role"] != "owner" {
		t.Fatalf("user create printed %v", u)
	}
	// Refusals say what is wrong.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"user", "create", "--account", acct, "--email", "x@example.am"}, "--password-file is required"},
		{[]string{"user", "create", "--account", acct, "--email", "lead@example.am", "--password-file", pw}, "conflict"},
		{[]string{"user", "invite", "--account", "nope", "--email", "x@example.am"}, "not found"},
		{[]string{"user", "invite", "--account", acct, "--email", "x@example.am", "--role", "admin"}, "role must be"},
	} {
		var out, errb bytes.Buffer
		err := cli.Run(context.Background(), tc.args, getenv, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("hyscribe %s: %v, want an error saying %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}

	base := startPeople(t, vars)
	inv := runCLI(t, getenv, "user", "invite", "--account", acct, "--email", "member@example.am")
	link := inv["inviteLink"].(string)
	if !strings.HasPrefix(link, base+"/app/invite/") {
		t.Fatalf("invite link %q", link)
	}

	// Sign-up is closed; the created user signs in.
	lead := browserless(t)
	if res := get(t, lead, base+"/app/signup"); res.StatusCode != 404 {
		t.Errorf("sign-up with HYSCRIBE_SIGNUP=false: %d", res.StatusCode)
	}
	page := body(t, get(t, lead, base+"/app/signin"))
	res := postForm(t, lead, base+"/app/signin", url.Values{"_csrf": {csrfOf(t, page)}, "email": {"lead@example.am"}, "password": {"a long enough password"}})
	if res.StatusCode != 200 || !strings.Contains(body(t, res), `id="history"`) && !strings.Contains(res.Request.URL.Path, "/app/recordings") {
		t.Fatalf("sign-in of the created user ended at %s (%d)", res.Request.URL, res.StatusCode)
	}
	// The invited person sets a password at the link and is signed in.
	member := browserless(t)
	page = body(t, get(t, member, link))
	res = postForm(t, member, link, url.Values{"_csrf": {csrfOf(t, page)}, "password": {"member password!"}})
	if res.Request.URL.Path != "/app/recordings" {
		t.Fatalf("accepting the invitation ended at %s (%d)", res.Request.URL, res.StatusCode)
	}
	if res := get(t, browserless(t), link); res.StatusCode != 404 {
		t.Fatalf("a used invitation link answers %d, want 404", res.StatusCode)
	}
}

func browserless(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar}
}

func get(t *testing.T, c *http.Client, u string) *http.Response {
	t.Helper()
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func postForm(t *testing.T, c *http.Client, u string, f url.Values) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", u, strings.NewReader(f.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func body(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

var csrfField = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF field in the page:\n%s", page)
	}
	return m[1]
}
