// Package docs holds the checks that keep the repository's documents true
// to the code and the repository self-contained: what the code relies on is
// written here, in docs/, and nothing cites a file outside the repository.
package docs

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
	"github.com/hyscribe/hyscribe/domain"
)

// outsideCitations are the ways a file has cited design notes kept outside
// the repository. Spelled in pieces so that this file does not cite them.
var outsideCitations = []string{
	"DESIGN" + " §",
	".." + "/shared",
	"shared" + "/DESIGN",
	"shared" + "/STYLE",
}

// Every tracked file but the copy of the specification (docs/spec, kept as
// published) cites only what the repository holds: a maintainer who clones
// it must find every document a comment or page points to.
func TestNothingCitesAFileOutsideTheRepository(t *testing.T) {
	out, err := exec.Command("git", "-C", "..", "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) < 100 {
		t.Fatalf("git ls-files listed %d files; expected the whole repository", len(files))
	}
	for _, f := range files {
		if strings.HasPrefix(f, "docs/spec/") {
			continue
		}
		b, err := os.ReadFile("../" + f)
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the work tree, not yet committed
			}
			t.Fatal(err)
		}
		for _, c := range outsideCitations {
			if i := bytes.Index(b, []byte(c)); i >= 0 {
				line := bytes.Count(b[:i], []byte("\n")) + 1
				t.Errorf("%s:%d cites %q, outside the repository: cite docs/architecture.md or docs/decisions.md instead", f, line, c)
			}
		}
	}
}

func readArchitecture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The architecture page's stage table is app.Pipeline: every stage, its
// consumer group and exactly the topics it reads.
func TestArchitectureListsThePipelineStages(t *testing.T) {
	doc := readArchitecture(t)
	row := regexp.MustCompile("(?m)^\\| `([a-z]+)` \\| `(hyscribe-[a-z]+)` \\| ([^|]*) \\|")
	topic := regexp.MustCompile("`(hyscribe\\.[a-z.]+\\.v[0-9]+)`")
	rows := map[string][]string{}
	for _, m := range row.FindAllStringSubmatch(doc, -1) {
		if m[2] != "hyscribe-"+m[1] {
			t.Errorf("stage %s: group %s, want hyscribe-%s", m[1], m[2], m[1])
		}
		var topics []string
		for _, tm := range topic.FindAllStringSubmatch(m[3], -1) {
			topics = append(topics, tm[1])
		}
		rows[m[1]] = topics
	}
	for _, st := range app.Pipeline {
		got, ok := rows[st.Name]
		if !ok {
			t.Errorf("docs/architecture.md: no row for stage %s", st.Name)
			continue
		}
		want := slices.Clone(st.Topics)
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("docs/architecture.md: stage %s reads %v, app.Pipeline says %v", st.Name, got, want)
		}
		delete(rows, st.Name)
	}
	for name := range rows {
		t.Errorf("docs/architecture.md lists stage %s, which app.Pipeline does not have", name)
	}
}

// Every topic the architecture page names exists, and it names them all.
func TestArchitectureNamesTheRealTopics(t *testing.T) {
	doc := readArchitecture(t)
	real := append(slices.Clone(domain.Topics), domain.TopicStorageEvents)
	for _, tp := range real {
		if !strings.Contains(doc, tp) {
			t.Errorf("docs/architecture.md does not name topic %s", tp)
		}
	}
	for _, m := range regexp.MustCompile(`hyscribe\.[a-z.]+\.v[0-9]+`).FindAllString(doc, -1) {
		if !slices.Contains(real, m) {
			t.Errorf("docs/architecture.md names topic %s, which the code does not have", m)
		}
	}
}

// Every variable the architecture page names is one the service reads,
// with the default the page gives it.
func TestArchitectureNamesTheRealVariables(t *testing.T) {
	doc := readArchitecture(t)
	declared := map[string]string{}
	for _, v := range cli.Variables() {
		declared[v.Name] = v.Default
	}
	// The client command's variables, read by `hyscribe transcribe`, not
	// by the service's configuration.
	client := []string{"HYSCRIBE_URL", "HYSCRIBE_API_KEY"}
	named := regexp.MustCompile("`((?:HYSCRIBE|DATABASE|KAFKA|CLICKHOUSE)_[A-Z0-9_]+)`(?: \\(default `([^`]*)`)?")
	n := 0
	for _, m := range named.FindAllStringSubmatch(doc, -1) {
		n++
		def, ok := declared[m[1]]
		switch {
		case slices.Contains(client, m[1]):
		case !ok:
			t.Errorf("docs/architecture.md names %s, which cli.Config does not declare", m[1])
		case m[2] != "" && m[2] != def:
			t.Errorf("docs/architecture.md gives %s the default %q; cli.Config's is %q", m[1], m[2], def)
		}
	}
	if n < 10 {
		t.Fatalf("found %d variables in docs/architecture.md; the pattern no longer reads the page", n)
	}
}
