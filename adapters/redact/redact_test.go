package redact

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestSecretsAreRemovedAndTheRestKept(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/app/invite/AbC-123_x", "/app/invite/[redacted]"},
		{"/app/reset/tok123/", "/app/reset/[redacted]/"},
		{"/app/recordings/doc1", "/app/recordings/doc1"},
		{"http://h/upload/doc1?expires=17&signature=abcd", "http://h/upload/doc1?expires=[redacted]&signature=[redacted]"},
		{`Post "https://hooks.example/h?token=s3cret&x=1": dial tcp: refused`, `Post "https://hooks.example/h?token=[redacted]&x=[redacted]": dial tcp: refused`},
		{"postgres://app:pa55@db:5432/x", "postgres://[redacted]@db:5432/x"},
		{"key hsk_0123456789abcdefABCDEF0123456789abcdefAB used", "key hsk_[redacted] used"},
		{"secret whsec_c2VjcmV0+/= set", "secret whsec_[redacted] set"},
		{"Authorization: Bearer abc.def", "Authorization: Bearer [redacted]"},
		{"job doc1 transcribed in 2s", "job doc1 transcribed in 2s"},
	} {
		if got := Secrets(tc.in); got != tc.want {
			t.Errorf("Secrets(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestReplaceAttrCoversMessagesErrorsAndGroups(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: ReplaceAttr}))
	log.Info("opened /app/reset/TOKEN1", "path", "/app/invite/TOKEN2", "err", errors.New("get http://x/?k=TOKEN3"),
		slog.Group("g", "url", "http://u:TOKEN4@h/"))
	out := buf.String()
	for _, secret := range []string{"TOKEN1", "TOKEN2", "TOKEN3", "TOKEN4"} {
		if strings.Contains(out, secret) {
			t.Errorf("the log line holds %s: %s", secret, out)
		}
	}
	if strings.Count(out, Mark) != 4 {
		t.Errorf("want 4 redactions: %s", out)
	}
}
