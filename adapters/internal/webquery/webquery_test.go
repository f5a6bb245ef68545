package webquery

import (
	"testing"

	"github.com/hyscribe/hyscribe/ports"
)

func TestContains(t *testing.T) {
	for in, want := range map[string]string{
		"ԲԱՐԵՒ Ձեզ": "բարեվ ձեզ",
		"100%":      `100\%`,
		"a_b":       `a\_b`,
		`C:\Temp`:   `c:\\temp`,
		`\%_`:       `\\\%\_`,
		"'":         "'",
	} {
		if got := Contains(in); got != want {
			t.Errorf("Contains(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPage(t *testing.T) {
	for _, c := range []struct{ limit, offset, wantLimit, wantOffset int }{
		{0, 0, DefaultPageSize, 0},
		{-3, -1, DefaultPageSize, 0},
		{20, 40, 20, 40},
		{MaxPageSize + 1, 0, MaxPageSize, 0},
	} {
		l, o := Page(ports.JobQuery{Limit: c.limit, Offset: c.offset})
		if l != c.wantLimit || o != c.wantOffset {
			t.Errorf("Page(limit %d, offset %d) = %d, %d; want %d, %d", c.limit, c.offset, l, o, c.wantLimit, c.wantOffset)
		}
	}
}

func TestUserColumn(t *testing.T) {
	for by, want := range map[ports.UserKey]string{
		{ID: "u"}:         "id",
		{Email: "a@b.am"}: "email",
		{InviteHash: "h"}: "invite_hash",
	} {
		col, _, err := UserColumn(by)
		if err != nil || col != want {
			t.Errorf("UserColumn(%+v) = %q, %v; want %q", by, col, err, want)
		}
	}
	for _, by := range []ports.UserKey{{}, {ID: "u", Email: "a@b.am"}, {Email: "a@b.am", InviteHash: "h"}} {
		if _, _, err := UserColumn(by); err == nil {
			t.Errorf("UserColumn(%+v) succeeded", by)
		}
	}
}
