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

func TestChecklistCommands(t *testing.T) {
	dir := t.TempDir()
	getenv := env(map[string]string{"HYSCRIBE_DATA_DIR": dir})
	acct := runCLI(t, getenv, "account", "create", "--name", "qa", "--plan", "business", "--seconds", "60")["accountId"].(string)
	v1 := filepath.Join(dir, "v1.json")
	v2 := filepath.Join(dir, "v2.json")
	if err := os.WriteFile(v1, []byte(`{"name":"Որակ","questions":[{"id":"greet","text":"Ողջունե՞ց","expect":["բարև"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(v2, []byte(`{"name":"Որակ 2","questions":[{"id":"greet","text":"Ողջունե՞ց"},{"id":"bye","text":"Հրաժեշտ","weight":2}]}`), 0o600); err != nil {
		t.Fatal(err)
	}

	created := runCLI(t, getenv, "checklist", "create", "--account", acct, "--file", v1)
	id := created["checklistId"].(string)
	if len(created) != 1 {
		t.Fatalf("checklist create printed %v, want only checklistId (docs/architecture.md, Operating contract)", created)
	}
	if got := runCLI(t, getenv, "checklist", "update", "--account", acct, "--checklist", id, "--file", v2); got["version"] != float64(2) {
		t.Fatalf("update: %v", got)
	}
	if got := runCLI(t, getenv, "checklist", "show", "--account", acct, "--checklist", id, "--version", "1"); got["name"] != "Որակ" {
		t.Fatalf("show v1: %v", got)
	}
	if got := runCLI(t, getenv, "checklist", "show", "--account", acct, "--checklist", id); got["name"] != "Որակ 2" || len(got["questions"].([]any)) != 2 {
		t.Fatalf("show latest: %v", got)
	}
	runCLI(t, getenv, "checklist", "archive", "--account", acct, "--checklist", id)

	var out, errb bytes.Buffer
	if err := cli.Run(context.Background(), []string{"checklist", "list", "--account", acct}, getenv, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	var list []map[string]any
	if err := json.Unmarshal(out.Bytes(), &list); err != nil || len(list) != 1 || list[0]["archived"] != true || list[0]["version"] != float64(2) {
		t.Fatalf("list: %s %v", out.String(), err)
	}
	err := cli.Run(context.Background(), []string{"checklist", "update", "--account", acct, "--checklist", id, "--file", v1}, getenv, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "archived") {
		t.Fatalf("editing an archived checklist: %v", err)
	}
	err = cli.Run(context.Background(), []string{"report", "checklist", "--account", acct, "--checklist", id, "--from", "2026-01-01", "--to", "2026-02-01"}, getenv, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "CLICKHOUSE_DSN") {
		t.Fatalf("report without ClickHouse: %v", err)
	}
}
