package app_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// storeWords are what a store's driver says about itself: none may reach a
// job's error, which the customer reads.
var storeWords = []string{"postgres", "sqlite", "pgx", "127.0.0.1", "5432", "user=", "database=", "dial tcp", "connection refused", "SQLSTATE", "disk I/O"}

// TestGiveUpReasonNeverCarriesStoreText: whatever chain a stage's last
// error is, the job's error is a sentence of the fixed set (a failure of
// failures.go, the speech engine's failure, or the internal failure), and
// no store's or driver's words are in it — not even when the store's
// error went through the speech engine's path (an engine slot leased in
// the store) or was marked permanent by mistake.
func TestGiveUpReasonNeverCarriesStoreText(t *testing.T) {
	down := fmt.Errorf("postgres.UpdateJob: %w: failed to connect to user=postgres database=hyscribe: 127.0.0.1:5432 (dial tcp 127.0.0.1:5432: connect: connection refused)", domain.ErrStoreDown)
	plain := fmt.Errorf("postgres.UpdateJob: %w: pgx: SQLSTATE 08006", domain.ErrUnavailable)
	engine := fmt.Errorf("speech engine unavailable after 4 attempts: 503 Service Unavailable: %w", domain.ErrUnavailable)
	cases := []struct {
		err  error
		want string // the reason, or its failure code
	}{
		{fmt.Errorf("transcribe: %w", down), "internal"},
		{down, "internal"},
		{plain, "internal"},
		{fmt.Errorf("transcribe: %w", plain), "internal"},
		{errors.New("sqlite: disk I/O error"), "internal"},
		{domain.SpeechFailed(fmt.Errorf("engine slot: %w", down)), "internal"},
		{domain.Permanent(down), "internal"},
		{errors.Join(domain.ErrUnavailable, errors.New("postgres: conn closed")), "internal"},
		{fmt.Errorf("transcribe: %w", domain.SpeechFailed(engine)), "speech_failed"},
		{fmt.Errorf("process: %w", domain.ErrEmptyFile), "file_empty"},
		{fmt.Errorf("process: save: %w", domain.TooLong(5*3600, 4*3600e9)), "too_long"},
	}
	for _, c := range cases {
		reason := app.GiveUpReason("transcribe", c.err)
		if code := domain.JobFailure(reason).Code; code != c.want {
			t.Errorf("%v\n  gave %q (%s), want a reason of code %s", c.err, reason, code, c.want)
		}
		for _, w := range storeWords {
			if strings.Contains(reason, w) {
				t.Errorf("%v\n  gave %q, which carries the store's %q", c.err, reason, w)
			}
		}
		if strings.HasPrefix(reason, "transcribe:") || strings.HasPrefix(reason, "process:") {
			t.Errorf("%q carries the stage's wrapping", reason)
		}
	}
	// The analysis's reason too.
	for _, err := range []error{down, fmt.Errorf("analyze: %w", down)} {
		reason := app.AnalysisGiveUpReason(err)
		for _, w := range storeWords {
			if strings.Contains(reason, w) {
				t.Errorf("analysis reason %q carries %q", reason, w)
			}
		}
	}
}
