package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// An operator sets an account's time zone and agent channel, as its
// owner can in Settings; a zone this binary does not know is refused.
func TestAccountZoneAndAgentChannel(t *testing.T) {
	getenv := env(map[string]string{"HYSCRIBE_DATA_DIR": t.TempDir()})
	acct := runCLI(t, getenv, "account", "create", "--name", "qa", "--plan", "business", "--seconds", "60")["accountId"].(string)
	got := runCLI(t, getenv, "account", "update", "--account", acct, "--time-zone", "Asia/Tokyo", "--agent-channel", "left")
	if got["timeZone"] != "Asia/Tokyo" || got["agentChannel"] != "left" {
		t.Fatalf("account update printed %v", got)
	}
	var out, errb bytes.Buffer
	err := cli.Run(context.Background(), []string{"account", "update", "--account", acct, "--time-zone", "Mars/Olympus"}, getenv, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "Mars/Olympus") {
		t.Fatalf("an unknown zone: %v", err)
	}
	err = cli.Run(context.Background(), []string{"account", "update", "--account", acct, "--agent-channel", "middle"}, getenv, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "middle") {
		t.Fatalf("an unknown channel: %v", err)
	}
}
