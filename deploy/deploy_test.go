package deploy_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
	"github.com/hyscribe/hyscribe/domain"
)

// knownEnv is every variable the service reads (cli.Config's declared
// list): the names deployments may set.
func knownEnv(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	for _, v := range cli.Variables() {
		names[v.Name] = true
	}
	if len(names) < 20 || !names["DATABASE_URL"] || !names["HYSCRIBE_S3_ENDPOINT"] {
		t.Fatalf("could not read the variable names from cli.Variables: %v", names)
	}
	return names
}

// yamlDocs decodes every document of a YAML file.
func yamlDocs(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var out []map[string]any
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if doc != nil {
			out = append(out, doc)
		}
	}
}

// dig walks nested maps and lists: dig(m, "spec", "template", 0).
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func strs(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func checkCommand(t *testing.T, where string, args []string) {
	t.Helper()
	if len(args) == 0 || !slices.Contains([]string{"serve", "api", "worker", "migrate"}, args[0]) {
		t.Errorf("%s: command %v is not a hyscribe command", where, args)
		return
	}
	if args[0] != "worker" {
		return
	}
	i := slices.Index(args, "--stages")
	if i < 0 || i+1 >= len(args) {
		t.Errorf("%s: worker without --stages", where)
		return
	}
	for _, st := range strings.Split(args[i+1], ",") {
		if _, ok := app.StageNamed(st); !ok {
			t.Errorf("%s: unknown stage %q", where, st)
		}
	}
}

func TestComposeMatchesTheOperatingContract(t *testing.T) {
	known := knownEnv(t)
	docs := yamlDocs(t, "compose.yaml")
	if len(docs) != 1 {
		t.Fatalf("compose.yaml has %d documents", len(docs))
	}
	services, _ := docs[0]["services"].(map[string]any)
	for _, name := range []string{"kafka", "postgres", "clickhouse", "minio", "speaches", "migrate", "api", "worker"} {
		if services[name] == nil {
			t.Errorf("compose.yaml: no service %q", name)
		}
	}
	env := func(svc string) map[string]any {
		m, _ := dig(services, svc, "environment").(map[string]any)
		return m
	}
	if roles, _ := env("kafka")["KAFKA_PROCESS_ROLES"].(string); !strings.Contains(roles, "controller") {
		t.Errorf("kafka is not in KRaft mode: KAFKA_PROCESS_ROLES=%q", roles)
	}

	// hyscribe's services: the same image, known commands, known variables.
	for _, name := range []string{"migrate", "api", "worker"} {
		svc, _ := services[name].(map[string]any)
		if dig(svc, "build", "dockerfile") != "Dockerfile" || dig(svc, "image") != "hyscribe:local" {
			t.Errorf("%s does not run the image built from ../Dockerfile: %v %v", name, dig(svc, "build"), dig(svc, "image"))
		}
		checkCommand(t, "compose "+name, strs(svc["command"]))
		for k := range env(name) {
			if !known[k] {
				t.Errorf("compose %s sets %s, which hyscribe does not read", name, k)
			}
		}
		for _, k := range []string{"DATABASE_URL", "KAFKA_BROKERS", "HYSCRIBE_S3_ENDPOINT", "HYSCRIBE_S3_ACCESS_KEY", "HYSCRIBE_S3_SECRET_KEY", "HYSCRIBE_ASR_URL", "CLICKHOUSE_DSN"} {
			if env(name)[k] == nil {
				t.Errorf("compose %s does not set %s", name, k)
			}
		}
	}
	for _, name := range []string{"api", "worker"} {
		if r, _ := dig(services, name, "deploy", "replicas").(int); r != 2 {
			t.Errorf("compose %s: %d replicas, want 2", name, r)
		}
	}
	if c := strs(dig(services, "api", "command")); len(c) == 0 || c[0] != "api" {
		t.Errorf("compose api runs %v", c)
	}
	if c := strs(dig(services, "worker", "command")); !slices.Contains(c, strings.Join(app.StageNames(), ",")) {
		t.Errorf("compose worker does not run every stage: %v", c)
	}
	if dig(services, "api", "depends_on", "migrate", "condition") != "service_completed_successfully" {
		t.Error("compose api does not wait for the migration")
	}

	// MinIO announces uploads on the topic stage uploads reads, through
	// the target the bucket is subscribed to.
	minio := env("minio")
	arn, _ := env("api")["HYSCRIBE_S3_NOTIFY_ARN"].(string)
	m := regexp.MustCompile(`^arn:minio:sqs::([A-Za-z0-9_]+):kafka$`).FindStringSubmatch(arn)
	if m == nil {
		t.Fatalf("HYSCRIBE_S3_NOTIFY_ARN %q is not a MinIO Kafka target", arn)
	}
	id := m[1]
	if minio["MINIO_NOTIFY_KAFKA_ENABLE_"+id] != "on" || minio["MINIO_NOTIFY_KAFKA_TOPIC_"+id] != domain.TopicStorageEvents || minio["MINIO_NOTIFY_KAFKA_BROKERS_"+id] != env("api")["KAFKA_BROKERS"] {
		t.Errorf("minio's Kafka target %s does not match hyscribe's: %v", id, minio)
	}
}

func TestKubernetesManifests(t *testing.T) {
	known := knownEnv(t)
	files, err := filepath.Glob("k8s/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	// The example Secret is checked too, though kustomization.yaml does
	// not apply it.
	files = append(files, "k8s/example/secret.yaml")
	kinds := map[string][]string{}
	for _, f := range files {
		for _, doc := range yamlDocs(t, f) {
			kind, _ := doc["kind"].(string)
			name, _ := dig(doc, "metadata", "name").(string)
			if kind == "" || name == "" || doc["apiVersion"] == nil {
				t.Errorf("%s: a document without apiVersion, kind or name", f)
				continue
			}
			kinds[kind] = append(kinds[kind], name)
			switch kind {
			case "ConfigMap", "Secret":
				data, _ := doc["data"].(map[string]any)
				if kind == "Secret" {
					data, _ = doc["stringData"].(map[string]any)
				}
				for k := range data {
					if !known[k] {
						t.Errorf("%s %s: %s is not a hyscribe variable", kind, name, k)
					}
				}
			case "Deployment", "Job":
				for _, list := range []string{"initContainers", "containers"} {
					for i := 0; ; i++ {
						c := dig(doc, "spec", "template", "spec", list, i)
						if c == nil {
							break
						}
						where := kind + " " + name + " " + list
						if img, _ := dig(c, "image").(string); img != "hyscribe" {
							// Another program (the speech engine): a
							// pinned image, and probes on its server.
							if !pinned(img) {
								t.Errorf("%s: image %q is not pinned to a version", where, img)
							}
							if list == "containers" && (dig(c, "readinessProbe") == nil || dig(c, "livenessProbe") == nil) {
								t.Errorf("%s: no readiness or liveness probe", where)
							}
							continue
						}
						checkCommand(t, where, strs(dig(c, "args")))
						for j := 0; ; j++ {
							e := dig(c, "env", j, "name")
							if e == nil {
								break
							}
							if !known[e.(string)] {
								t.Errorf("%s sets %s, which hyscribe does not read", where, e)
							}
						}
						if kind != "Deployment" || list != "containers" {
							continue
						}
						for probe, path := range map[string]string{"readinessProbe": "/readyz", "livenessProbe": "/healthz"} {
							if dig(c, probe, "httpGet", "path") != path {
								t.Errorf("%s: %s is not GET %s", where, probe, path)
							}
						}
						if strs(dig(c, "args"))[0] == "worker" && !slices.Contains(envNames(c), "HYSCRIBE_ADMIN_ADDR") {
							t.Errorf("%s: a worker answers /healthz only with HYSCRIBE_ADMIN_ADDR", where)
						}
					}
				}
			}
		}
	}
	want := map[string][]string{
		"Deployment":              {"hyscribe-api", "hyscribe-worker", "speaches"},
		"HorizontalPodAutoscaler": {"hyscribe-api", "hyscribe-worker"},
		"ConfigMap":               {"hyscribe"},
		"Secret":                  {"hyscribe"},
		"Service":                 {"hyscribe-api", "speaches", "hyscribe-uploads"},
		"Ingress":                 {"hyscribe"},
	}
	for kind, names := range want {
		for _, n := range names {
			if !slices.Contains(kinds[kind], n) {
				t.Errorf("no %s %s (have %v)", kind, n, kinds[kind])
			}
		}
	}
}

// pinned reports whether an image names a version: a tag that is not
// latest (or latest-something), or a digest.
func pinned(img string) bool {
	if strings.Contains(img, "@sha256:") {
		return true
	}
	i := strings.LastIndex(img, ":")
	if i < 0 || strings.Contains(img[i:], "/") {
		return false
	}
	tag := img[i+1:]
	return tag != "" && !strings.HasPrefix(tag, "latest") && regexp.MustCompile(`\d`).MatchString(tag)
}

func envNames(c any) []string {
	var out []string
	for j := 0; ; j++ {
		e, ok := dig(c, "env", j, "name").(string)
		if !ok {
			return out
		}
		out = append(out, e)
	}
}

// The image the binary runs in has the MP3 decoder: without it the worker
// refuses to start (docs/decisions.md, "MP3 decoder").
func TestImageHasTheMP3Decoder(t *testing.T) {
	df, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	final := df[bytes.LastIndex(df, []byte("\nFROM ")):]
	if !regexp.MustCompile(`apt-get install [^\n]*\bffmpeg\b`).Match(final) {
		t.Error("the Dockerfile's final stage does not install Debian's ffmpeg")
	}
}

func TestDockerfileBuildsTheBinaryWithTheModulesGo(t *testing.T) {
	df, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goVer := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	if goVer == nil || !bytes.Contains(df, []byte("FROM golang:"+string(goVer[1]))) {
		t.Errorf("Dockerfile does not build with go %s", goVer)
	}
	for _, s := range []string{"./cmd/hyscribe", "ENTRYPOINT [\"/usr/local/bin/hyscribe\"]", "CGO_ENABLED=0"} {
		if !bytes.Contains(df, []byte(s)) {
			t.Errorf("Dockerfile lacks %s", s)
		}
	}
}
