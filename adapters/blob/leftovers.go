package blob

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"
)

// LeftoverAge is how long a partial upload file may go unwritten before it
// counts as left by a crash: a live upload writes at least once per rate
// window (30 s by default, adapters/httpapi) or is cut off.
const LeftoverAge = 10 * time.Minute

// RemoveLeftovers removes the temporary files of Put (".put-*.tmp") last
// written before olderThan: a Put removes its own on every failure, so
// these are what a process killed mid-upload left behind.
func (d *Disk) RemoveLeftovers(ctx context.Context, olderThan time.Time) (int, error) {
	removed := 0
	err := fs.WalkDir(d.root.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile
			}
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		name := path.Base(p)
		if e.IsDir() || !strings.HasPrefix(name, ".put-") || !strings.HasSuffix(name, ".tmp") {
			return nil
		}
		info, err := e.Info()
		if err != nil || !info.ModTime().Before(olderThan) {
			return nil
		}
		if err := d.root.Remove(p); err == nil {
			removed++
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
	if err != nil {
		return removed, fmt.Errorf("blob.RemoveLeftovers: %w", err)
	}
	return removed, nil
}
