package web_test

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/web"
)

// TestBulkActionsStayInTheAccount: a bulk export or deletion naming
// another account's recording leaves it out and untouched; members may
// export but not delete.
func TestBulkActionsStayInTheAccount(t *testing.T) {
	s := newSite(t, web.Config{})
	ck, csrf, acct := s.signUp("a@example.am")
	_, _, other := s.signUp("b@example.am")
	mine := s.job(acct, "Պատվեր", []byte("x"), `{}`)
	theirs := s.job(other, "Ուրիշինը", []byte("x"), `{}`)
	form := func(action string) url.Values {
		return url.Values{"_csrf": {csrf}, "action": {action}, "format": {"txt"}, "doc": {string(mine), string(theirs)}}
	}

	r := s.do("POST", "/app/recordings/bulk", form("export"), ck)
	if r.code != 200 || r.header.Get("Content-Type") != "application/zip" {
		t.Fatalf("export: %d %s", r.code, r.header.Get("Content-Type"))
	}
	zr, err := zip.NewReader(strings.NewReader(r.body), int64(len(r.body)))
	if err != nil {
		t.Fatal(err)
	}
	var csv []byte
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if f.Name == "scores.csv" {
			rc, _ := f.Open()
			csv, _ = io.ReadAll(rc)
			rc.Close()
		}
	}
	if len(names) != 2 || names[0] != string(mine)+".txt" || bytes.Contains(csv, []byte(theirs)) || !bytes.Contains(csv, []byte(mine)) {
		t.Fatalf("the ZIP holds %q and scores.csv:\n%s", names, csv)
	}

	memberCk := s.member(acct, "m@example.am")
	mf := form("delete")
	mf.Set("_csrf", memberCk["_csrf"])
	if r := s.do("POST", "/app/recordings/bulk", mf, memberCk); r.code != 403 {
		t.Fatalf("a member's bulk delete: %d, want 403", r.code)
	}
	r = s.do("POST", "/app/recordings/bulk", form("delete"), ck)
	if r.code != 303 || r.header.Get("Location") != "/app/recordings?deleted=1" {
		t.Fatalf("delete: %d to %q, want 303 to the history saying 1", r.code, r.header.Get("Location"))
	}
	if _, err := s.store.GetJob(context.Background(), mine); err == nil {
		t.Fatal("the chosen recording is still there")
	}
	if _, err := s.store.GetJob(context.Background(), theirs); err != nil {
		t.Fatalf("another account's recording was touched: %v", err)
	}
	if _, err := s.store.GetTombstone(context.Background(), mine); err != nil {
		t.Fatalf("a deletion from the web leaves no tombstone, unlike the API's: %v", err)
	}
}
