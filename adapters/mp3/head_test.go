package mp3

import (
	"os"
	"strings"
	"testing"
)

// CheckHead gives, from a file's first bytes, the error the full probe
// gives: the page refuses a file with the pipeline's own reason.
func TestCheckHeadAgreesWithProbe(t *testing.T) {
	real, err := os.ReadFile("../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	wav := append([]byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00"), make([]byte, 64)...)
	m4a := append([]byte("\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00"), make([]byte, 64)...)
	text := []byte("just some text, not audio at all")
	for _, c := range []struct {
		name string
		file []byte
		ok   bool
	}{
		{"mp3", real, true},
		{"wav", wav, false},
		{"m4a", m4a, false},
		{"text", text, false},
		{"empty", nil, false},
	} {
		head := c.file[:min(len(c.file), HeadBytes)]
		got := CheckHead(head, int64(len(c.file)))
		_, probeErr := Prober{}.Probe(t.Context(), strings.NewReader(string(c.file)))
		if c.ok {
			if got != nil || probeErr != nil {
				t.Errorf("%s: CheckHead %v, Probe %v; want both to accept", c.name, got, probeErr)
			}
			continue
		}
		if got == nil || probeErr == nil || got.Error() != probeErr.Error() {
			t.Errorf("%s: CheckHead %v, Probe %v; want the same refusal", c.name, got, probeErr)
		}
	}
}
