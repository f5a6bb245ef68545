package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Every variable is validated at start, and the refusal names it: a zero
// interval once reached time.NewTicker and panicked, a bad log level once
// became info without a word.
func TestLoadConfigRefusesBadValuesNamingTheVariable(t *testing.T) {
	if _, err := LoadConfig(func(string) string { return "" }); err != nil {
		t.Fatalf("the defaults are refused: %v", err)
	}
	for _, tc := range []struct{ name, value, says string }{
		{"HYSCRIBE_SWEEP_INTERVAL", "0", "HYSCRIBE_SWEEP_INTERVAL"},
		{"HYSCRIBE_SWEEP_INTERVAL", "-5s", "HYSCRIBE_SWEEP_INTERVAL"},
		{"HYSCRIBE_SWEEP_INTERVAL", "soon", "HYSCRIBE_SWEEP_INTERVAL"},
		{"HYSCRIBE_RETENTION_INTERVAL", "0", "HYSCRIBE_RETENTION_INTERVAL"},
		{"HYSCRIBE_RETENTION_INTERVAL", "0s", "HYSCRIBE_RETENTION_INTERVAL"},
		{"HYSCRIBE_LOG_LEVEL", "loud", "HYSCRIBE_LOG_LEVEL"},
	} {
		_, err := LoadConfig(func(k string) string {
			if k == tc.name {
				return tc.value
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s=%q: %v, want a refusal naming %s", tc.name, tc.value, err, tc.says)
		}
	}
	for _, level := range []string{"debug", "info", "warn", "error"} {
		if _, err := LoadConfig(func(k string) string {
			if k == "HYSCRIBE_LOG_LEVEL" {
				return level
			}
			return ""
		}); err != nil {
			t.Errorf("HYSCRIBE_LOG_LEVEL=%s refused: %v", level, err)
		}
	}
}

// A refused variable stops the command before anything starts.
func TestServeRefusesAZeroSweepInterval(t *testing.T) {
	var out, errOut bytes.Buffer
	err := Run(context.Background(), []string{"serve"}, func(k string) string {
		if k == "HYSCRIBE_SWEEP_INTERVAL" {
			return "0"
		}
		return ""
	}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error()+errOut.String(), "HYSCRIBE_SWEEP_INTERVAL") {
		t.Fatalf("serve with HYSCRIBE_SWEEP_INTERVAL=0: %v (stderr %q)", err, errOut.String())
	}
}
