package deploy

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// `make run` gets the MP3 decoder before it starts the service: the run
// target calls .ci/ffmpeg.sh, which passes when the decoder is there and,
// when it is not and cannot be installed here, fails saying exactly what to
// install.
func TestMakeRunGetsTheDecoder(t *testing.T) {
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	run := regexp.MustCompile(`(?ms)^run:\n((?:\t[^\n]*\n)+)`).FindSubmatch(mk)
	if run == nil || !bytes.Contains(run[1], []byte("bash .ci/ffmpeg.sh")) ||
		bytes.Index(run[1], []byte(".ci/ffmpeg.sh")) > bytes.Index(run[1], []byte("serve")) {
		t.Fatalf("the run target does not get the decoder before serve:\n%s", run)
	}
	script := func(bin string) (int, string) {
		cmd := exec.Command("bash", "../.ci/ffmpeg.sh")
		cmd.Env = append(os.Environ(), "HYSCRIBE_FFMPEG="+bin)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), string(out)
	}
	if code, out := script("sh"); code != 0 || out != "" {
		t.Errorf("with the decoder on PATH: exit %d, %q", code, out)
	}
	// A path that is not there is never installed over: the script says
	// what to do.
	code, out := script("/nonexistent/ffmpeg")
	if code != 1 || !strings.Contains(out, "install Debian's ffmpeg") || !strings.Contains(out, "HYSCRIBE_FFMPEG") {
		t.Errorf("without the decoder: exit %d, %q", code, out)
	}
}
