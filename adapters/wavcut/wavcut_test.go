package wavcut_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/wavcut"
	"github.com/hyscribe/hyscribe/domain"
)

func TestCutWritesEachSpan(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "ch.wav")
	if err := os.WriteFile(src, asrtest.WAV(16000, 1, 3, asrtest.Tone{Start: 0.5, End: 1}), 0o600); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	paths, err := wavcut.Cutter{}.Cut(t.Context(), src, out, []domain.Span{{Start: 0.25, End: 1.25}, {Start: 2.5, End: 9}})
	if err != nil || len(paths) != 2 {
		t.Fatal(paths, err)
	}
	for i, want := range []int64{44 + 16000*2, 44 + 8000*2} {
		fi, err := os.Stat(paths[i])
		if err != nil || fi.Size() != want {
			t.Errorf("piece %d: %v %v, want %d bytes", i, fi.Size(), err, want)
		}
	}
	if _, err := (wavcut.Cutter{}).Cut(t.Context(), paths[0]+"x", out, nil); err == nil {
		t.Error("a missing file was cut")
	}
	junk := filepath.Join(dir, "junk.wav")
	if err := os.WriteFile(junk, []byte("not a wav file at all"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (wavcut.Cutter{}).Cut(t.Context(), junk, t.TempDir(), []domain.Span{{Start: 0, End: 1}}); err == nil {
		t.Error("junk was cut")
	}
}
