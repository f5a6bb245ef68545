package diarize

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// frameReader walks a 16 kHz mono 16-bit WAV file frame by frame: 25 ms
// frames every 10 ms, samples scaled to ±1. Only one frame is in memory.
type frameReader struct {
	f     *os.File
	r     *bufio.Reader
	left  int64 // data bytes not read yet
	frame []float64
	raw   []byte
	n     int // frames returned
}

func openFrames(path string) (*frameReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fr := &frameReader{f: f, r: bufio.NewReaderSize(f, 64<<10), frame: make([]float64, 0, frameLen), raw: make([]byte, 2*frameLen)}
	if err := fr.header(); err != nil {
		_ = f.Close() // opened read-only; the header's error is returned
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return fr, nil
}

// header checks the format and positions the reader on the samples.
func (fr *frameReader) header() error {
	var riff [12]byte
	if _, err := io.ReadFull(fr.r, riff[:]); err != nil || string(riff[:4]) != "RIFF" || string(riff[8:]) != "WAVE" {
		return errors.New("not a WAV file")
	}
	var fmtOK bool
	for {
		var ch [8]byte
		if _, err := io.ReadFull(fr.r, ch[:]); err != nil {
			return errors.New("WAV file without a data chunk")
		}
		size := int64(binary.LittleEndian.Uint32(ch[4:]))
		switch string(ch[:4]) {
		case "fmt ":
			b := make([]byte, size)
			if _, err := io.ReadFull(fr.r, b); err != nil || size < 16 {
				return errors.New("short fmt chunk")
			}
			format, chans := binary.LittleEndian.Uint16(b), binary.LittleEndian.Uint16(b[2:])
			sr, bits := binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint16(b[14:])
			if format != 1 || chans != 1 || sr != rate || bits != 16 {
				return fmt.Errorf("need 16 kHz mono 16-bit PCM, got format %d, %d channel(s), %d Hz, %d bits", format, chans, sr, bits)
			}
			fmtOK = true
		case "data":
			if !fmtOK {
				return errors.New("data before fmt")
			}
			fr.left = size
			return nil
		default:
			if _, err := fr.r.Discard(int(size + size&1)); err != nil {
				return errors.New("truncated chunk")
			}
		}
	}
}

// next returns the next frame, or io.EOF when fewer than frameLen samples
// remain. The slice is valid until the following call.
func (fr *frameReader) next() ([]float64, error) {
	need := frameLen
	if fr.n > 0 {
		copy(fr.frame, fr.frame[hop:])
		fr.frame = fr.frame[:frameLen-hop]
		need = hop
	}
	if fr.left < int64(2*need) {
		return nil, io.EOF
	}
	b := fr.raw[:2*need]
	if _, err := io.ReadFull(fr.r, b); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, io.EOF
		}
		return nil, err
	}
	fr.left -= int64(len(b))
	for i := 0; i < need; i++ {
		fr.frame = append(fr.frame, float64(int16(binary.LittleEndian.Uint16(b[2*i:])))/32768)
	}
	fr.n++
	return fr.frame, nil
}

func (fr *frameReader) Close() error { return fr.f.Close() }
