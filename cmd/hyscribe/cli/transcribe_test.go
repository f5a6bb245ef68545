package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/sqlite"
	"github.com/hyscribe/hyscribe/client"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
	"github.com/hyscribe/hyscribe/domain"
)

// clientService runs the whole service on loopback and returns its
// environment, an account's ID and API key, and the service.
func clientService(t *testing.T, extra map[string]string) (map[string]string, string, string, *cli.Service) {
	t.Helper()
	vars, acct, key, svc, _ := engineService(t, extra)
	return vars, acct, key, svc
}

// engineService is clientService that also returns the fake speech engine
// the service calls.
func engineService(t *testing.T, extra map[string]string) (map[string]string, string, string, *cli.Service, *asrtest.Engine) {
	t.Helper()
	engine := asrtest.NewEngine(t)
	vars := map[string]string{
		"HYSCRIBE_DATA_DIR":            t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":    "2",
		"HYSCRIBE_ASR_URL":             engine.URL(),
		"HYSCRIBE_SHUTDOWN_GRACE":      "200ms",
		"HYSCRIBE_LOG_LEVEL":           "warn",
	}
	for k, v := range extra {
		vars[k] = v
	}
	acct := runCLI(t, env(vars), "account", "create", "--name", "sdk", "--plan", "business", "--seconds", "3600")
	svc := startService(t, vars, cli.RoleAPI|cli.RoleWorker, cli.AllStages)
	return vars, acct["accountId"].(string), acct["apiKey"].(string), svc, engine
}

// TestTranscribeCommandAndClient runs `hyscribe transcribe` against the
// real service, then exports and deletes the job through the client.
func TestTranscribeCommandAndClient(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole service")
	}
	_, _, key, svc := clientService(t, nil)
	base := "http://" + svc.HTTPAddr()
	clientEnv := env(map[string]string{"HYSCRIBE_URL": base, "HYSCRIBE_API_KEY": key})
	var out, progress bytes.Buffer
	err := cli.Run(context.Background(), []string{"transcribe", "../../../testdata/audio/call-stereo-22k.mp3",
		"--type", "phone_call", "--metadata", `{"crm":"A-1"}`, "--format", "srt", "--poll", "100ms"}, clientEnv, &out, &progress)
	if err != nil {
		t.Fatalf("transcribe: %v\n%s", err, progress.String())
	}
	srt := out.String()
	if !strings.HasPrefix(srt, "1\n00:00:") || !strings.Contains(srt, " --> ") || !strings.Contains(srt, "Խոսնակ 1: ") {
		t.Fatalf("stdout is not SRT with speakers:\n%s", srt)
	}
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	if len(lines) < 2 || !strings.Contains(lines[len(lines)-1], ": transcribed (") {
		t.Fatalf("progress on stderr:\n%s", progress.String())
	}
	docID, _, _ := strings.Cut(lines[0], ":")

	c := client.New(base, key)
	ctx := context.Background()
	j, err := c.Get(ctx, docID)
	if err != nil || j.Status != client.StatusTranscribed || string(j.Metadata) != `{"crm":"A-1"}` {
		t.Fatalf("get: %+v %v", j, err)
	}
	doc, err := c.Export(ctx, docID, client.FormatJSON)
	var parsed struct {
		Segments []json.RawMessage `json:"segments"`
		Words    []json.RawMessage `json:"words"`
	}
	if err != nil || json.Unmarshal(doc, &parsed) != nil || len(parsed.Segments) == 0 || len(parsed.Words) == 0 {
		t.Fatalf("json export %s: %v", doc, err)
	}
	if err := c.Delete(ctx, docID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, docID); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("get after delete: %v", err)
	}
	if _, err := c.Export(ctx, docID, client.FormatSRT); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("export after delete: %v", err)
	}
	if err := c.Delete(ctx, docID); err != nil {
		t.Fatalf("a repeated delete: %v", err)
	}

	// Bad input is refused before anything is created.
	for _, args := range [][]string{
		{"transcribe", "x.mp3"},
		{"transcribe", "x.mp3", "--type", "video"},
		{"transcribe", "--type", "single_voice"},
		{"transcribe", "x.mp3", "--type", "single_voice", "--format", "docx"},
		{"transcribe", "x.mp3", "--type", "single_voice", "--metadata", "{"},
	} {
		if err := cli.Run(ctx, args, clientEnv, &out, &progress); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
	if err := cli.Run(ctx, []string{"transcribe", "x.mp3", "--type", "single_voice"}, env(nil), &out, &progress); err == nil || !strings.Contains(err.Error(), "HYSCRIBE_URL") {
		t.Errorf("without HYSCRIBE_URL: %v", err)
	}
}

// TestRetentionDeletesOldJobs sets an account's retention and checks that
// the running service deletes its old job, keeps its young one, and
// publishes job.deleted.
func TestRetentionDeletesOldJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole service")
	}
	vars, acctID, _, svc := clientService(t, map[string]string{"HYSCRIBE_RETENTION_INTERVAL": "100ms"})
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(vars["HYSCRIBE_DATA_DIR"], "hyscribe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now()
	for id, age := range map[string]time.Duration{"old": 10 * 24 * time.Hour, "young": time.Hour} {
		j, evs := domain.NewJob(domain.DocID(id), domain.AccountID(acctID), domain.CreateRequest{Type: domain.TypeSingleVoice}, now.Add(-age), time.Hour)
		if err := st.CreateJob(ctx, j, evs); err != nil {
			t.Fatal(err)
		}
	}
	out := runCLI(t, env(vars), "account", "update", "--account", acctID, "--retention-days", "7")
	if out["retentionDays"] != 7.0 {
		t.Fatalf("account update printed %v", out)
	}
	waitFor(t, "the job older than the retention deleted", 30*time.Second, func() (bool, string) {
		_, err := st.GetJob(ctx, "old")
		return errors.Is(err, domain.ErrNotFound), fmt.Sprint(err)
	})
	tomb, err := st.GetTombstone(ctx, "old")
	if err != nil || tomb.Reason != domain.DeletedByRetention {
		t.Fatalf("tombstone %+v %v", tomb, err)
	}
	if _, err := st.GetJob(ctx, "young"); err != nil {
		t.Fatalf("the young job: %v", err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(svc.Brokers()...), kgo.ConsumeTopics(domain.TopicJobDeleted),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	pctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for {
		var got *domain.Event
		cl.PollFetches(pctx).EachRecord(func(r *kgo.Record) {
			ev, err := domain.ParseEvent(r.Topic, r.Value)
			if err == nil && ev.DocID == "old" {
				got = &ev
			}
		})
		if got != nil {
			var data domain.JobDeletedData
			if err := got.DecodeData(&data); err != nil || got.Type != "job.deleted" || data.Reason != domain.DeletedByRetention {
				t.Fatalf("job.deleted event %+v %v", got, err)
			}
			return
		}
		if pctx.Err() != nil {
			t.Fatal("no job.deleted event on Kafka")
		}
	}
}
