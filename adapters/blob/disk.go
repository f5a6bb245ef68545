package blob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hyscribe/hyscribe/adapters/internal/diskfull"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// ErrInvalidKey is returned for a key the store refuses to map to a path.
// Keys come from the app layer, never from clients, so this is a programming
// error, not bad input.
var ErrInvalidKey = errors.New("invalid blob key")

// maxKeyLen bounds a key well below any file system's path limit.
const maxKeyLen = 512

// Disk is a ports.BlobStore that keeps blobs as files under one directory.
// A key "audio/<docId>/<id>.mp3" is the file audio/<docId>/<id>.mp3 there.
type Disk struct {
	dir  string
	root *os.Root
}

// NewDisk opens (creating it if needed) the directory that holds the blobs.
func NewDisk(dir string) (*Disk, error) {
	if dir == "" {
		return nil, errors.New("blob.NewDisk: a directory is required")
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("blob.NewDisk: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("blob.NewDisk: %w", err)
	}
	return &Disk{dir: dir, root: root}, nil
}

// Dir is the directory holding the blobs.
func (d *Disk) Dir() string { return d.dir }

// Close releases the directory handle.
func (d *Disk) Close() error { return d.root.Close() }

// Put streams r into key. It refuses more than maxBytes (no limit when
// maxBytes <= 0) with domain.ErrTooLarge. Nothing is visible under key unless
// Put succeeds: the bytes go to a temporary file in the key's directory, are
// flushed to disk, and the file is renamed into place; on any failure the
// temporary file is removed. A later Put to the same key replaces the blob.
//
// A disk (or quota) that is full fails it with domain.ErrStorageFull.
func (d *Disk) Put(ctx context.Context, key string, r io.Reader, maxBytes int64) (int64, error) {
	n, err := d.put(ctx, key, r, maxBytes)
	return n, diskfull.Translate(err)
}

func (d *Disk) put(ctx context.Context, key string, r io.Reader, maxBytes int64) (int64, error) {
	if err := checkKey(key); err != nil {
		return 0, fmt.Errorf("blob.Put: %w", err)
	}
	name := filepath.FromSlash(key)
	dir := filepath.Dir(name)
	if dir != "." {
		if err := d.root.MkdirAll(dir, 0o750); err != nil {
			return 0, fmt.Errorf("blob.Put %s: %w", key, err)
		}
	}
	// The temporary name starts with a dot, which no valid key segment does,
	// so it can never collide with a blob.
	tmp := filepath.Join(dir, ".put-"+randomHex(8)+".tmp")
	f, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return 0, fmt.Errorf("blob.Put %s: %w", key, err)
	}
	closed, committed := false, false
	defer func() {
		if !closed {
			_ = f.Close()
		}
		if !committed {
			_ = d.root.Remove(tmp)
		}
	}()

	n, err := copyLimited(ctx, f, r, maxBytes)
	if errors.Is(err, domain.ErrTooLarge) {
		return 0, fmt.Errorf("blob.Put %s: more than %d bytes: %w", key, maxBytes, domain.ErrTooLarge)
	}
	if err != nil {
		return 0, fmt.Errorf("blob.Put %s: %w", key, err)
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("blob.Put %s: %w", key, err)
	}
	closed = true
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("blob.Put %s: %w", key, err)
	}
	if err := d.root.Rename(tmp, name); err != nil {
		return 0, fmt.Errorf("blob.Put %s: %w", key, err)
	}
	committed = true
	// The rename is durable only once the directory entry is on disk.
	if err := d.syncDir(dir); err != nil {
		return 0, fmt.Errorf("blob.Put %s: %w", key, err)
	}
	return n, nil
}

// Open reads key with its size; domain.ErrNotFound if absent, in an error
// that names the file looked for and the host, and says what a missing
// upload usually means: a process that does not share the disk of the API
// that received it.
func (d *Disk) Open(_ context.Context, key string) (ports.Blob, error) {
	if err := checkKey(key); err != nil {
		return nil, fmt.Errorf("blob.Open: %w", err)
	}
	f, err := d.root.Open(filepath.FromSlash(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, d.missing(key)
	}
	if err != nil {
		return nil, fmt.Errorf("blob.Open %s: %w", key, err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("blob.Open %s: %w", key, err)
	}
	if !st.Mode().IsRegular() {
		// A key naming a directory ("audio/<docId>") is not a blob.
		_ = f.Close()
		return nil, d.missing(key)
	}
	return file{File: f, size: st.Size()}, nil
}

// MissingHint is the advice a missing blob's error gives: blobs are files
// on one machine's disk, so every process that reads them needs the
// directory the API wrote them to.
const MissingHint = "local uploads are files on the disk of the API process that received them: " +
	"every api and worker process needs the same HYSCRIBE_DATA_DIR on one shared volume, or set HYSCRIBE_S3_ENDPOINT for S3 uploads"

// missing is the error of an absent key: where it was looked for, on which
// host, and MissingHint. It names server paths, so it is for the log only.
func (d *Disk) missing(key string) error {
	path := filepath.Join(d.dir, filepath.FromSlash(key))
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	host, err := os.Hostname()
	if err != nil {
		host = "?"
	}
	return fmt.Errorf("blob.Open %s: no file %s on host %s (%s): %w", key, path, host, MissingHint, domain.ErrNotFound)
}

// file is an opened blob: the file and its size when it was opened.
type file struct {
	*os.File
	size int64
}

func (f file) Size() int64 { return f.size }

// Delete removes key; a key already absent is not an error.
func (d *Disk) Delete(_ context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("blob.Delete: %w", err)
	}
	if err := d.root.Remove(filepath.FromSlash(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blob.Delete %s: %w", key, err)
	}
	return nil
}

func (d *Disk) syncDir(dir string) error {
	f, err := d.root.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close() //nolint:errcheck // a directory opened to sync it: Sync's error is the one that counts
	return f.Sync()
}

// checkKey accepts slash-separated segments of letters, digits, '.', '_' and
// '-', none empty and none starting with a dot. That refuses absolute paths,
// "..", hidden files, our own temporary files, backslashes and anything a
// file system might interpret.
func checkKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: empty", ErrInvalidKey)
	case len(key) > maxKeyLen:
		return fmt.Errorf("%w: longer than %d bytes", ErrInvalidKey, maxKeyLen)
	case strings.Contains(key, ".."):
		return fmt.Errorf("%w %q: contains \"..\"", ErrInvalidKey, key)
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" {
			return fmt.Errorf("%w %q: empty path segment", ErrInvalidKey, key)
		}
		if seg[0] == '.' {
			return fmt.Errorf("%w %q: a segment starts with '.'", ErrInvalidKey, key)
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
			if !ok {
				return fmt.Errorf("%w %q: character %q not allowed", ErrInvalidKey, key, c)
			}
		}
	}
	return nil
}

// copyBufs holds the copy buffers: uploads run concurrently and each would
// otherwise allocate its own.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// copyLimited copies r to w, failing with domain.ErrTooLarge as soon as more
// than max bytes arrive (max <= 0: no limit), and stopping when ctx ends.
func copyLimited(ctx context.Context, w io.Writer, r io.Reader, max int64) (int64, error) {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		nr, rerr := r.Read(buf)
		if nr > 0 {
			if max > 0 && n+int64(nr) > max {
				return n, domain.ErrTooLarge
			}
			nw, werr := w.Write(buf[:nr])
			n += int64(nw)
			if werr != nil {
				return n, werr
			}
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, fmt.Errorf("reading the upload: %w", rerr)
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}
