package cli_test

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/postgres"
	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/adapters/sqlite"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// BenchmarkPoll is getTranscription through a real service in this process
// (API role), over loopback, keys of one account rotated so the rate limit
// never refuses: on the embedded SQLite store and on Postgres. Its point is
// the profile (`-cpuprofile`, `-memprofile`) of the poll path, kept in
// docs/performance.md; wrk's figures come from `make bench`.
func BenchmarkPoll(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchPoll(b, "") })
	b.Run("postgres", func(b *testing.B) { benchPoll(b, pgtest.WithApplicationName(b, pgtest.URL(b), pollBenchApp)) })
}

// pollBenchApp names the service's Postgres connections, whose server
// processes' CPU the benchmark reports per poll (pg-µs/op).
const pollBenchApp = "hyscribe_pollbench"

func benchPoll(b *testing.B, dbURL string) {
	const keys = 2000
	dir := b.TempDir()
	vars := map[string]string{
		"HYSCRIBE_DATA_DIR":            dir,
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_SHUTDOWN_GRACE":      "1s",
		"HYSCRIBE_LOG_LEVEL":           "error",
		"DATABASE_URL":                 dbURL,
	}
	cfg, err := cli.LoadConfig(env(vars))
	if err != nil {
		b.Fatal(err)
	}
	svc, err := cli.Start(context.Background(), cfg, cli.RoleAPI, nil, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { svc.Stop() })
	ctx := context.Background()
	var store interface {
		ports.AccountStore
		ports.ChecklistStore
		Close() error
	}
	if dbURL != "" {
		store, err = postgres.Open(ctx, dbURL)
	} else {
		store, err = sqlite.Open(ctx, filepath.Join(dir, "hyscribe.db"))
	}
	if err != nil {
		b.Fatal(err)
	}
	acct, first, err := app.NewCreateAccount(store, ports.SystemClock{}).Handle(ctx, "bench", domain.PlanBusiness, 600)
	if err != nil {
		b.Fatal(err)
	}
	raw := []string{first}
	for len(raw) < keys {
		k, _, err := app.NewCreateAPIKey(store, ports.SystemClock{}).Handle(ctx, acct.ID, domain.RoleOwner)
		if err != nil {
			b.Fatal(err)
		}
		raw = append(raw, k)
	}
	store.Close()
	api := svc.HTTPAddr()
	req, _ := http.NewRequest("POST", "http://"+api+"/api/createTranscription", strings.NewReader(`{"type":"single_voice"}`))
	req.Header.Set("Authorization", "Bearer "+first)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	docID := between(string(body), `"docId":"`, `"`)
	if res.StatusCode != 200 || docID == "" {
		b.Fatalf("create: %d %s", res.StatusCode, body)
	}
	url := "http://" + api + "/api/getTranscription?docId=" + docID
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var next atomic.Int64
	var cpu0 time.Duration
	var measured bool
	if dbURL != "" {
		cpu0, measured = pgtest.ServerCPU(b, dbURL, pollBenchApp)
	}
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("GET", url, nil)
			req.Header.Set("Authorization", "Bearer "+raw[next.Add(1)%keys])
			res, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				b.Errorf("poll answered %d", res.StatusCode)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	if measured {
		if cpu1, ok := pgtest.ServerCPU(b, dbURL, pollBenchApp); ok {
			b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(b.N), "pg-µs/op")
		}
	}
}

func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}
