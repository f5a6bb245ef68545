package blob

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/asr"
	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

func newDisk(t *testing.T) *Disk {
	t.Helper()
	d, err := NewDisk(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

func readBlob(t *testing.T, d *Disk, key string) []byte {
	t.Helper()
	rc, err := d.Open(context.Background(), key)
	if err != nil {
		t.Fatalf("Open(%q): %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// files lists every file under the store's directory, temporary ones included.
func files(t *testing.T, d *Disk) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(d.Dir(), func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() {
			rel, _ := filepath.Rel(d.Dir(), p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDiskPutOpenRoundTrip(t *testing.T) {
	d := newDisk(t)
	ctx := context.Background()
	key := "audio/AbC-_9/x1.mp3"
	data := bytes.Repeat([]byte("ID3 frame "), 20000) // larger than one copy buffer

	n, err := d.Put(ctx, key, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(len(data)) {
		t.Fatalf("Put returned %d, want %d", n, len(data))
	}
	if got := readBlob(t, d, key); !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, want the %d written", len(got), len(data))
	}
	if b, err := d.Open(ctx, key); err != nil || b.Size() != int64(len(data)) {
		t.Fatalf("Open: size %v, %v; want %d", b, err, len(data))
	} else {
		b.Close()
	}
	// Keys map to nested paths, and nothing else is left behind.
	if got := files(t, d); len(got) != 1 || got[0] != key {
		t.Fatalf("files = %v, want [%s]", got, key)
	}
	if _, err := os.Stat(filepath.Join(d.Dir(), "audio", "AbC-_9", "x1.mp3")); err != nil {
		t.Fatal(err)
	}

	// A later Put replaces the blob.
	if _, err := d.Put(ctx, key, strings.NewReader("second"), 0); err != nil {
		t.Fatal(err)
	}
	if got := string(readBlob(t, d, key)); got != "second" {
		t.Fatalf("after replace: %q", got)
	}
}

func TestDiskOpenMissing(t *testing.T) {
	d := newDisk(t)
	ctx := context.Background()
	for _, key := range []string{"audio/none/x.mp3", "audio"} {
		if key == "audio" {
			if _, err := d.Put(ctx, "audio/doc/a.mp3", strings.NewReader("x"), 0); err != nil {
				t.Fatal(err)
			}
		}
		_, err := d.Open(ctx, key)
		if !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("Open(%q) = %v, want ErrNotFound", key, err)
		}
		// For the worker's log: the file looked for, on which host, and
		// what a process that cannot see the API's uploads needs.
		abs, _ := filepath.Abs(filepath.Join(d.Dir(), filepath.FromSlash(key)))
		host, _ := os.Hostname()
		if msg := err.Error(); !strings.Contains(msg, abs) || !strings.Contains(msg, "host "+host) || !strings.Contains(msg, MissingHint) {
			t.Errorf("Open(%q) = %q, want it to name %s, host %s and the shared-volume advice", key, msg, abs, host)
		}
	}
	if !strings.Contains(MissingHint, "HYSCRIBE_DATA_DIR") || !strings.Contains(MissingHint, "shared volume") || !strings.Contains(MissingHint, "HYSCRIBE_S3_ENDPOINT") {
		t.Errorf("MissingHint %q does not say what to configure", MissingHint)
	}
}

func TestDiskBlobGoesToTheEngineWithItsLength(t *testing.T) {
	d := newDisk(t)
	ctx := t.Context()
	audio := asrtest.WAV(16000, 1, 2, asrtest.Tone{Start: 0.5, End: 1.0})
	if _, err := d.Put(ctx, "audio/doc/a.mp3", bytes.NewReader(audio), 0); err != nil {
		t.Fatal(err)
	}
	engine := asrtest.NewEngine(t, asrtest.WithLengthRequired())
	c, err := asr.New(asr.Config{BaseURL: engine.URL(), MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	open := func() (io.ReadCloser, error) { return d.Open(ctx, "audio/doc/a.mp3") }
	if _, err := c.Recognize(ctx, ports.AudioFile{Name: "audio.wav", Open: open}); err != nil {
		t.Fatalf("an engine that refuses chunked bodies: %v", err)
	}
	if req := engine.LastRequest(); engine.Chunked() != 0 || req.ContentLength <= int64(len(audio)) || req.FileSize != int64(len(audio)) {
		t.Errorf("engine got Content-Length %d (%d chunked), a %d-byte file; want the length of a form around %d bytes", req.ContentLength, engine.Chunked(), req.FileSize, len(audio))
	}
}

func TestDiskTooLarge(t *testing.T) {
	d := newDisk(t)
	ctx := context.Background()

	if n, err := d.Put(ctx, "audio/d/exact.mp3", strings.NewReader("0123456789"), 10); err != nil || n != 10 {
		t.Fatalf("exactly the limit: n=%d err=%v", n, err)
	}
	_, err := d.Put(ctx, "audio/d/big.mp3", strings.NewReader("0123456789A"), 10)
	if !errors.Is(err, domain.ErrTooLarge) {
		t.Fatalf("one byte over: %v, want ErrTooLarge", err)
	}
	if _, err := d.Open(ctx, "audio/d/big.mp3"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("refused blob is visible: %v", err)
	}
	if got := files(t, d); len(got) != 1 || got[0] != "audio/d/exact.mp3" {
		t.Fatalf("files = %v: the refused upload left something behind", got)
	}
}

// stallingReader yields first, then waits for release and fails with err.
type stallingReader struct {
	first   []byte
	reached chan struct{}
	release chan struct{}
	err     error
}

func (r *stallingReader) Read(p []byte) (int, error) {
	if len(r.first) > 0 {
		n := copy(p, r.first)
		r.first = r.first[n:]
		return n, nil
	}
	close(r.reached)
	<-r.release
	return 0, r.err
}

func TestDiskPutIsAtomic(t *testing.T) {
	d := newDisk(t)
	ctx := context.Background()
	key := "audio/doc/a.mp3"
	if _, err := d.Put(ctx, key, strings.NewReader("old audio"), 0); err != nil {
		t.Fatal(err)
	}

	r := &stallingReader{
		first: bytes.Repeat([]byte{1}, 100000), reached: make(chan struct{}),
		release: make(chan struct{}), err: io.ErrUnexpectedEOF,
	}
	done := make(chan error, 1)
	go func() {
		_, err := d.Put(ctx, key, r, 0)
		done <- err
	}()
	<-r.reached
	// Mid-upload: readers still see the whole previous blob, never a part
	// of the new one.
	if got := string(readBlob(t, d, key)); got != "old audio" {
		t.Fatalf("mid-upload read %d bytes, want the old blob", len(got))
	}
	close(r.release)
	if err := <-done; !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("Put = %v, want the reader's error", err)
	}
	if got := string(readBlob(t, d, key)); got != "old audio" {
		t.Fatal("a failed Put damaged the existing blob")
	}
	if got := files(t, d); len(got) != 1 {
		t.Fatalf("files = %v: temporary file not removed", got)
	}

	// A fresh key that fails is simply absent.
	r2 := &stallingReader{first: []byte("partial"), reached: make(chan struct{}), release: make(chan struct{}), err: errors.New("client went away")}
	close(r2.release)
	if _, err := d.Put(ctx, "audio/doc/b.mp3", r2, 0); err == nil {
		t.Fatal("Put succeeded on a failing reader")
	}
	if _, err := d.Open(ctx, "audio/doc/b.mp3"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("partial blob visible: %v", err)
	}
}

func TestDiskPutStopsWhenContextEnds(t *testing.T) {
	d := newDisk(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := d.Put(ctx, "audio/doc/c.mp3", strings.NewReader("data"), 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Put = %v, want context.Canceled", err)
	}
	if got := files(t, d); len(got) != 0 {
		t.Fatalf("files = %v", got)
	}
}

func TestDiskKeyValidation(t *testing.T) {
	d := newDisk(t)
	ctx := context.Background()
	bad := []string{
		"", "/etc/passwd", "../escape", "audio/../../escape", "a/../b", "a..b", "a//b", "a/", "/a",
		".hidden", "audio/doc/.put-1.tmp", `a\b`, "a b", "a:b", "ä.mp3", "a\x00b", "a/./b", ".",
		strings.Repeat("a", maxKeyLen+1),
	}
	for _, key := range bad {
		if _, err := d.Put(ctx, key, strings.NewReader("x"), 0); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Put(%q) = %v, want ErrInvalidKey", key, err)
		}
		if _, err := d.Open(ctx, key); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Open(%q) = %v, want ErrInvalidKey", key, err)
		}
	}
	if got := files(t, d); len(got) != 0 {
		t.Fatalf("refused keys created files: %v", got)
	}
	for _, key := range []string{"a", "audio/Zz09_-/0a.b.mp3", strings.Repeat("a", maxKeyLen)} {
		if err := checkKey(key); err != nil {
			t.Errorf("checkKey(%q) = %v, want nil", key, err)
		}
	}
}

func FuzzCheckKey(f *testing.F) {
	for _, s := range []string{"audio/a/b.mp3", "../x", "a//b", ".x", `a\b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		if checkKey(key) != nil {
			return
		}
		// Anything accepted must stay inside the directory.
		if !filepath.IsLocal(filepath.FromSlash(key)) || strings.Contains(key, "..") {
			t.Fatalf("accepted non-local key %q", key)
		}
	})
}

func TestDiskDelete(t *testing.T) {
	d := newDisk(t)
	ctx := context.Background()
	if _, err := d.Put(ctx, "audio/doc/a.mp3", strings.NewReader("x"), 10); err != nil {
		t.Fatal(err)
	}
	if err := d.Delete(ctx, "audio/doc/a.mp3"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Open(ctx, "audio/doc/a.mp3"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("deleted blob still opens: %v", err)
	}
	if err := d.Delete(ctx, "audio/doc/a.mp3"); err != nil {
		t.Fatalf("deleting an absent blob: %v", err)
	}
	if err := d.Delete(ctx, "../escape"); err == nil {
		t.Fatal("a key outside the store was accepted")
	}
}
