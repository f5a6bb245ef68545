package deploy_test

import (
	"bytes"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// lintCompose is what `docker compose config` cannot tell us here: every
// image pinned to a version (ours is built from ../Dockerfile), a
// healthcheck on every long-running service, every one-off service
// awaited, and no secret with a default (${VAR:?…}, never ${VAR:-…}).
func lintCompose(raw []byte) []string {
	var doc struct {
		Services map[string]map[string]any `yaml:"services"`
	}
	if err := yaml.NewDecoder(bytes.NewReader(raw)).Decode(&doc); err != nil {
		return []string{err.Error()}
	}
	var problems []string
	awaited := map[string]bool{}
	for _, svc := range doc.Services {
		deps, _ := svc["depends_on"].(map[string]any)
		for name, d := range deps {
			if dig(d, "condition") == "service_completed_successfully" {
				awaited[name] = true
			}
		}
	}
	for name, svc := range doc.Services {
		img, _ := svc["image"].(string)
		if svc["build"] == nil && !pinned(img) {
			problems = append(problems, name+": image "+img+" is not pinned to a version")
		}
		if svc["restart"] == "no" {
			if !awaited[name] {
				problems = append(problems, name+": a one-off service no other service waits for")
			}
			continue
		}
		test := strs(dig(svc, "healthcheck", "test"))
		if dig(svc, "healthcheck", "disable") == true || len(test) < 2 || (test[0] != "CMD" && test[0] != "CMD-SHELL") {
			problems = append(problems, name+": no healthcheck")
		}
	}
	for _, m := range regexp.MustCompile(`\$\{([A-Z0-9_]+)(:?[-?])?`).FindAllSubmatch(raw, -1) {
		name, op := string(m[1]), string(m[2])
		if regexp.MustCompile(`PASSWORD|SECRET|ROOT_USER`).MatchString(name) && op != ":?" {
			problems = append(problems, "${"+name+"} has a default or may be empty: use ${"+name+":?…}")
		}
	}
	sort.Strings(problems)
	return problems
}

func TestComposeLint(t *testing.T) {
	raw, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if p := lintCompose(raw); len(p) > 0 {
		t.Fatalf("compose.yaml:\n%s", strings.Join(p, "\n"))
	}
	services, _ := yamlDocs(t, "compose.yaml")[0]["services"].(map[string]any)
	if dig(services, "worker", "depends_on", "speaches", "condition") != "service_healthy" ||
		dig(services, "speaches", "depends_on", "speaches-model", "condition") != "service_completed_successfully" {
		t.Error("the workers do not wait for a speech engine whose model is downloaded")
	}

	// The lint has teeth: what compose.yaml once had is caught.
	for what, broken := range map[string]string{
		"an unpinned engine":       strings.Replace(string(raw), "speaches:0.8.3-cpu", "speaches:latest-cpu", 1),
		"a disabled healthcheck":   strings.Replace(string(raw), `test: ["CMD", "/usr/local/bin/hyscribe", "probe", "http://127.0.0.1:8080/readyz"]`, "disable: true", 1),
		"a default password":       strings.Replace(string(raw), "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}@", "${POSTGRES_PASSWORD:-hyscribe}@", 1),
		"an upload secret default": strings.Replace(string(raw), "${HYSCRIBE_UPLOAD_SECRET:?", "${HYSCRIBE_UPLOAD_SECRET:-", 1),
	} {
		if broken == string(raw) {
			t.Fatalf("%s: the mutation did not apply", what)
		}
		if len(lintCompose([]byte(broken))) == 0 {
			t.Errorf("the lint passes %s", what)
		}
	}
}
