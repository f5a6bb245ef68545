package blob

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestRemoveLeftoversTakesOnlyOldPartialUploads(t *testing.T) {
	dir := t.TempDir()
	d, err := NewDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	if _, err := d.Put(ctx, "audio/doc-1/a.mp3", bytes.NewReader([]byte("ID3 audio")), 0); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	write := func(rel string, age time.Duration) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("partial"), 0o640); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	crashed := write("audio/doc-1/.put-0123456789abcdef.tmp", time.Hour)
	crashedElsewhere := write("audio/doc-2/.put-fedcba9876543210.tmp", 11*time.Minute)
	live := write("audio/doc-3/.put-00112233aabbccdd.tmp", time.Second)
	oldBlob := write("audio/doc-4/b.mp3", time.Hour) // a blob, however old, is not a leftover
	n, err := d.RemoveLeftovers(ctx, now.Add(-LeftoverAge))
	if err != nil || n != 2 {
		t.Fatalf("RemoveLeftovers: %d, %v; want 2 removed", n, err)
	}
	for p, want := range map[string]bool{crashed: false, crashedElsewhere: false, live: true, oldBlob: true, filepath.Join(dir, "audio/doc-1/a.mp3"): true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", p, err == nil, want)
		}
	}
}
