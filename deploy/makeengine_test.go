package deploy_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// makeIn runs make in the repository's top directory with env added.
func makeIn(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	bin, err := exec.LookPath("make")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("make is not installed")
		}
		t.Skip("make is not installed")
	}
	cmd := exec.Command(bin, append([]string{"--no-print-directory"}, args...)...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// `make engine` is the quick start's engine: what it would run starts the
// speaches service of compose.yaml with the chosen model, asks speaches'
// own API to install the model, checks it is there and prints what to
// export. No Docker engine runs where this is tested, so this is a dry
// check (make -n); the speaches service it names must exist, publish the
// port it polls and download the model it was given.
func TestMakeEngineStartsSpeachesFromCompose(t *testing.T) {
	out, err := makeIn(t, nil, "-n", "engine", "ENGINE_MODEL=Systran/faster-whisper-tiny", "ENGINE_PORT=8111")
	if err != nil {
		t.Fatalf("make -n engine: %v\n%s", err, out)
	}
	for _, want := range []string{
		"HYSCRIBE_ASR_MODEL=Systran/faster-whisper-tiny SPEACHES_PORT=8111 docker compose -f deploy/compose.yaml up -d --wait speaches",
		`curl -fsS -X POST "http://127.0.0.1:8111/v1/models/Systran/faster-whisper-tiny"`,
		`curl -fsS "http://127.0.0.1:8111/v1/models/Systran/faster-whisper-tiny"`,
		"export HYSCRIBE_ASR_URL=http://127.0.0.1:8111/v1 HYSCRIBE_ASR_MODEL=Systran/faster-whisper-tiny HYSCRIBE_ASR_PROFILE=speaches",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("make -n engine does not run or print\n  %s\n%s", want, out)
		}
	}
	if strings.Index(out, "up -d --wait speaches") > strings.Index(out, "-X POST") {
		t.Error("make engine asks for the model before speaches is up")
	}

	services, _ := yamlDocs(t, "compose.yaml")[0]["services"].(map[string]any)
	if services["speaches"] == nil {
		t.Fatal("compose.yaml has no service speaches")
	}
	if !slices.Contains(strs(dig(services, "speaches", "ports")), "127.0.0.1:${SPEACHES_PORT:-8000}:8000") {
		t.Errorf("speaches does not publish ${SPEACHES_PORT} on the host's loopback: %v", dig(services, "speaches", "ports"))
	}
	if m, _ := dig(services, "speaches-model", "environment", "HYSCRIBE_ASR_MODEL").(string); !strings.HasPrefix(m, "${HYSCRIBE_ASR_MODEL:-") {
		t.Errorf("speaches-model does not download ${HYSCRIBE_ASR_MODEL}: %q", m)
	}
}

// Without Docker, `make engine` fails at once and names the alternative.
func TestMakeEngineWithoutDockerNamesTheAlternative(t *testing.T) {
	out, err := makeIn(t, []string{"PATH=" + t.TempDir()}, "engine")
	if err == nil {
		t.Fatalf("make engine without docker succeeded:\n%s", out)
	}
	for _, want := range []string{"needs Docker", "/v1/audio/transcriptions", "whisper-server", "HYSCRIBE_ASR_URL="} {
		if !strings.Contains(out, want) {
			t.Errorf("the message does not say %q:\n%s", want, out)
		}
	}
}

// `make run` says what it does before the long first build, builds, then
// runs the binary it built (not a silent go run), and warns when no engine
// is set.
func TestMakeRunSaysWhatItDoes(t *testing.T) {
	out, err := makeIn(t, []string{"HYSCRIBE_ASR_URL="}, "-n", "run")
	if err != nil {
		t.Fatalf("make -n run: %v\n%s", err, out)
	}
	say, build, run := strings.Index(out, "building"), strings.Index(out, "build -o .cache/bin/hyscribe ./cmd/hyscribe"), strings.Index(out, ".cache/bin/hyscribe serve")
	if say < 0 || build < 0 || run < 0 || !(say < build && build < run) {
		t.Errorf("make run does not announce the build, build, then run the binary:\n%s", out)
	}
	if !strings.Contains(out, "make engine") {
		t.Errorf("make run does not point at make engine when HYSCRIBE_ASR_URL is unset:\n%s", out)
	}
}
