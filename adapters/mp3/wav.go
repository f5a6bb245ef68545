package mp3

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
)

// wavHeaderSize is the size of a canonical PCM WAV header.
const wavHeaderSize = 44

// wavWriter writes a 16-bit mono PCM WAV file as samples arrive. The sizes
// in the header are unknown until the end, so it is written with zeros
// first and patched in close: the samples never have to be held in memory.
type wavWriter struct {
	f       *os.File
	w       *bufio.Writer
	scratch []byte
	data    int64 // bytes of samples written
}

func createWAV(path string, rate int) (*wavWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := &wavWriter{f: f, w: bufio.NewWriterSize(f, 64<<10)}
	h := make([]byte, 0, wavHeaderSize)
	h = append(h, "RIFF\x00\x00\x00\x00WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, 16) // fmt chunk size
	h = binary.LittleEndian.AppendUint16(h, 1)  // PCM
	h = binary.LittleEndian.AppendUint16(h, 1)  // channels
	h = binary.LittleEndian.AppendUint32(h, uint32(rate))
	h = binary.LittleEndian.AppendUint32(h, uint32(rate*2)) // bytes per second
	h = binary.LittleEndian.AppendUint16(h, 2)              // bytes per sample frame
	h = binary.LittleEndian.AppendUint16(h, 16)             // bits per sample
	h = append(h, "data\x00\x00\x00\x00"...)
	if _, err := w.w.Write(h); err != nil {
		_ = f.Close() // the write's error is the one returned
		return nil, err
	}
	return w, nil
}

func (w *wavWriter) write(samples []int16) error {
	if w.data+int64(2*len(samples)) > math.MaxUint32-wavHeaderSize {
		return errors.New("the audio is too long for a WAV file")
	}
	b := w.scratch[:0]
	for _, s := range samples {
		b = binary.LittleEndian.AppendUint16(b, uint16(s))
	}
	w.scratch = b
	w.data += int64(len(b))
	_, err := w.w.Write(b)
	return err
}

// close fills in the RIFF and data sizes and closes the file.
func (w *wavWriter) close() error {
	err := w.w.Flush()
	for _, p := range []struct {
		off  int64
		size int64
	}{{4, wavHeaderSize - 8 + w.data}, {40, w.data}} {
		if err == nil {
			_, err = w.f.WriteAt(binary.LittleEndian.AppendUint32(nil, uint32(p.size)), p.off)
		}
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", w.f.Name(), err)
	}
	return nil
}
