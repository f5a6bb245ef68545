package cli_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// TestTrustedProxySetting: HYSCRIBE_TRUSTED_PROXIES is read as CIDRs, is
// listed by --help, and a bad one stops the start naming the variable.
func TestTrustedProxySetting(t *testing.T) {
	cfg, err := cli.LoadConfig(env(map[string]string{"HYSCRIBE_TRUSTED_PROXIES": "10.244.0.0/16, 192.168.0.1"}))
	if err != nil || strings.Join(cfg.TrustedProxies, " ") != "10.244.0.0/16 192.168.0.1" {
		t.Fatalf("good value: %v %v", cfg.TrustedProxies, err)
	}
	if cfg, err := cli.LoadConfig(env(nil)); err != nil || len(cfg.TrustedProxies) != 0 {
		t.Fatalf("default: %v %v, want no trusted proxy", cfg.TrustedProxies, err)
	}
	for _, bad := range []string{"10.0.0.0/33", "ingress", "10.0.0.0/8,nope"} {
		if _, err := cli.LoadConfig(env(map[string]string{"HYSCRIBE_TRUSTED_PROXIES": bad})); err == nil || !strings.Contains(err.Error(), "HYSCRIBE_TRUSTED_PROXIES") {
			t.Errorf("%q: %v, want an error naming HYSCRIBE_TRUSTED_PROXIES", bad, err)
		}
	}
	listed := false
	for _, v := range cli.Variables() { // what --help prints
		listed = listed || v.Name == "HYSCRIBE_TRUSTED_PROXIES" && v.Help != ""
	}
	if !listed {
		t.Error("--help does not list HYSCRIBE_TRUSTED_PROXIES")
	}
}

// TestSignInLimitPerClientBehindTheIngress runs the service with
// 127.0.0.1 as its trusted ingress. Two clients behind it (different
// X-Forwarded-For) have a sign-in limit each (app.SignInPerEmail failures
// a minute per client address and e-mail): the first one's next attempt
// of the minute is refused, the second one's first is not. A peer that
// is not the ingress (127.0.0.2) cannot escape its own limit by writing
// a new X-Forwarded-For each time.
func TestSignInLimitPerClientBehindTheIngress(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service")
	}
	vars := peopleVars(t)
	vars["HYSCRIBE_TRUSTED_PROXIES"] = "127.0.0.1/32"
	base := startPeople(t, vars)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://"))

	// from connects from a local address of its own: 127.0.0.1 is the
	// ingress, 127.0.0.2 a client reaching the port directly.
	from := func(local string) *http.Client {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
		return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	}
	csrf := strings.Repeat("c", 40)
	signIn := func(c *http.Client, xff string) int {
		t.Helper()
		form := url.Values{"_csrf": {csrf}, "email": {"someone@example.am"}, "password": {"a wrong password, long enough"}}
		req, _ := http.NewRequestWithContext(context.Background(), "POST", "http://127.0.0.1:"+port+"/app/signin", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(&http.Cookie{Name: "hyscribe_csrf", Value: csrf})
		if xff != "" {
			req.Header.Set("X-Forwarded-For", xff)
		}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	// The limit counts a wall-clock minute: each phase starts with at
	// least 30 s of its minute left (a phase hashes 11 passwords).
	freshMinute := func() {
		if left := time.Until(time.Now().Truncate(time.Minute).Add(time.Minute)); left < 30*time.Second {
			time.Sleep(left + 100*time.Millisecond)
		}
	}
	ingress := from("127.0.0.1")
	freshMinute()
	for i := range app.SignInPerEmail {
		if code := signIn(ingress, "198.51.100.1"); code != http.StatusUnauthorized {
			t.Fatalf("client 1's sign-in %d: %d, want 401 (wrong password)", i+1, code)
		}
	}
	if code := signIn(ingress, "198.51.100.1"); code != http.StatusTooManyRequests {
		t.Fatalf("client 1's sign-in %d: %d, want 429", app.SignInPerEmail+1, code)
	}
	// What client 1 writes to the left of the ingress's entry is not read.
	if code := signIn(ingress, "203.0.113.50, 198.51.100.1"); code != http.StatusTooManyRequests {
		t.Fatalf("client 1 prepending an address: %d, want 429", code)
	}
	if code := signIn(ingress, "198.51.100.2"); code != http.StatusUnauthorized {
		t.Fatalf("client 2 behind the same ingress: %d, want 401 — its own limit", code)
	}

	direct := from("127.0.0.2")
	freshMinute()
	for i := range app.SignInPerEmail {
		if code := signIn(direct, fmt.Sprintf("198.51.100.%d", 10+i)); code != http.StatusUnauthorized {
			t.Fatalf("direct sign-in %d: %d, want 401", i+1, code)
		}
	}
	if code := signIn(direct, "198.51.100.250"); code != http.StatusTooManyRequests {
		t.Fatalf("a direct client's sign-in %d with a fresh X-Forwarded-For: %d, want 429 (the header of an untrusted peer is ignored)", app.SignInPerEmail+1, code)
	}
}
