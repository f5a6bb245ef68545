package web_test

import (
	"net/url"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/adapters/web"
)

// publicRoutes are the web application's only routes open to a visitor who
// is not signed in. Every other route must start with a group's guard.
var publicRoutes = map[string]bool{
	"/app": true, "/app/": true, "/app/static/:file": true, "/app/lang": true,
	"/app/signin": true, "/app/signup": true, "/app/signout": true,
	"/app/invite/:token": true, "/app/forgot": true, "/app/reset/:token": true,
	"/app/confirm/:token": true,
}

// guardOf names the guard a route starts with ("" for none).
func guardOf(r fiber.Route) string {
	if len(r.Handlers) < 2 {
		return ""
	}
	name := runtime.FuncForPC(reflect.ValueOf(r.Handlers[0]).Pointer()).Name()
	for _, g := range []string{"signedInPage", "managePage", "signedInScript", "manageScript"} {
		if strings.Contains(name, ".(*Web)."+g) {
			return g
		}
	}
	return ""
}

// TestEveryRouteButThePublicOnesIsGuarded walks the application's routes, so
// a new route is covered without editing the test: each one that is not
// public starts with a guard, and answers a visitor who is not signed in
// with the way to sign in (a redirect for pages, 401 JSON for scripts);
// a member gets the 403 of an owner's route, and never a 5xx.
func TestEveryRouteButThePublicOnesIsGuarded(t *testing.T) {
	s := newSite(t, web.Config{SignUp: true})
	_, _, acct := s.signUp("owner@example.am")
	doc := s.job(acct, "call", []byte("ID3 audio"), `{}`)
	member := s.member(acct, "member@example.am")
	params := strings.NewReplacer(":docId", string(doc), ":format", "srt", ":id", "x", ":token", "t", ":file", "app.css")
	guarded := 0
	for _, r := range s.app.GetRoutes(true) {
		if r.Method == fiber.MethodHead || !strings.HasPrefix(r.Path, web.Prefix) {
			continue
		}
		g := guardOf(r)
		if publicRoutes[r.Path] {
			if g != "" {
				t.Errorf("%s %s is public but guarded by %s", r.Method, r.Path, g)
			}
			continue
		}
		if g == "" {
			t.Errorf("%s %s has no guard: put it in a route group (guards.go) or in publicRoutes", r.Method, r.Path)
			continue
		}
		guarded++
		path := params.Replace(r.Path)
		var form url.Values
		if r.Method == fiber.MethodPost {
			form = url.Values{"_csrf": {"x"}}
		}
		out := s.do(r.Method, path, form, nil)
		switch {
		case strings.HasSuffix(g, "Page"):
			if loc := out.header.Get("Location"); out.code != 303 || !strings.HasPrefix(loc, "/app/signin?next=") {
				t.Errorf("%s %s signed out: %d %q, want 303 to sign in", r.Method, path, out.code, loc)
			}
		case out.code != 401 || !strings.Contains(out.body, `"code":"unauthorized"`):
			t.Errorf("%s %s signed out: %d %s, want 401 JSON", r.Method, path, out.code, out.body)
		}
		if r.Method == fiber.MethodPost {
			form = url.Values{"_csrf": {member["_csrf"]}}
		}
		in := s.do(r.Method, path, form, member)
		if in.code >= 500 || in.code == 401 || strings.HasPrefix(in.header.Get("Location"), "/app/signin") {
			t.Errorf("%s %s by a member: %d %q", r.Method, path, in.code, in.header.Get("Location"))
		}
		if strings.HasPrefix(g, "manage") && in.code != 403 {
			t.Errorf("%s %s is an owner's, a member got %d", r.Method, path, in.code)
		}
	}
	if guarded < 30 {
		t.Errorf("only %d guarded routes found", guarded)
	}
}

// TestScriptsAnswerFormFailuresAlike: the scripts' endpoints answer a
// refused form through the one JSON mapper (failJSON), so each says what
// was wrong the same way: 413 for a form too large, 403 for a stale token.
func TestScriptsAnswerFormFailuresAlike(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, csrf, acct := s.signUp("owner@example.am")
	doc := s.job(acct, "call", []byte("ID3 audio"), `{}`)
	big := url.Values{"_csrf": {csrf}, "pad": {strings.Repeat("x", 300<<10)}}
	for _, path := range []string{"/app/recordings/new", "/app/recordings/" + string(doc) + "/upload-url"} {
		if r := s.do("POST", path, big, ck); r.code != 413 || !strings.Contains(r.body, `"code":"form_too_large"`) {
			t.Errorf("POST %s with a form too large: %d %s, want 413 form_too_large", path, r.code, r.body)
		}
		if r := s.do("POST", path, url.Values{"_csrf": {"stale"}}, ck); r.code != 403 || !strings.Contains(r.body, `"code":"csrf"`) {
			t.Errorf("POST %s with a stale token: %d %s, want 403 csrf", path, r.code, r.body)
		}
	}
}
