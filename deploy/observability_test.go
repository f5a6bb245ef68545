package deploy_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// tool is the outside tool the Makefile names in the variable env
// (.ci/deps.sh installs them): set, a missing tool fails the test; unset,
// the test skips.
func tool(t *testing.T, env string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		t.Skip(env + " is not set")
	}
	path, err := exec.LookPath(p)
	if err != nil {
		t.Fatalf("%s=%s: %v", env, p, err)
	}
	return path
}

// promtool is Prometheus' tool (Debian's prometheus package).
func promtool(t *testing.T) string { t.Helper(); return tool(t, "HYSCRIBE_TEST_PROMTOOL") }

func runTool(t *testing.T, dir, bin string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, out)
	}
}

// The alert rules are valid, and fire when (and only when) their unit tests
// say: backlog growing, lag, a stage no process runs, the engine's circuit
// open, webhook failure rate.
func TestAlertRules(t *testing.T) {
	bin := promtool(t)
	runTool(t, "prometheus", bin, "check", "rules", "alerts.yaml")
	runTool(t, "prometheus", bin, "test", "rules", "alerts_test.yaml")
}

// dashboardExprs is every query of the Grafana dashboard.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("grafana/hyscribe.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		UID    string
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("grafana/hyscribe.json: %v", err)
	}
	var out []string
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			out = append(out, tg.Expr)
		}
	}
	if d.UID == "" || len(out) < 10 {
		t.Fatalf("dashboard: uid %q, %d queries", d.UID, len(out))
	}
	return out
}

// The dashboard's queries are valid PromQL (checked by promtool as
// recording rules, Grafana's $variables replaced).
func TestDashboardQueriesParse(t *testing.T) {
	bin := promtool(t)
	var rules strings.Builder
	rules.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	for i, e := range dashboardExprs(t) {
		e = strings.ReplaceAll(e, "$job", ".*")
		q, _ := json.Marshal(e)
		fmt.Fprintf(&rules, "      - record: dashboard:q%d\n        expr: %s\n", i, q)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dashboard.yaml"), []byte(rules.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	runTool(t, dir, bin, "check", "rules", "dashboard.yaml")
}

// Every metric the dashboard and the alerts read is one the service
// registers (or the client library's runtime metrics), so a renamed metric
// cannot leave them reading nothing.
func TestDashboardAndAlertsReadMetricsTheServiceHas(t *testing.T) {
	registered := map[string]bool{}
	reg := regexp.MustCompile(`\.(?:Counter|Histogram|Gauge|GaugeVec)\(\s*"([a-z_:][a-z0-9_:]*)"`)
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range reg.FindAllSubmatch(b, -1) {
			registered[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !registered["hyscribe_stage_events_total"] || !registered["http_requests_total"] {
		t.Fatalf("could not find the registered metrics: %v", registered)
	}
	rules, err := os.ReadFile("prometheus/alerts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	exprs := append(dashboardExprs(t), string(rules))
	name := regexp.MustCompile(`\b(?:hyscribe|http|process|go)_[a-z0-9_]+`)
	for _, e := range exprs {
		for _, n := range name.FindAllString(e, -1) {
			base := n
			for _, suf := range []string{"_bucket", "_count", "_sum"} {
				base = strings.TrimSuffix(base, suf)
			}
			runtime := strings.HasPrefix(n, "process_") || strings.HasPrefix(n, "go_")
			if !registered[base] && !runtime {
				t.Errorf("%s is read by the dashboard or the alerts but registered nowhere", n)
			}
		}
	}
}

// Every alert has a unit test in which it fires and one in which it does
// not, and docs/operations.md says what it means and what to do; the
// alerts an operator of the service needs are among them.
func TestEveryAlertIsTestedAndExplained(t *testing.T) {
	var rules struct {
		Groups []struct {
			Rules []struct{ Alert string }
		}
	}
	b, err := os.ReadFile("prometheus/alerts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &rules); err != nil {
		t.Fatal(err)
	}
	var tests struct {
		Tests []struct {
			AlertRuleTest []struct {
				Alertname string
				ExpAlerts []any `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
		}
	}
	b, err = os.ReadFile("prometheus/alerts_test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &tests); err != nil {
		t.Fatal(err)
	}
	fires, quiet := map[string]bool{}, map[string]bool{}
	for _, tc := range tests.Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = true
			} else {
				quiet[a.Alertname] = true
			}
		}
	}
	docs, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			have[r.Alert] = true
			if !fires[r.Alert] || !quiet[r.Alert] {
				t.Errorf("%s: alerts_test.yaml has a case where it fires: %v, where it does not: %v; want both", r.Alert, fires[r.Alert], quiet[r.Alert])
			}
			if !strings.Contains(string(docs), "`"+r.Alert+"`") {
				t.Errorf("%s is not explained in docs/operations.md", r.Alert)
			}
		}
	}
	for _, want := range []string{"HyscribeJobFailureRate", "HyscribeAPIErrors", "HyscribeAPILatency", "HyscribeInstanceDown", "HyscribeAnalyticsSinkFailing"} {
		if !have[want] {
			t.Errorf("no alert %s", want)
		}
	}
}
