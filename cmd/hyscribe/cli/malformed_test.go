package cli_test

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// TestMalformedInputOnPostgres sends identifiers, emails and bodies that
// Postgres cannot hold (NUL, invalid UTF-8) to the service on Postgres:
// each is answered like any other bad or unknown input, never with a 500.
func TestMalformedInputOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service on Postgres")
	}
	db := pgtest.URL(t) // skips without Postgres
	vars := map[string]string{
		"DATABASE_URL":                 db,
		"HYSCRIBE_DATA_DIR":            t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":    "1",
		"HYSCRIBE_SHUTDOWN_GRACE":      "200ms",
		"HYSCRIBE_LOG_LEVEL":           "warn",
	}
	created := runCLI(t, env(map[string]string{"DATABASE_URL": db}), "account", "create", "--name", "pg", "--plan", "business", "--seconds", "60")
	key := created["apiKey"].(string)
	base := "http://" + startService(t, vars, cli.RoleAPI, nil).HTTPAddr()

	noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(method, path, ctype, body string, header ...string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := noRedirects.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	auth := []string{"Authorization", "Bearer " + key}

	unknownStatus, unknownBody := send("GET", "/api/getTranscription?docId=no-such-doc", "", "", auth...)
	if unknownStatus != 404 {
		t.Fatalf("unknown docId: %d %s", unknownStatus, unknownBody)
	}
	for _, id := range []string{"%00", "a%00b", "%FF", "%C3%28", "%7F"} {
		if status, body := send("GET", "/api/getTranscription?docId="+id, "", "", auth...); status != 404 || body != unknownBody {
			t.Errorf("docId %s: %d %s, want the 404 of an unknown docId: %s", id, status, body, unknownBody)
		}
	}

	for name, body := range map[string]string{
		"invalid UTF-8 in metadata":  "{\"type\":\"single_voice\",\"metadata\":{\"k\":\"\xff\xfe\"}}",
		"invalid UTF-8 in a key":     "{\"type\":\"single_voice\",\"metadata\":{\"\xc3\x28\":1}}",
		"a NUL checklistId":          `{"type":"single_voice","checklistId":"a\u0000b"}`,
		"an invalid UTF-8 checklist": "{\"type\":\"single_voice\",\"checklistId\":\"\xff\"}",
	} {
		status, answer := send("POST", "/api/createTranscription", "application/json", body, auth...)
		if status != 400 || !strings.Contains(answer, `"error"`) || !utf8.ValidString(answer) {
			t.Errorf("%s: %d %q, want a 400 with a JSON error", name, status, answer)
		}
	}

	csrf := strings.Repeat("c", 40)
	for _, email := range []string{"a\x00b@example.am", "\xff@example.am", "a@exa\x00mple.am"} {
		for _, page := range []string{"/app/signin", "/app/signup"} {
			form := url.Values{"_csrf": {csrf}, "email": {email}, "password": {"a long enough password"}, "org": {"Org"}}
			status, answer := send("POST", page, "application/x-www-form-urlencoded", form.Encode(), "Cookie", "hyscribe_csrf="+csrf)
			if status != 400 {
				t.Errorf("%s with email %q: %d, want 400\n%s", page, email, status, answer)
			}
		}
	}
}

// TestMalformedCursorOnBothStores passes listTranscriptions cursors whose
// fields hold what a store cannot hold (NUL, invalid UTF-8) or what this
// service never writes, on SQLite and on Postgres: each is the 400
// invalid_cursor, never a 500, and a cursor the service gave still pages.
func TestMalformedCursorOnBothStores(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service on both stores")
	}
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	bad := map[string]string{
		"NUL in the docId":      enc("c1:1700000000000:a\x00b"),
		"invalid UTF-8":         enc("c1:1700000000000:\xff\xfe"),
		"a year Postgres lacks": enc("c1:9223372036854775807:abc"),
		"a quote in the docId":  enc("c1:1700000000000:a'b"),
	}
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			vars := map[string]string{
				"HYSCRIBE_DATA_DIR":            t.TempDir(),
				"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
				"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
				"HYSCRIBE_KAFKA_PARTITIONS":    "1",
				"HYSCRIBE_SHUTDOWN_GRACE":      "200ms",
				"HYSCRIBE_LOG_LEVEL":           "warn",
			}
			if store == "postgres" {
				vars["DATABASE_URL"] = pgtest.URL(t) // skips without Postgres
			}
			created := runCLI(t, env(vars), "account", "create", "--name", store, "--plan", "business", "--seconds", "60")
			key := created["apiKey"].(string)
			base := "http://" + startService(t, vars, cli.RoleAPI, nil).HTTPAddr()
			for range 2 {
				call(t, "POST", base+"/api/createTranscription", key, strings.NewReader(`{"type":"single_voice"}`), 200, nil)
			}
			var first struct{ NextCursor string }
			call(t, "GET", base+"/api/listTranscriptions?limit=1", key, nil, 200, &first)
			if first.NextCursor == "" {
				t.Fatal("a page of one of two jobs has no nextCursor")
			}
			call(t, "GET", base+"/api/listTranscriptions?limit=1&cursor="+url.QueryEscape(first.NextCursor), key, nil, 200, nil)
			for name, cursor := range bad {
				var e struct{ Error, Code string }
				call(t, "GET", base+"/api/listTranscriptions?cursor="+url.QueryEscape(cursor), key, nil, 400, &e)
				if e.Code != "invalid_cursor" || !strings.Contains(e.Error, "nextCursor") {
					t.Errorf("%s: %+v, want invalid_cursor with a clear error", name, e)
				}
			}
		})
	}
}
