// Package wavcut writes stretches of a PCM WAV file as WAV files of their
// own (a ports.SpanCutter): the utterance pieces sent to a speech engine
// that gives text without times, each piece's time known from its cut.
// The file is read with seeks, one span at a time, never whole.
package wavcut

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Cutter is the ports.SpanCutter. The zero value is ready.
type Cutter struct{}

var _ ports.SpanCutter = Cutter{}

// format is what a WAV file's header says of its samples.
type format struct {
	fmtChunk   []byte
	rate       int
	blockAlign int
	dataOffset int64
	dataBytes  int64
}

// Cut implements ports.SpanCutter.
func (Cutter) Cut(ctx context.Context, wavPath, dir string, spans []domain.Span) (paths []string, err error) {
	f, err := os.Open(wavPath)
	if err != nil {
		return nil, fmt.Errorf("wavcut: %w", err)
	}
	defer f.Close() //nolint:errcheck // opened read-only
	fm, err := readHeader(f)
	if err != nil {
		return nil, fmt.Errorf("wavcut: %s: %w", wavPath, err)
	}
	defer func() {
		if err != nil {
			for _, p := range paths {
				os.Remove(p)
			}
			paths = nil
		}
	}()
	frames := fm.dataBytes / int64(fm.blockAlign)
	for i, s := range spans {
		if err := ctx.Err(); err != nil {
			return paths, err
		}
		from := min(max(int64(math.Floor(s.Start*float64(fm.rate))), 0), frames)
		to := min(max(int64(math.Ceil(s.End*float64(fm.rate))), from), frames)
		p := filepath.Join(dir, fmt.Sprintf("utterance-%05d.wav", i+1))
		paths = append(paths, p)
		if err := fm.write(f, p, from, to); err != nil {
			return paths, fmt.Errorf("wavcut: %w", err)
		}
	}
	return paths, nil
}

func (fm format) write(src *os.File, path string, from, to int64) error {
	out, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	n := (to - from) * int64(fm.blockAlign)
	w := bufio.NewWriterSize(out, 64<<10)
	h := make([]byte, 0, 20+len(fm.fmtChunk)+8)
	h = append(h, "RIFF"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(4+8+len(fm.fmtChunk)+8+int(n)))
	h = append(h, "WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, uint32(len(fm.fmtChunk)))
	h = append(h, fm.fmtChunk...)
	h = append(h, "data"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(n))
	_, err = w.Write(h)
	if err == nil {
		_, err = io.Copy(w, io.NewSectionReader(src, fm.dataOffset+from*int64(fm.blockAlign), n))
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

func readHeader(f *os.File) (format, error) {
	var fm format
	r := bufio.NewReader(f)
	var riff [12]byte
	if _, err := io.ReadFull(r, riff[:]); err != nil || string(riff[:4]) != "RIFF" || string(riff[8:]) != "WAVE" {
		return fm, errors.New("not a WAV file")
	}
	off := int64(12)
	for {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			return fm, errors.New("no data chunk")
		}
		off += 8
		id, size := string(ch[:4]), int64(binary.LittleEndian.Uint32(ch[4:]))
		if id == "data" {
			if fm.fmtChunk == nil {
				return fm, errors.New("data before fmt")
			}
			st, err := f.Stat()
			if err != nil {
				return fm, err
			}
			fm.dataOffset = off
			fm.dataBytes = min(size, st.Size()-off) // a header written before its length was known
			fm.dataBytes -= fm.dataBytes % int64(fm.blockAlign)
			return fm, nil
		}
		b := make([]byte, size+size%2)
		if _, err := io.ReadFull(r, b); err != nil {
			return fm, fmt.Errorf("short %q chunk", id)
		}
		off += int64(len(b))
		if id == "fmt " {
			if size < 16 || binary.LittleEndian.Uint16(b[0:]) != 1 || binary.LittleEndian.Uint16(b[14:]) != 16 {
				return fm, errors.New("not 16-bit PCM")
			}
			fm.fmtChunk = b[:size]
			fm.rate = int(binary.LittleEndian.Uint32(b[4:]))
			fm.blockAlign = int(binary.LittleEndian.Uint16(b[12:]))
			if fm.rate <= 0 || fm.blockAlign <= 0 {
				return fm, errors.New("bad fmt chunk")
			}
		}
	}
}
