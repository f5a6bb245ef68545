package cli

import (
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/app"
)

// Every stage of the pipeline can be built, and nothing else.
func TestEveryStageHasABuilder(t *testing.T) {
	for _, st := range app.Pipeline {
		if stageBuilders[st.Name] == nil {
			t.Errorf("stage %s has no builder", st.Name)
		}
	}
	if len(stageBuilders) != len(app.Pipeline) {
		t.Errorf("%d builders for %d stages", len(stageBuilders), len(app.Pipeline))
	}
}

func TestParseStages(t *testing.T) {
	got, err := parseStages(" process, notify ,")
	if err != nil || len(got) != 2 || got[0] != app.StageProcess || got[1] != app.StageNotify {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := parseStages("process,nope"); err == nil {
		t.Fatal("an unknown stage was accepted")
	}
	if _, err := parseStages(" , "); err == nil {
		t.Fatal("no stage was accepted")
	}
}

// The usage lists the stages a worker can run from app.Pipeline.
func TestUsageListsThePipelinesStages(t *testing.T) {
	if want := "(" + strings.Join(app.StageNames(), ",") + ")"; !strings.Contains(usage, want) {
		t.Fatalf("usage does not list %s:\n%s", want, usage)
	}
}
