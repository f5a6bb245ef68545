package cli_test

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEachOperationKeepsItsRulesThroughBothDoors performs Get, Export,
// Resend and Upload through the API and through the web application of one
// service on one SQLite store. Each operation is one use case taking an
// actor (docs/decisions.md, One use case per operation): its rules —
// another account's job is the same 404, an API key needs a Business plan,
// a person needs the owner's role to send data out or spend seconds, an
// account not on the Business plan creates nothing whoever asks — must
// hold through both doors, and a successful export is the same file
// through both. A door that went around the use case (read the store
// itself, or created the job its own way) fails its row.
func TestEachOperationKeepsItsRulesThroughBothDoors(t *testing.T) {
	r := newSecurityRig(t, "600", map[string]string{"HYSCRIBE_LLM_URL": "", "HYSCRIBE_WEBHOOK_ALLOW_PRIVATE": "true"})
	recv := newLoopbackServer(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	runCLI(t, env(r.vars), "account", "update", "--account", r.account, "--webhook-url", recv+"/hook")
	doc := r.transcribed(t)

	// Another business account's job, and an account on the free plan with
	// a key and an owner.
	x := r.otherAccount(t, "x")
	var created struct{ DocID string }
	call(t, "POST", r.base+"/api/createTranscription", x.key, strings.NewReader(`{"type":"single_voice"}`), 200, &created)
	theirs := created.DocID
	free := runCLI(t, env(r.vars), "account", "create", "--name", "free", "--plan", "free", "--seconds", "0")
	freeKey := free["apiKey"].(string)
	pw := filepath.Join(t.TempDir(), "pw-free")
	if err := os.WriteFile(pw, []byte(rigPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runCLI(t, env(r.vars), "user", "create", "--account", free["accountId"].(string), "--email", "free-owner@example.am", "--password-file", pw, "--role", "owner")
	r.user(t, "member@example.am", "member")

	owner := r.signIn(t, r.owner, rigPassword)
	member := r.signIn(t, "member@example.am", rigPassword)
	freeOwner := r.signIn(t, "free-owner@example.am", rigPassword)
	page := body(t, get(t, owner, r.base+"/app/recordings/"+doc))
	m := regexp.MustCompile(`/app/recordings/[^/"]+/deliveries/([^/"]+)/resend`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("premise: the recording's page offers Resend of its transcript_ready delivery")
	}
	delivery := m[1]

	api := func(method, path, key, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, r.base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	web := func(c *http.Client, path string) (int, string) {
		t.Helper()
		res := get(t, c, r.base+path)
		return res.StatusCode, body(t, res)
	}
	webPost := func(c *http.Client, from, to string, f url.Values) (int, string) {
		t.Helper()
		res := r.post(t, c, from, to, f)
		b := body(t, res)
		if res.StatusCode == http.StatusOK && res.Request.URL.Path != to { // followed the redirect of a success
			return http.StatusSeeOther, res.Request.URL.String()
		}
		return res.StatusCode, b
	}
	resendBody := func(d string) string { return `{"docId":"` + d + `","event":"transcript_ready"}` }
	resendPath := func(d string) string { return "/app/recordings/" + d + "/deliveries/" + delivery + "/resend" }
	audio, err := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	upload := url.Values{"type": {"single_voice"}, "size": {fmt.Sprint(len(audio))}, "head": {base64.StdEncoding.EncodeToString(audio)}}

	type result struct {
		code int
		body string
	}
	do := func(code int, body string) result { return result{code, body} }
	for _, tc := range []struct {
		op, rule         string
		viaAPI, viaWeb   func() result
		wantAPI, wantWeb int
		sameBody         bool   // the two answers carry the same bytes
		apiSays, webSays string // each answer contains it
		// sameJob: the two answers name jobs the API reads back alike.
		sameJob bool
		// neitherSays: neither answer contains it (another account's job).
		neitherSays string
	}{
		{op: "Get", rule: "the account's job is read",
			viaAPI:  func() result { return do(api("GET", "/api/getTranscription?docId="+doc, r.key, "")) },
			viaWeb:  func() result { return do(web(member, "/app/recordings/"+doc)) },
			wantAPI: 200, wantWeb: 200, apiSays: `"status":"transcribed"`, webSays: doc},
		{op: "Get", rule: "another account's job is the same 404 as a missing one",
			viaAPI:  func() result { return do(api("GET", "/api/getTranscription?docId="+theirs, r.key, "")) },
			viaWeb:  func() result { return do(web(owner, "/app/recordings/"+theirs)) },
			wantAPI: 404, wantWeb: 404},
		{op: "Get", rule: "an API key needs a Business plan; a person of another account gets 404",
			viaAPI:  func() result { return do(api("GET", "/api/getTranscription?docId="+doc, freeKey, "")) },
			viaWeb:  func() result { return do(web(freeOwner, "/app/recordings/"+doc)) },
			wantAPI: 403, wantWeb: 404},
		{op: "List", rule: "the account's jobs are listed, another account's never",
			viaAPI:  func() result { return do(api("GET", "/api/listTranscriptions", r.key, "")) },
			viaWeb:  func() result { return do(web(member, "/app/recordings")) },
			wantAPI: 200, wantWeb: 200, apiSays: doc, webSays: doc, neitherSays: theirs},
		{op: "List", rule: "an API key needs a Business plan; a person of a free account lists its history",
			viaAPI:  func() result { return do(api("GET", "/api/listTranscriptions", freeKey, "")) },
			viaWeb:  func() result { return do(web(freeOwner, "/app/recordings")) },
			wantAPI: 403, wantWeb: 200, apiSays: "Business-plan", neitherSays: doc},
		{op: "List", rule: "a cursor the service did not give is refused, saying so",
			viaAPI:  func() result { return do(api("GET", "/api/listTranscriptions?cursor=nope", r.key, "")) },
			viaWeb:  func() result { return do(web(owner, "/app/recordings?at=nope")) },
			wantAPI: 400, wantWeb: 200, apiSays: `"invalid_cursor"`, webSays: "Էջի հղումն այլևս չի գործում"},
		{op: "Export", rule: "the same file through both doors",
			viaAPI:  func() result { return do(api("GET", "/api/exportTranscription?docId="+doc+"&format=srt", r.key, "")) },
			viaWeb:  func() result { return do(web(member, "/app/recordings/"+doc+"/export/srt")) },
			wantAPI: 200, wantWeb: 200, sameBody: true, apiSays: "-->"},
		{op: "Export", rule: "another account's job is the same 404 as a missing one",
			viaAPI: func() result {
				return do(api("GET", "/api/exportTranscription?docId="+theirs+"&format=srt", r.key, ""))
			},
			viaWeb:  func() result { return do(web(owner, "/app/recordings/"+theirs+"/export/srt")) },
			wantAPI: 404, wantWeb: 404},
		{op: "Export", rule: "an API key needs a Business plan; a person of another account gets 404",
			viaAPI:  func() result { return do(api("GET", "/api/exportTranscription?docId="+doc+"&format=srt", freeKey, "")) },
			viaWeb:  func() result { return do(web(freeOwner, "/app/recordings/"+doc+"/export/srt")) },
			wantAPI: 403, wantWeb: 404},
		{op: "Resend", rule: "the event is sent again",
			viaAPI:  func() result { return do(api("POST", "/api/resendEvent", r.key, resendBody(doc))) },
			viaWeb:  func() result { return do(webPost(owner, "/app/recordings/"+doc, resendPath(doc), url.Values{})) },
			wantAPI: 200, wantWeb: http.StatusSeeOther, apiSays: `"delivered":true`, webSays: "resent="},
		{op: "Resend", rule: "another account's job is the same 404 as a missing one",
			viaAPI:  func() result { return do(api("POST", "/api/resendEvent", r.key, resendBody(theirs))) },
			viaWeb:  func() result { return do(webPost(owner, "/app/recordings/"+doc, resendPath(theirs), url.Values{})) },
			wantAPI: 404, wantWeb: 404},
		{op: "Resend", rule: "a key needs a Business plan, a person the owner's role",
			viaAPI:  func() result { return do(api("POST", "/api/resendEvent", freeKey, resendBody(doc))) },
			viaWeb:  func() result { return do(webPost(member, "/app/recordings/"+doc, resendPath(doc), url.Values{})) },
			wantAPI: 403, wantWeb: 403},
		{op: "Upload", rule: "the owner of a business account creates a job",
			viaAPI: func() result {
				return do(api("POST", "/api/createTranscription", r.key, `{"type":"single_voice","metadata":{"crm":"<a&b>"}}`))
			},
			viaWeb: func() result {
				return do(webPost(owner, "/app/settings", "/app/recordings/new", withMeta(upload, `{"crm":"<a&b>"}`)))
			},
			wantAPI: 200, wantWeb: 200, apiSays: `"uploadUrl"`, webSays: `"uploadUrl"`, sameJob: true},
		{op: "Upload", rule: "an account not on the Business plan creates nothing, whoever asks",
			viaAPI:  func() result { return do(api("POST", "/api/createTranscription", freeKey, `{"type":"single_voice"}`)) },
			viaWeb:  func() result { return do(webPost(freeOwner, "/app/settings", "/app/recordings/new", upload)) },
			wantAPI: 403, wantWeb: 403, webSays: `"not_business"`},
		{op: "Upload", rule: "a person needs the owner's role",
			viaAPI:  func() result { return do(api("POST", "/api/createTranscription", r.key, `{"type":"single_voice"}`)) },
			viaWeb:  func() result { return do(webPost(member, "/app/recordings", "/app/recordings/new", upload)) },
			wantAPI: 200, wantWeb: 403, webSays: `"owner_only"`},
		{op: "Upload", rule: "a request the API would refuse is refused by the form alike",
			viaAPI: func() result { return do(api("POST", "/api/createTranscription", r.key, `{"type":"video"}`)) },
			viaWeb: func() result {
				return do(webPost(owner, "/app/settings", "/app/recordings/new", withType(upload, "video")))
			},
			wantAPI: 400, wantWeb: 400, apiSays: `"invalid_type"`, webSays: `"invalid_type"`},
	} {
		t.Run(tc.op+"/"+tc.rule, func(t *testing.T) {
			a, w := tc.viaAPI(), tc.viaWeb()
			if a.code != tc.wantAPI || !strings.Contains(a.body, tc.apiSays) {
				t.Errorf("through the API: %d %.300s; want %d with %q", a.code, a.body, tc.wantAPI, tc.apiSays)
			}
			if w.code != tc.wantWeb || !strings.Contains(w.body, tc.webSays) {
				t.Errorf("through the web application: %d %.300s; want %d with %q", w.code, w.body, tc.wantWeb, tc.webSays)
			}
			if tc.neitherSays != "" && (strings.Contains(a.body, tc.neitherSays) || strings.Contains(w.body, tc.neitherSays)) {
				t.Errorf("an answer names %s, which is not this account's", tc.neitherSays)
			}
			if tc.sameJob {
				docOf := regexp.MustCompile(`"docId":"([^"]+)"`)
				da, dw := docOf.FindStringSubmatch(a.body), docOf.FindStringSubmatch(w.body)
				if da == nil || dw == nil {
					t.Fatalf("no docId in %q or %q", a.body, dw)
				}
				meta := regexp.MustCompile(`"metadata":(\{[^}]*\})`)
				_, ja := api("GET", "/api/getTranscription?docId="+da[1], r.key, "")
				_, jw := api("GET", "/api/getTranscription?docId="+dw[1], r.key, "")
				ma, mw := meta.FindStringSubmatch(ja), meta.FindStringSubmatch(jw)
				if ma == nil || mw == nil || ma[1] != mw[1] {
					t.Errorf("the jobs read back differently:\nAPI's %s\nweb's %s", ja, jw)
				}
			}
			if tc.sameBody && a.body != w.body {
				t.Errorf("the two doors answered different files:\nAPI %.200q\nweb %.200q", a.body, w.body)
			}
		})
	}
}

func withMeta(f url.Values, meta string) url.Values {
	g := url.Values{}
	for k, v := range f {
		g[k] = v
	}
	g.Set("metadata", meta)
	return g
}

func withType(f url.Values, typ string) url.Values {
	g := withMeta(f, "")
	g.Set("type", typ)
	return g
}
