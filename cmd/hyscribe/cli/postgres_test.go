package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hyscribe/adapters/postgres/pgtest"
	"hyscribe/cmd/hyscribe/cli"
)

func TestMigrateCommand(t *testing.T) {
	for name, vars := range map[string]map[string]string{
		"sqlite":   {"HYSCRIBE_DATA_DIR": t.TempDir()},
		"postgres": {"HYSCRIBE_DATA_DIR": t.TempDir(), "DATABASE_URL": "postgres"},
	} {
		t.Run(name, func(t *testing.T) {
			if vars["DATABASE_URL"] != "" {
				vars["DATABASE_URL"] = pgtest.URL(t)
			}
			for range 2 { // the second run finds nothing to do
				out := runCLI(t, env(vars), "migrate")
				if out["store"] != name || out["schema"] != "up to date" {
					t.Fatalf("hyscribe migrate printed %v", out)
				}
			}
			// The migrated store is usable by the provisioning commands.
			runCLI(t, env(vars), "account", "create", "--name", "m", "--plan", "business", "--seconds", "1")
		})
	}
}

// TestRateLimitSharedByAPIReplicas runs two API processes on one Postgres
// and one Kafka cluster and polls through both in turn: the 60-a-minute
// poll limit of a key holds across them, so the 61st poll of the minute, and
// only it, is refused.
func TestRateLimitSharedByAPIReplicas(t *testing.T) {
	base := map[string]string{
		"DATABASE_URL":                 pgtest.URL(t), // skips without Postgres
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":    "2",
		"HYSCRIBE_UPLOAD_SECRET":       "shared-upload-secret",
		"HYSCRIBE_SHUTDOWN_GRACE":      "200ms",
		"HYSCRIBE_LOG_LEVEL":           "warn",
	}
	logs, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	start := func(vars map[string]string) *cli.Service {
		t.Helper()
		vars["HYSCRIBE_DATA_DIR"] = t.TempDir()
		cfg, err := cli.LoadConfig(env(vars))
		if err != nil {
			t.Fatal(err)
		}
		svc, err := cli.Start(context.Background(), cfg, cli.RoleAPI, nil, logs)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Stop() })
		return svc
	}
	first := start(maps.Clone(base)) // with the embedded Kafka cluster
	second := maps.Clone(base)
	second["KAFKA_BROKERS"] = strings.Join(first.Brokers(), ",")
	replicas := []*cli.Service{first, start(second)}

	acct := runCLI(t, env(base), "account", "create", "--name", "replicas", "--plan", "business", "--seconds", "60")
	key := acct["apiKey"].(string)

	// All 61 polls must fall in one wall-clock minute.
	if left := time.Until(time.Now().Truncate(time.Minute).Add(time.Minute)); left < 15*time.Second {
		time.Sleep(left + 100*time.Millisecond)
	}
	var statuses []int
	for i := range 61 {
		req, _ := http.NewRequest("GET", "http://"+replicas[i%2].HTTPAddr()+"/api/getTranscription?docId=missing", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		body.ReadFrom(resp.Body)
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
		if resp.StatusCode == http.StatusTooManyRequests {
			var e struct{ Code string }
			json.Unmarshal(body.Bytes(), &e)
			if e.Code != "rate_limited" || resp.Header.Get("Retry-After") == "" {
				t.Fatalf("429 without its code or Retry-After: %s %v", body.String(), resp.Header)
			}
		}
	}
	refused := 0
	for i, st := range statuses {
		switch {
		case st == http.StatusTooManyRequests:
			refused++
			if i != 60 {
				t.Fatalf("poll %d refused; statuses %v", i+1, statuses)
			}
		case st != http.StatusNotFound:
			t.Fatalf("poll %d answered %d; statuses %v", i+1, st, statuses)
		}
	}
	if refused != 1 {
		t.Fatalf("%d polls refused across two replicas, want exactly 1 (the 61st); statuses %v", refused, statuses)
	}
}
