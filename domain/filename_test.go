package domain_test

import (
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/domain"
)

func TestCleanFilename(t *testing.T) {
	for raw, want := range map[string]string{
		"call.mp3":                        "call.mp3",
		`C:\Users\anna\զանգ 1.mp3`:        "զանգ 1.mp3",
		"/tmp/x/../y.mp3":                 "y.mp3",
		"  a\x00b\nc\u202e.mp3 ":          "abc.mp3",
		"..":                              "",
		"bad\xffutf8.mp3":                 "badutf8.mp3",
		strings.Repeat("ա", 300) + ".mp3": strings.Repeat("ա", 255),
	} {
		if got := domain.CleanFilename(raw); got != want {
			t.Errorf("CleanFilename(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestExportNameAndDisposition(t *testing.T) {
	j := domain.Job{ID: "doc1", Filename: "զանգ «Ա»; 1.mp3"}
	if got := domain.ExportName(j, domain.ExportSRT); got != "զանգ «Ա»_ 1.srt" {
		t.Errorf("ExportName = %q", got)
	}
	if got := domain.ExportName(domain.Job{ID: "doc1"}, domain.ExportTXT); got != "doc1.txt" {
		t.Errorf("ExportName without a filename = %q", got)
	}
	if got := domain.ContentDisposition("doc1.txt"); got != `attachment; filename="doc1.txt"` {
		t.Errorf("ASCII disposition = %q", got)
	}
	got := domain.ContentDisposition("զանգ 1.srt")
	if !strings.HasPrefix(got, `attachment; filename="____ 1.srt"; filename*=utf-8''%D5%A6`) {
		t.Errorf("UTF-8 disposition = %q", got)
	}
	if j := (domain.Job{Filename: "a.mp3"}); j.DisplayName() != "a.mp3" {
		t.Errorf("DisplayName without a title = %q", j.DisplayName())
	}
}
