package web_test

import (
	"context"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/web"
	"github.com/hyscribe/hyscribe/domain"
)

// named gives the job the uploaded file's name.
func (s *site) named(id domain.DocID, filename string) {
	s.t.Helper()
	err := s.store.UpdateJob(context.Background(), id, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
		j.Filename = filename
		return nil, nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
}

// TestHistoryTellsCallsApart: calls with one generated title show their
// file names and the metadata keys the owner chose as columns, and a
// search for part of a file name or a metadata value finds the call
// (issue 36, item 1). The columns are the owner's to choose, bounded and
// checked with a clear error.
func TestHistoryTellsCallsApart(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, csrf, acct := s.signUp("a@example.am")
	a := s.job(acct, "Առաքման հարց", []byte("x"), `{"agent":"ext115","phone":"+37499290684","campaign":"Ձմեռ"}`)
	b := s.job(acct, "Առաքման հարց", []byte("x"), `{"agent":"ext204","phone":"+37491000000"}`)
	s.named(a, "ext115_2026-11-20_1312.mp3")
	s.named(b, "ext204_2026-11-21_0940.mp3")

	page := s.do("GET", "/app/recordings", nil, ck).body
	for _, want := range []string{"ext115_2026-11-20_1312.mp3", "ext204_2026-11-21_0940.mp3"} {
		if !strings.Contains(page, want) {
			t.Fatalf("the history does not show the file name %s", want)
		}
	}
	if strings.Contains(page, `data-column="phone"`) {
		t.Fatal("metadata columns shown before the owner chose any")
	}

	save := func(cols, agent string) resp {
		return s.do("POST", "/app/settings/columns", url.Values{"_csrf": {csrf}, "listColumns": {cols}, "agentKey": {agent}}, ck)
	}
	if r := save("agent, phone, campaign, crm, extra", ""); r.code != 400 || !strings.Contains(r.body, "4") {
		t.Fatalf("five columns: %d, want 400 saying at most 4", r.code)
	}
	if r := save("phone;number=1", ""); r.code != 400 {
		t.Fatalf("a key with '=': %d, want 400", r.code)
	}
	if r := save("phone, campaign", "agent"); r.code != 303 {
		t.Fatalf("saving the columns: %d %s", r.code, r.body)
	}
	if got := s.do("GET", "/app/settings", nil, ck).body; !strings.Contains(got, `value="phone, campaign"`) {
		t.Fatal("Settings does not show the saved columns")
	}
	page = s.do("GET", "/app/recordings", nil, ck).body
	for _, want := range []string{`data-column="phone"`, "37499290684", "37491000000", "Ձմեռ"} {
		if !strings.Contains(page, want) {
			t.Fatalf("the history lacks %q once the columns are chosen", want)
		}
	}

	for _, q := range []string{"ext115", "+37499290684", "2026-11-20_1312"} {
		got := s.do("GET", "/app/recordings?q="+url.QueryEscape(q), nil, ck).body
		if !strings.Contains(got, string(a)) || strings.Contains(got, string(b)) {
			t.Fatalf("a search for %q does not find exactly the one call", q)
		}
	}

	// A member sees the columns but may not change them.
	memberCk := s.member(acct, "m@example.am")
	if r := s.do("POST", "/app/settings/columns", url.Values{"_csrf": {memberCk["_csrf"]}, "listColumns": {"agent"}}, memberCk); r.code != 403 {
		t.Fatalf("a member's change of the columns: %d, want 403", r.code)
	}
}

// TestBulkActionOverAFilter: "select all matching" deletes every call the
// history's filter keeps, beyond the 25 rows of a page, in the account
// only; the page offers it with the count and the delete button's
// confirmation can say how many (issue 36, item 6).
func TestBulkActionOverAFilter(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, csrf, acct := s.signUp("a@example.am")
	_, _, other := s.signUp("b@example.am")
	if r := s.do("POST", "/app/settings/columns", url.Values{"_csrf": {csrf}, "listColumns": {""}, "agentKey": {"agent"}}, ck); r.code != 303 {
		t.Fatalf("agent key: %d", r.code)
	}
	var keep []domain.DocID
	for range 30 {
		s.job(acct, "Զանգ", []byte("x"), `{"agent":"ext115"}`)
	}
	for range 3 {
		keep = append(keep, s.job(acct, "Զանգ", []byte("x"), `{"agent":"ext204"}`))
	}
	theirs := s.job(other, "Զանգ", []byte("x"), `{"agent":"ext115"}`)

	page := s.do("GET", "/app/recordings?agent=ext115", nil, ck).body
	if !strings.Contains(page, `id="bulk-all"`) || !strings.Contains(page, "30") || !strings.Contains(page, `data-confirm-n=`) {
		t.Fatal("the history does not offer to select all 30 matching, or its confirmation cannot say how many")
	}
	memberCk := s.member(acct, "m@example.am")
	form := url.Values{"_csrf": {memberCk["_csrf"]}, "action": {"delete"}, "all": {"1"}, "filter": {"agent=ext115"}}
	if r := s.do("POST", "/app/recordings/bulk", form, memberCk); r.code != 403 {
		t.Fatalf("a member's delete of all matching: %d, want 403", r.code)
	}
	form.Set("_csrf", csrf)
	r := s.do("POST", "/app/recordings/bulk", form, ck)
	if r.code != 303 || r.header.Get("Location") != "/app/recordings?deleted=30" {
		t.Fatalf("delete all matching: %d to %q, want 303 saying 30", r.code, r.header.Get("Location"))
	}
	ctx := context.Background()
	for _, id := range append(keep, theirs) {
		if _, err := s.store.GetJob(ctx, id); err != nil {
			t.Fatalf("%s, outside the filter or the account, was deleted: %v", id, err)
		}
	}
	if got := s.do("GET", "/app/recordings?agent=ext115", nil, ck).body; strings.Contains(got, "<tr data-live-id=") {
		t.Fatal("calls of the filter remain")
	}
}

// nextPage is the address of the page after path's (its "next" link).
func nextPage(tb testing.TB, s *site, ck map[string]string, path string) string {
	tb.Helper()
	m := regexp.MustCompile(`href="([^"]+)" rel="next"`).FindStringSubmatch(s.do("GET", path, nil, ck).body)
	if m == nil {
		tb.Fatalf("%s has no next page", path)
	}
	return html.UnescapeString(m[1])
}
