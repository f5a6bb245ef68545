package mp3

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

// A stereo call's channels reach the engine as the 16 kHz WAV files Splitter
// writes: 115 MB an hour each, so a channel longer than about 13 minutes is
// over a 25 MB request. Chunker cuts them as it cuts MP3: levels of short
// windows (here computed from the samples) give the quiet stretches,
// domain.PlanChunks the cuts, and each piece is a WAV file of its own. PCM
// has no bit reservoir, so pieces do not overlap: Start and From coincide.

// wavWindow is the length of the windows whose level is measured.
const wavWindow = 0.020 // seconds

// wavFile is what pass one learns of a WAV file.
type wavFile struct {
	format     []byte // the fmt chunk's body, copied into every piece
	rate       int
	blockAlign int   // bytes per sample frame, all channels
	dataOffset int64 // where the samples begin
	dataBytes  int64
	windowSec  float64
	stats      []frameStat
}

func (w wavFile) seconds() float64 {
	return float64(w.dataBytes/int64(w.blockAlign)) / float64(w.rate)
}

// windowBytes is the size of one window's samples.
func (w wavFile) windowBytes() int64 {
	return int64(math.Round(w.windowSec*float64(w.rate))) * int64(w.blockAlign)
}

func isWAV(head []byte) bool {
	return len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WAVE"
}

// wavError is a WAV file Chunker cannot read: permanent, as unreadable
// audio is (the files are Splitter's own, so it means a bug or a damaged
// disk, not a customer's mistake, but retrying cannot help).
func wavError(format string, args ...any) error {
	return domain.Permanent(fmt.Errorf("mp3.Chunk: WAV: "+format, args...))
}

// readWAVHeader reads the RIFF chunks up to the samples: 16-bit PCM only.
func readWAVHeader(r io.Reader) (wavFile, error) {
	var w wavFile
	head := make([]byte, 12)
	if _, err := io.ReadFull(r, head); err != nil {
		return w, wavError("%v", err)
	}
	off := int64(12)
	for {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			return w, wavError("no data chunk: %v", err)
		}
		off += 8
		id, size := string(ch[:4]), int64(binary.LittleEndian.Uint32(ch[4:]))
		if id == "data" {
			if w.format == nil {
				return w, wavError("data before fmt")
			}
			w.dataOffset, w.dataBytes = off, size
			return w, nil
		}
		if id == "fmt " && (size < 16 || size > 1024) {
			return w, wavError("fmt chunk of %d bytes", size)
		}
		if id != "fmt " {
			if _, err := io.CopyN(io.Discard, r, size+size%2); err != nil {
				return w, wavError("chunk %q: %v", id, err)
			}
			off += size + size%2
			continue
		}
		body := make([]byte, size+size%2)
		if _, err := io.ReadFull(r, body); err != nil {
			return w, wavError("fmt chunk: %v", err)
		}
		off += int64(len(body))
		format := binary.LittleEndian.Uint16(body[0:2])
		channels := int(binary.LittleEndian.Uint16(body[2:4]))
		w.rate = int(binary.LittleEndian.Uint32(body[4:8]))
		bits := binary.LittleEndian.Uint16(body[14:16])
		if format != 1 || bits != 16 || channels < 1 || channels > 8 || w.rate < 1000 || w.rate > 192000 {
			return w, wavError("format %d, %d bits, %d channels at %d Hz; only 16-bit PCM is cut", format, bits, channels, w.rate)
		}
		w.blockAlign = 2 * channels
		w.windowSec = wavWindow
		w.format = body[:size]
	}
}

// scanWAV is pass one over a WAV file: the level of every 20 ms window.
// A data size of 0 or 0xFFFFFFFF (a writer that streamed and never came
// back to fill it in) means the samples run to the end of the file.
func scanWAV(ctx context.Context, r io.Reader) (wavFile, error) {
	w, err := readWAVHeader(r)
	if err != nil {
		return w, err
	}
	if w.dataBytes == 0 || w.dataBytes == math.MaxUint32 {
		w.dataBytes = math.MaxInt64
	}
	win := w.windowBytes()
	buf := make([]byte, win)
	var n int64
	for n < w.dataBytes {
		if err := ctx.Err(); err != nil {
			return w, fmt.Errorf("mp3.Chunk: %w", err)
		}
		k, err := io.ReadFull(r, buf[:min(win, w.dataBytes-n)])
		k -= k % w.blockAlign
		if k > 0 {
			w.stats = append(w.stats, frameStat{size: uint16(k), level: wavLevel(buf[:k])})
			n += int64(k)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break // a file cut short keeps what it has, as a player plays it
		}
		if err != nil {
			return w, fmt.Errorf("mp3.Chunk: read: %w", err)
		}
	}
	w.dataBytes = n
	if n == 0 {
		return w, wavError("no samples")
	}
	return w, nil
}

// wavLevel is a window's loudness in decibels above one step of 16-bit
// audio, plus one (1–91); 0 for digital silence.
func wavLevel(pcm []byte) uint8 {
	var sum float64
	for i := 0; i+1 < len(pcm); i += 2 {
		v := float64(int16(binary.LittleEndian.Uint16(pcm[i:])))
		sum += v * v
	}
	if sum == 0 {
		return 0
	}
	return uint8(1 + math.Round(10*math.Log10(1+sum/float64(len(pcm)/2))))
}

// writeWAVChunks is pass two: each piece's samples into a WAV file of its
// own, with the original's format.
func writeWAVChunks(ctx context.Context, open func() (io.ReadCloser, error), dir string, plan []domain.Span, w wavFile) (chunks []ports.Chunk, err error) {
	defer removeOnError(&chunks, &err)
	r, err := openChunking(dir, open)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	if _, err := io.CopyN(io.Discard, br, w.dataOffset); err != nil {
		return nil, fmt.Errorf("mp3.Chunk: read: %w", err)
	}
	win := w.windowBytes()
	var at int64 // bytes of samples copied so far
	for k, p := range plan {
		end := int64(frameAt(p.End, w.windowSec, len(w.stats))) * win
		if k == len(plan)-1 {
			end = w.dataBytes
		}
		end = min(end, w.dataBytes)
		if end <= at {
			continue
		}
		path := filepath.Join(dir, fmt.Sprintf("chunk-%04d.wav", k))
		chunks = append(chunks, ports.Chunk{Path: path, Start: w.time(at), From: w.time(at), End: w.time(end)})
		if err := ctx.Err(); err != nil {
			return chunks, fmt.Errorf("mp3.Chunk: %w", err)
		}
		if err := writeWAVPiece(path, w.format, io.LimitReader(br, end-at), end-at); err != nil {
			return chunks, fmt.Errorf("mp3.Chunk: %w", err)
		}
		at = end
	}
	return chunks, nil
}

func (w wavFile) time(bytes int64) float64 {
	return float64(bytes/int64(w.blockAlign)) / float64(w.rate)
}

// writeWAVPiece writes a WAV file of n bytes of samples read from r.
func writeWAVPiece(path string, format []byte, r io.Reader, n int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	pad := len(format) % 2
	h := make([]byte, 0, 28+len(format)+pad)
	h = append(h, "RIFF"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(4+8+len(format)+pad+8+int(n)))
	h = append(h, "WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, uint32(len(format)))
	h = append(h, format...)
	h = append(h, make([]byte, pad)...)
	h = append(h, "data"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(n))
	_, err = bw.Write(h)
	if err == nil {
		var copied int64
		copied, err = io.Copy(bw, r)
		if err == nil && copied != n {
			err = fmt.Errorf("%s: %d bytes of samples, want %d", path, copied, n)
		}
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
