package cli_test

import (
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// TestMailAndTrialSettings: HYSCRIBE_SMTP_URL and HYSCRIBE_TRIAL_SECONDS
// are read, and a bad value stops the start naming its variable.
func TestMailAndTrialSettings(t *testing.T) {
	cfg, err := cli.LoadConfig(env(map[string]string{
		"HYSCRIBE_SMTP_URL": "smtp://relay.example.am:587?from=hyscribe@example.am", "HYSCRIBE_TRIAL_SECONDS": "3600"}))
	if err != nil || cfg.SMTPURL == "" || cfg.TrialSeconds != 3600 {
		t.Fatalf("good values: %+v, %v", cfg.SMTPURL, err)
	}
	if cfg, err := cli.LoadConfig(env(nil)); err != nil || cfg.SMTPURL != "" || cfg.TrialSeconds != 0 {
		t.Fatalf("defaults: %q %v %v", cfg.SMTPURL, cfg.TrialSeconds, err)
	}
	for name, vars := range map[string]map[string]string{
		"HYSCRIBE_SMTP_URL":      {"HYSCRIBE_SMTP_URL": "smtp://relay.example.am"}, // no ?from=
		"HYSCRIBE_TRIAL_SECONDS": {"HYSCRIBE_TRIAL_SECONDS": "-5"},
	} {
		if _, err := cli.LoadConfig(env(vars)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%v: %v, want an error naming %s", vars, err, name)
		}
	}
}
