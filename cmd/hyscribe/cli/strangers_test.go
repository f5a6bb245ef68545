package cli_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// TestServeOnSQLiteWarnsOfAStrangerInItsGroups: a worker that takes a
// SQLite serve's embedded Kafka as its broker joins the serve's consumer
// groups (the mix the memory recipe once made, stranding jobs): the serve
// warns, naming the group and pointing at `hyscribe kafka`. Alone, it
// says nothing of the kind.
func TestServeOnSQLiteWarnsOfAStrangerInItsGroups(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two services")
	}
	start := func(vars map[string]string, roles cli.Role, stages []string) (*cli.Service, *lockedBuffer) {
		t.Helper()
		cfg, err := cli.LoadConfig(env(vars))
		if err != nil {
			t.Fatal(err)
		}
		logs := &lockedBuffer{}
		svc, err := cli.Start(context.Background(), cfg, roles, stages, logs)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = svc.Stop() })
		return svc, logs
	}
	serve, serveLog := start(map[string]string{
		"HYSCRIBE_DATA_DIR":            t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":    "2",
		"HYSCRIBE_SHUTDOWN_GRACE":      "200ms",
		"HYSCRIBE_LOG_LEVEL":           "warn",
	}, cli.RoleAPI|cli.RoleWorker, cli.AllStages)
	const warning = "another process joined a consumer group of this serve's embedded Kafka"
	waitFor(t, "the serve's own members in its enrich group", 30*time.Second, func() (bool, string) {
		return groupHasMembers(t, serve.Brokers(), "hyscribe-enrich"), "no member yet"
	})
	if strings.Contains(serveLog.String(), warning) {
		t.Fatalf("a serve alone warned of a stranger:\n%s", serveLog.String())
	}

	start(map[string]string{
		"HYSCRIBE_DATA_DIR":       t.TempDir(),
		"KAFKA_BROKERS":           strings.Join(serve.Brokers(), ","),
		"HYSCRIBE_SHUTDOWN_GRACE": "200ms",
		"HYSCRIBE_LOG_LEVEL":      "warn",
	}, cli.RoleWorker, []string{"enrich"})
	waitFor(t, "the serve's warning", 60*time.Second, func() (bool, string) {
		return strings.Contains(serveLog.String(), warning), serveLog.String()
	})
	if l := serveLog.String(); !strings.Contains(l, `"group":"hyscribe-enrich"`) || !strings.Contains(l, "hyscribe kafka") {
		t.Fatalf("the warning names no group or no remedy:\n%s", l)
	}
}

// groupHasMembers reports whether group has a member on brokers.
func groupHasMembers(t *testing.T, brokers []string, group string) bool {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	described, err := kadm.NewClient(cl).DescribeGroups(context.Background(), group)
	if err != nil {
		return false
	}
	g, ok := described[group]
	return ok && g.Err == nil && len(g.Members) > 0
}
