package mp3

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// CheckHead never refuses a file the full probe accepts, and when it
// refuses one it gives the probe's own reason: the page refuses a file
// before upload exactly as the pipeline would.
func TestCheckHeadAgreesWithProbe(t *testing.T) {
	files, err := filepath.Glob("../../testdata/audio/*")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "head_test.go") // a text file
	refused := 0
	for _, name := range files {
		if filepath.Ext(name) == ".md" || filepath.Ext(name) == ".sh" {
			continue
		}
		file, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		got := CheckHead(file[:min(len(file), HeadBytes)], int64(len(file)))
		_, probeErr := Prober{}.Probe(t.Context(), bytes.NewReader(file))
		switch {
		case got == nil:
			continue // the probe decides
		case probeErr == nil:
			t.Errorf("%s: CheckHead refuses (%v) a file the probe accepts", name, got)
		case got.Error() != probeErr.Error():
			t.Errorf("%s: CheckHead says %q, the probe %q", name, got, probeErr)
		}
		refused++
	}
	if refused < 8 { // empty, wav, m4a, ogg, flac, aiff, aac, mp2, random, text
		t.Errorf("CheckHead refused only %d of the test files", refused)
	}
}
