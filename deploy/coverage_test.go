package deploy_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/app"
)

// stagesRun is the set of stages one hyscribe process runs, from its
// command line: serve and a worker without --stages run every stage, api
// none.
func stagesRun(args, all []string) []string {
	if len(args) == 0 {
		return nil
	}
	switch args[0] {
	case "serve":
		return all
	case "worker":
		i := slices.Index(args, "--stages")
		if i < 0 || i+1 >= len(args) {
			return all
		}
		var out []string
		for _, s := range strings.Split(args[i+1], ",") {
			out = append(out, strings.TrimSpace(s))
		}
		return out
	}
	return nil
}

// missingStages is what no process of a deployment runs.
func missingStages(procs [][]string, all []string) []string {
	run := map[string]bool{}
	for _, args := range procs {
		for _, s := range stagesRun(args, all) {
			run[s] = true
		}
	}
	var out []string
	for _, s := range all {
		if !run[s] {
			out = append(out, s)
		}
	}
	return out
}

// deployments lists, per deploy file set, the command line of every
// hyscribe process it starts (migrations included: they run no stage).
func deployments(t *testing.T) map[string][][]string {
	t.Helper()
	out := map[string][][]string{}
	services, _ := yamlDocs(t, "compose.yaml")[0]["services"].(map[string]any)
	for name, svc := range services {
		if dig(svc, "image") == "hyscribe:local" {
			out["compose.yaml"] = append(out["compose.yaml"], strs(dig(services, name, "command")))
		}
	}
	files, err := filepath.Glob("k8s/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	for _, f := range files {
		for _, doc := range yamlDocs(t, f) {
			for _, list := range []string{"initContainers", "containers"} {
				for i := 0; ; i++ {
					c := dig(doc, "spec", "template", "spec", list, i)
					if c == nil {
						break
					}
					if img, _ := dig(c, "image").(string); img == "hyscribe" {
						out["k8s/"] = append(out["k8s/"], strs(dig(c, "args")))
					}
				}
			}
		}
	}
	if len(out["compose.yaml"]) < 3 || len(out["k8s/"]) < 3 {
		t.Fatalf("found too few hyscribe processes: %v", out)
	}
	return out
}

// The production topology once ran no analyze or analytics stage, so
// phone calls with a checklist were never analysed. Every stage the binary
// has must run in some process of every deployment.
func TestDeploymentsRunEveryStage(t *testing.T) {
	all := app.StageNames()
	if len(all) < 7 {
		t.Fatalf("app.StageNames() = %v: too few to be the pipeline", all)
	}
	for file, procs := range deployments(t) {
		if miss := missingStages(procs, all); len(miss) > 0 {
			t.Errorf("%s: no process runs stage(s) %v (processes: %v)", file, miss, procs)
		}
	}
}

// A stage added to the binary later fails the test above until a
// deployment runs it.
func TestDeploymentCoverageCatchesANewStage(t *testing.T) {
	all := append(app.StageNames(), "a-stage-added-later")
	for file, procs := range deployments(t) {
		if miss := missingStages(procs, all); !slices.Equal(miss, []string{"a-stage-added-later"}) {
			t.Errorf("%s: missing %v, want only the new stage", file, miss)
		}
	}
	// And an old topology is caught too.
	old := [][]string{{"api"}, {"worker", "--stages", "uploads,process,transcribe,enrich,notify"}, {"migrate"}}
	if miss := missingStages(old, app.StageNames()); !slices.Equal(miss, []string{"analyze", "analytics"}) {
		t.Errorf("the old topology misses %v, want [analyze analytics]", miss)
	}
}
