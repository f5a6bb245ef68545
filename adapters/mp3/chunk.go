package mp3

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/hyscribe/hyscribe/adapters/internal/diskfull"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

var _ ports.AudioChunker = Chunker{}

// Chunker cuts long MP3 recordings into MP3 pieces a speech engine accepts,
// without decoding them, and the WAV channels Splitter writes into WAV
// pieces (wavchunk.go). The zero value is ready.
//
// Why MP3 slices rather than decoded WAV: a layer III frame is a
// self-delimiting unit, so a slice of consecutive frames is itself a valid
// MP3 file, as small as the upload (a 25 MB request holds hours of 32 kbit/s
// speech but only 13 minutes of 16 kHz WAV) and cut without the cost of
// decoding (about 7 ms of CPU per second of audio). Silences are found from
// the frames' side information (see loudness): a granule's global_gain, the
// quantiser's step, follows the level of the sound, and a granule that codes
// nothing is digital silence, so the quietest stretches are found without
// decoding a sample. Each piece after the first starts one frame early, so that the
// decoder has the bit reservoir that frame's successor reaches back into;
// that frame lies in a silence and is already in the previous piece, so
// no word is heard twice.
type Chunker struct{}

// frameStat is what pass one keeps per MP3 frame (about 150 KB an hour) or
// per 20 ms window of a WAV file (180 KB an hour).
type frameStat struct {
	size  uint16 // bytes
	level uint8  // see loudness and wavLevel; 0 codes nothing
}

// Chunk implements ports.AudioChunker. It takes the MP3 uploads and the WAV
// files Splitter writes (a stereo call's channels, see wavchunk.go); pieces
// are of the recording's format. A full disk is domain.ErrStorageFull.
func (c Chunker) Chunk(ctx context.Context, open func() (io.ReadCloser, error), dir string, limits ports.ChunkLimits) ([]ports.Chunk, error) {
	chunks, err := c.chunk(ctx, open, dir, limits)
	return chunks, diskfull.Translate(err)
}

func (Chunker) chunk(ctx context.Context, open func() (io.ReadCloser, error), dir string, limits ports.ChunkLimits) ([]ports.Chunk, error) {
	r, err := open()
	if err != nil {
		return nil, fmt.Errorf("mp3.Chunk: open: %w", err)
	}
	br := newReader(r)
	defer putReader(br)
	head, _ := br.Peek(12)
	if isWAV(head) {
		w, err := scanWAV(ctx, br)
		r.Close()
		if err != nil {
			return nil, err
		}
		plan, err := planPieces(w.stats, w.windowSec, w.seconds(), limits)
		if err != nil {
			return nil, err
		}
		if len(plan) == 1 {
			return []ports.Chunk{{End: w.seconds()}}, nil
		}
		return writeWAVChunks(ctx, open, dir, plan, w)
	}
	stats, ref, lead, err := scanFrames(ctx, br)
	r.Close()
	if err != nil {
		return nil, err
	}
	frameSec := float64(ref.samples) / float64(ref.sampleRate)
	total := float64(len(stats)) * frameSec
	plan, err := planPieces(stats, frameSec, total, limits)
	if err != nil {
		return nil, err
	}
	if len(plan) == 1 {
		return []ports.Chunk{{End: max(total-lead, 0)}}, nil
	}
	return writeChunks(ctx, open, dir, plan, stats, frameSec, lead)
}

// planPieces cuts a recording of units (MP3 frames, WAV windows) of unitSec
// each into pieces within limits, in its quietest stretches. A recording
// whose every unit codes nothing is domain.ErrNoSpeech.
func planPieces(stats []frameStat, unitSec, total float64, limits ports.ChunkLimits) ([]domain.Span, error) {
	var bytes int64
	for _, s := range stats {
		bytes += int64(s.size)
	}
	maxSec := limits.MaxSeconds
	if limits.MaxBytes > 0 && bytes > 0 {
		// Leave room for the multipart envelope and VBR bursts.
		bySize := 0.95 * float64(limits.MaxBytes) / (float64(bytes) / total)
		if maxSec <= 0 || bySize < maxSec {
			maxSec = bySize
		}
	}
	if silent(stats) {
		return nil, domain.Permanent(domain.ErrNoSpeech)
	}
	silences := quietSpans(stats, unitSec)
	var plan []domain.Span
	for range 20 {
		plan = domain.PlanPieces(total, domain.PieceSizing{MaxSeconds: maxSec, Seconds: limits.PieceSeconds, WholeSeconds: limits.WholeSeconds, Slots: limits.Slots}, silences)
		if fits(plan, stats, unitSec, limits.MaxBytes) {
			break
		}
		maxSec *= 0.9
	}
	return plan, nil
}

// silent reports a recording whose every frame codes nothing: digital
// silence, told apart from speech without an engine. Quiet recordings that
// still code something (LAME's own digital silence does) are left to the
// engine, whose empty answer says the same: global_gain alone cannot tell
// a faint hiss from a pure tone.
func silent(stats []frameStat) bool {
	for _, s := range stats {
		if s.level > 0 {
			return false
		}
	}
	return true
}

func levels(stats []frameStat) []uint8 {
	lv := make([]uint8, len(stats))
	for i, s := range stats {
		lv[i] = s.level
	}
	slices.Sort(lv)
	return lv
}

// scanFrames is pass one: every audio frame's size and coded bits.
func scanFrames(ctx context.Context, r io.Reader) ([]frameStat, header, float64, error) {
	s := newScanner(ctx, r)
	defer s.release()
	st, err := s.begin()
	if err != nil {
		return nil, header{}, 0, splitError(err)
	}
	if err := checkLayer(st.ref); err != nil {
		return nil, header{}, 0, err
	}
	var lead float64
	if st.tag != nil && st.tag.hasGap {
		lead = float64(st.tag.delay+decoderDelay) / float64(st.ref.sampleRate)
	}
	var stats []frameStat
	for {
		h, f, err := s.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, header{}, 0, splitError(err)
		}
		stats = append(stats, frameStat{size: uint16(len(f)), level: uint8(loudness(h, f))})
	}
	if len(stats) == 0 {
		return nil, header{}, 0, corruptError("it holds no audio frames")
	}
	return stats, st.ref, lead, nil
}

// loudness is a cheap stand-in for a frame's level, read from its side
// information without decoding: the largest global_gain (the quantiser's
// step: the louder the spectrum, the coarser the step the bits allow) over
// the granules and channels that code anything; 0 when none does
// (part2_3_length is 0: digital silence).
func loudness(h header, f []byte) int {
	side := 4
	if h.crc {
		side += 2
	}
	if len(f) < side+h.sideInfoSize() {
		return 0
	}
	b := f[side:]
	nch := h.channels()
	var pos, granules, stride int
	if h.version == mpeg1 {
		// main_data_begin 9, private 5 (mono) or 3, scfsi 4 per channel.
		pos, granules, stride = 9+5+4, 2, 59
		if nch == 2 {
			pos = 9 + 3 + 8
		}
	} else {
		// main_data_begin 8, private 1 (mono) or 2.
		pos, granules, stride = 8+1, 1, 63
		if nch == 2 {
			pos = 8 + 2
		}
	}
	loudest := 0
	for g := 0; g < granules*nch; g++ {
		at := pos + g*stride
		// part2_3_length (12 bits), big_values (9), global_gain (8)
		if bitsAt(b, at, 12) > 0 {
			loudest = max(loudest, bitsAt(b, at+12+9, 8))
		}
	}
	return loudest
}

// quietSpans are runs of at least 0.2 s of frames in the quietest part of
// the recording: levels at most a fifth of the way from the 5th percentile
// to the median.
func quietSpans(stats []frameStat, frameSec float64) []domain.Span {
	lv := levels(stats)
	lo, mid := float64(lv[len(lv)/20]), float64(lv[len(lv)/2])
	threshold := lo + 0.2*(mid-lo)
	minRun := max(int(0.2/frameSec), 1)
	var out []domain.Span
	for i := 0; i < len(stats); {
		if float64(stats[i].level) > threshold {
			i++
			continue
		}
		j := i
		for j < len(stats) && float64(stats[j].level) <= threshold {
			j++
		}
		if j-i >= minRun {
			out = append(out, domain.Span{Start: float64(i) * frameSec, End: float64(j) * frameSec})
		}
		i = j
	}
	return out
}

// frameAt is the frame where a piece starting at t (in frame time) begins.
func frameAt(t, frameSec float64, n int) int {
	return min(max(int(t/frameSec+0.5), 0), n)
}

func fits(plan []domain.Span, stats []frameStat, frameSec float64, maxBytes int64) bool {
	if maxBytes <= 0 {
		return true
	}
	for _, p := range plan {
		a, b := frameAt(p.Start, frameSec, len(stats)), frameAt(p.End, frameSec, len(stats))
		var n int64
		for _, s := range stats[max(a-1, 0):b] {
			n += int64(s.size)
		}
		if n > maxBytes {
			return false
		}
	}
	return true
}

// writeChunks is pass two: the frames of each piece into its own file.
func writeChunks(ctx context.Context, open func() (io.ReadCloser, error), dir string, plan []domain.Span, stats []frameStat, frameSec, lead float64) (chunks []ports.Chunk, err error) {
	defer removeOnError(&chunks, &err)
	r, err := openChunking(dir, open)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s := newScanner(ctx, r)
	defer s.release()
	if _, err := s.begin(); err != nil {
		return nil, splitError(err)
	}
	var (
		f    *os.File
		w    *bufio.Writer
		prev []byte // the previous frame, the next piece's first
		idx  int
	)
	closeChunk := func() error {
		if f == nil {
			return nil
		}
		err := w.Flush()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		f = nil
		return err
	}
	for k, p := range plan {
		first, end := frameAt(p.Start, frameSec, len(stats)), frameAt(p.End, frameSec, len(stats))
		if k == len(plan)-1 {
			end = len(stats)
		}
		if end <= first {
			continue
		}
		if err := closeChunk(); err != nil {
			return chunks, fmt.Errorf("mp3.Chunk: %w", err)
		}
		path := filepath.Join(dir, fmt.Sprintf("chunk-%04d.mp3", k))
		if f, err = os.Create(path); err != nil {
			return chunks, fmt.Errorf("mp3.Chunk: %w", err)
		}
		w = bufio.NewWriterSize(f, 64<<10)
		startFrame := first
		if prev != nil && first > 0 {
			if _, err := w.Write(prev); err != nil {
				return chunks, fmt.Errorf("mp3.Chunk: %w", err)
			}
			startFrame--
		}
		chunks = append(chunks, ports.Chunk{
			Path:  path,
			Start: float64(startFrame)*frameSec - lead,
			From:  float64(first)*frameSec - lead,
			End:   float64(end)*frameSec - lead,
		})
		for ; idx < end; idx++ {
			_, fr, err := s.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return chunks, splitError(err)
			}
			if _, err := w.Write(fr); err != nil {
				return chunks, fmt.Errorf("mp3.Chunk: %w", err)
			}
			prev = append(prev[:0], fr...)
		}
	}
	if err := closeChunk(); err != nil {
		return chunks, fmt.Errorf("mp3.Chunk: %w", err)
	}
	return chunks, nil
}

// removeOnError is pass two's clean-up: if it failed, the pieces it wrote
// are removed and none is returned.
func removeOnError(chunks *[]ports.Chunk, err *error) {
	if *err == nil {
		return
	}
	for _, c := range *chunks {
		os.Remove(c.Path)
	}
	*chunks = nil
}

// openChunking makes the pieces' directory, here rather than by the caller
// because a recording that fits whole needs none, and opens the recording.
func openChunking(dir string, open func() (io.ReadCloser, error)) (io.ReadCloser, error) {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("mp3.Chunk: %w", err)
	}
	r, err := open()
	if err != nil {
		return nil, fmt.Errorf("mp3.Chunk: open: %w", err)
	}
	return r, nil
}

// bitsAt reads n bits of b big-endian from bit offset pos.
func bitsAt(b []byte, pos, n int) int {
	v := 0
	for i := pos; i < pos+n; i++ {
		v = v<<1 | int(b[i/8]>>(7-i%8)&1)
	}
	return v
}
