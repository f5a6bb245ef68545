package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// TestProvisioningSaysWhichStoreAndMakesNoneUnasked: from a directory
// without the service's store, provisioning refuses, naming the path and
// the way out, and makes no file; --create-store makes it and says so;
// later commands name the store they used.
func TestProvisioningSaysWhichStoreAndMakesNoneUnasked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	getenv := env(map[string]string{"HYSCRIBE_DATA_DIR": dir})
	run := func(args ...string) (string, string, error) {
		var out, errb bytes.Buffer
		err := cli.Run(context.Background(), args, getenv, &out, &errb)
		return out.String(), errb.String(), err
	}
	db := filepath.Join(dir, "hyscribe.db")
	_, _, err := run("account", "create", "--name", "x", "--plan", "business", "--seconds", "60")
	if err == nil || !strings.Contains(err.Error(), "no store at "+db) || !strings.Contains(err.Error(), "--create-store") {
		t.Fatalf("account create without a store: %v", err)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("the refused command left %s behind: %v", db, err)
	}
	for _, args := range [][]string{{"checklist", "list", "--account", "a"}, {"user", "reset-link", "--email", "x@example.am"}, {"job", "show", "--doc", "d"}} {
		if _, _, err := run(args...); err == nil || !strings.Contains(err.Error(), "no store at") {
			t.Errorf("%v without a store: %v", args, err)
		}
	}
	out, stderr, err := run("account", "create", "--name", "x", "--plan", "business", "--seconds", "60", "--create-store")
	if err != nil || !strings.Contains(stderr, "creating a new SQLite store "+db) {
		t.Fatalf("--create-store: %v, stderr %q", err, stderr)
	}
	var acct map[string]string
	if err := json.Unmarshal([]byte(out), &acct); err != nil {
		t.Fatal(err)
	}
	out, stderr, err = run("account", "update", "--account", acct["accountId"], "--generate-webhook-secret")
	if err != nil || !strings.Contains(stderr, "using the SQLite store "+db) {
		t.Fatalf("account update: %v, stderr %q", err, stderr)
	}
	var updated map[string]any
	if err := json.Unmarshal([]byte(out), &updated); err != nil {
		t.Fatal(err)
	}
	if s, _ := updated["webhookSecret"].(string); !strings.HasPrefix(s, "whsec_") || len(s) < 40 || updated["webhookSecretSet"] != true {
		t.Fatalf("--generate-webhook-secret printed %v", updated)
	}
	// Printed once: an update without it shows only that a secret is set.
	out, _, _ = run("account", "update", "--account", acct["accountId"], "--name", "y")
	if strings.Contains(out, "whsec_") || !strings.Contains(out, `"webhookSecretSet":true`) {
		t.Fatalf("a later update printed %s", out)
	}
	if _, _, err := run("account", "update", "--account", acct["accountId"], "--generate-webhook-secret", "--webhook-secret", "s3cret"); err == nil ||
		cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), `"s3cret"`) {
		t.Fatalf("both secret flags: %v", err)
	}
}

// TestUsageErrorsNameTheBadValue: a usage error (exit 2) quotes what was
// given.
func TestUsageErrorsNameTheBadValue(t *testing.T) {
	getenv := env(map[string]string{"HYSCRIBE_DATA_DIR": t.TempDir()})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"account", "delete"}, `"delete"`},
		{[]string{"checklist", "remove"}, `"remove"`},
		{[]string{"user", "promote"}, `"promote"`},
		{[]string{"job", "list"}, `"list"`},
		{[]string{"report", "daily"}, `"daily"`},
		{[]string{"account", "create", "--seconds", "lots", "--create-store"}, `"lots"`},
		{[]string{"account", "update", "--account", "a", "--notify-failures", "maybe", "--create-store"}, `"maybe"`},
		{[]string{"transcribe", "x.mp3", "--type", "single_voice", "--format", "docx"}, `"docx"`},
		{[]string{"transcribe", "x.mp3", "--type", "video"}, `"video"`},
	} {
		err := cli.Run(context.Background(), tc.args, getenv, &bytes.Buffer{}, &bytes.Buffer{})
		if cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("hyscribe %s: %v (exit %d), want a usage error naming %s", strings.Join(tc.args, " "), err, cli.ExitCode(err), tc.want)
		}
	}
}
