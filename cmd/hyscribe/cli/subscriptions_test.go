package cli_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
)

// assertStageSubscriptions checks, on the running cluster, that the
// consumer group of each named stage has a member and that every member
// subscribes to exactly the topics app.Pipeline declares for the stage: a
// topic consumed but not declared would have no lag metric.
func assertStageSubscriptions(t *testing.T, brokers []string, stages ...string) {
	t.Helper()
	adm := kadmClient(t, brokers)
	groups := make([]string, len(stages))
	for i, name := range stages {
		groups[i] = "hyscribe-" + name
	}
	waitFor(t, "every stage's consumer to subscribe to its stage's topics", 15*time.Second, func() (bool, string) {
		described, err := adm.DescribeGroups(context.Background(), groups...)
		if err != nil {
			return false, err.Error()
		}
		var problems []string
		for _, name := range stages {
			st, _ := app.StageNamed(name)
			want := slices.Sorted(slices.Values(st.Topics))
			g, ok := described["hyscribe-"+name]
			switch {
			case !ok:
				problems = append(problems, name+": no group")
				continue
			case g.Err != nil:
				problems = append(problems, fmt.Sprintf("%s: %v", name, g.Err))
				continue
			case len(g.Members) == 0:
				problems = append(problems, name+": no member")
				continue
			}
			for _, m := range g.Members {
				meta, ok := m.Join.AsConsumer()
				if !ok {
					problems = append(problems, name+": a member is no consumer")
					continue
				}
				if got := slices.Sorted(slices.Values(meta.Topics)); !slices.Equal(got, want) {
					problems = append(problems, fmt.Sprintf("%s subscribes to %v, app.Pipeline declares %v", name, got, want))
				}
			}
		}
		return len(problems) == 0, strings.Join(problems, "; ")
	})
}
