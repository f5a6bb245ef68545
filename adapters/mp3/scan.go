package mp3

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/hyscribe/hyscribe/domain"
)

const (
	// bufSize is the read window: every frame, and every run of frames
	// checked at the start, fits in it many times over.
	bufSize = 64 << 10

	// minRun consecutive frames, each where the previous one says the
	// next begins and all of one stream, make a start. A random 0xFFE
	// sync with a plausible header is common in junk (about once per 8 KB
	// of random bytes); four chained ones are not (about 1 in 2^40).
	minRun = 4

	// maxLeadingJunk bounds the search for the first frame after the
	// tags, so a large non-MP3 file is refused after 1 MiB, not read to
	// its end. Real files with more junk than that in front are broken.
	maxLeadingJunk = 1 << 20

	// checkEvery is how many frames or candidate positions pass between
	// two looks at the context.
	checkEvery = 1024
)

// scanner walks the frames of an MPEG audio stream through a bufio.Reader,
// the only buffer: memory stays constant whatever the file's length.
type scanner struct {
	ctx     context.Context
	br      *bufio.Reader
	owned   bool   // br came from readers: release returns it
	ref     header // the first frame; the rest of the stream must match it
	pending int    // bytes of the frame last returned by next, still to skip
	played  int64  // samples per channel in the frames next returned
	calls   int
}

// start is what the beginning of a stream says about it.
type start struct {
	ref    header
	tag    *infoTag // the Xing/Info/VBRI frame, already skipped; nil if none
	hadID3 bool
}

func newScanner(ctx context.Context, r io.Reader) *scanner {
	if br, ok := r.(*bufio.Reader); ok && br.Size() >= bufSize {
		return &scanner{ctx: ctx, br: br} // the caller's window, released by the caller
	}
	return &scanner{ctx: ctx, br: newReader(r), owned: true}
}

// newReader returns a read window of bufSize on r, reused from an earlier
// scan when one was released (putReader).
func newReader(r io.Reader) *bufio.Reader {
	br, _ := readers.Get().(*bufio.Reader)
	if br == nil {
		return bufio.NewReaderSize(r, bufSize)
	}
	br.Reset(r)
	return br
}

// putReader keeps br for the next scan; nothing read through it may be used
// afterwards.
func putReader(br *bufio.Reader) {
	br.Reset(nil)
	readers.Put(br)
}

// readers keeps the scanners' read windows for the next scan: a 64 KB
// buffer a scan was most of what the pipeline's stages allocated (the
// process stage probes every upload, the transcribe stage scans it again).
var readers sync.Pool

// release returns the scanner's read window to the pool if it took it
// from there; nothing read through it may be used afterwards.
func (s *scanner) release() {
	if s.owned && s.br != nil {
		putReader(s.br)
	}
	s.br = nil
}

// peek returns up to n buffered bytes; err is nil, io.EOF when fewer than n
// remain, or the reader's own error.
func (s *scanner) peek(n int) ([]byte, error) {
	b, err := s.br.Peek(n)
	if err == nil || err == io.EOF {
		return b, err
	}
	return b, fmt.Errorf("read: %w", err)
}

// skip discards n bytes and reports how many there were.
func (s *scanner) skip(n int64) (int64, error) {
	var done int64
	for done < n {
		k, err := s.br.Discard(int(min(n-done, 1<<30)))
		done += int64(k)
		if err == io.EOF {
			return done, nil
		}
		if err != nil {
			return done, fmt.Errorf("read: %w", err)
		}
	}
	return done, nil
}

// drop discards n bytes known to be buffered, which cannot fail.
func (s *scanner) drop(n int) {
	_, _ = s.br.Discard(n)
}

// tick looks at the context every checkEvery calls.
func (s *scanner) tick() error {
	s.calls++
	if s.calls%checkEvery == 0 {
		return s.ctx.Err()
	}
	return nil
}

// begin identifies the stream and positions the scanner on its first audio
// frame. Files that are not MP3 get a permanent error saying what they are.
func (s *scanner) begin() (start, error) {
	var st start
	b, err := s.peek(sniffLen)
	if err != nil && err != io.EOF {
		return st, err
	}
	if len(b) == 0 {
		return st, errEmpty
	}
	for {
		if f, ok := sniff(b); ok {
			return st, notMP3Error(f)
		}
		size, ok := id3Size(b)
		if !ok {
			break
		}
		st.hadID3 = true
		n, err := s.skip(size)
		if err != nil {
			return st, err
		}
		if n < size {
			return st, corruptError("its ID3 tag announces %d bytes but the file ends after %d", size, n)
		}
		// Files are sniffed again after the tag: AAC and other formats
		// are often tagged with ID3 too.
		if b, err = s.peek(sniffLen); err != nil && err != io.EOF {
			return st, err
		}
		if len(b) == 0 {
			return st, corruptError("it holds an ID3 tag and no audio")
		}
	}
	return s.findStart(st)
}

// id3Size returns the full size of the ID3v2 tag at b: the 10-byte header,
// the syncsafe size and the footer the v2.4 footer flag announces.
func id3Size(b []byte) (int64, bool) {
	if len(b) < 10 || string(b[:3]) != "ID3" || b[3] == 0xFF || b[4] == 0xFF ||
		(b[6]|b[7]|b[8]|b[9])&0x80 != 0 {
		return 0, false
	}
	size := int64(b[6])<<21 | int64(b[7])<<14 | int64(b[8])<<7 | int64(b[9])
	size += 10
	if b[5]&0x10 != 0 {
		size += 10
	}
	return size, true
}

// run is what a candidate first frame turned out to be.
type run struct {
	ok       bool     // a start: minRun frames, or at least two up to the end
	cut      bool     // a plausible stream cut short by the end of the file
	complete int      // complete frames in the run
	tag      *infoTag // the first frame's Xing/Info/VBRI header
}

// findStart searches for the first run of consecutive frames.
func (s *scanner) findStart(st start) (start, error) {
	var cut run
	for scanned := 0; scanned <= maxLeadingJunk; {
		if err := s.tick(); err != nil {
			return st, err
		}
		b, err := s.peek(bufSize)
		if err != nil && err != io.EOF {
			return st, err
		}
		if len(b) == 0 {
			break
		}
		i := bytes.IndexByte(b, 0xFF)
		if i < 0 {
			s.drop(len(b))
			scanned += len(b)
			continue
		}
		s.drop(i)
		r, h, err := s.checkRun(scanned+i == 0)
		if err != nil {
			return st, err
		}
		if r.ok {
			st.ref, s.ref = h, h
			if r.tag != nil {
				st.tag = r.tag
				s.drop(h.size)
			}
			return st, nil
		}
		if r.cut && r.complete >= cut.complete {
			cut = r
		}
		s.drop(1)
		scanned += i + 1
	}
	switch {
	case cut.cut:
		audio := cut.complete
		if cut.tag != nil {
			audio--
		}
		msg := fmt.Sprintf("the file ends after %s", plural(audio, "complete audio frame"))
		if cut.tag != nil && cut.tag.frames > 0 {
			msg += fmt.Sprintf(" while its %s header announces %d", cut.tag.kind, cut.tag.frames)
		}
		return st, corruptError("%s", msg)
	case st.hadID3:
		return st, corruptError("it has an ID3 tag but no MPEG audio frames")
	}
	return st, errNoMP3
}

// checkRun follows the frames chained from the current position. atStart
// says the candidate is the very first byte after the tags, where a single
// header cut by the end of the file is still worth calling truncated.
func (s *scanner) checkRun(atStart bool) (run, header, error) {
	b, err := s.peek(minRun*maxFrameSize + 4)
	if err != nil && err != io.EOF {
		return run{}, header{}, err
	}
	eof := err == io.EOF
	first, ok := parseHeader(b)
	if !ok {
		return run{}, first, nil
	}
	var r run
	headers, off, h := 1, 0, first
	for {
		end := off + h.size
		if end > len(b) { // only at the end of the file: b holds minRun frames
			r.cut = eof && (headers >= 2 || atStart)
			return r, first, nil
		}
		if r.complete++; r.complete == 1 && first.layer == 3 {
			if t, ok := parseInfoTag(first, b[:first.size]); ok {
				r.tag = &t
			}
		}
		if r.complete >= minRun {
			r.ok = true
			return r, first, nil
		}
		next, ok := parseHeader(b[end:])
		if !ok && eof && len(b)-end < 4 {
			// The file ends here, give or take a stray byte or two.
			r.ok = r.complete >= 2
			return r, first, nil
		}
		if !ok || !first.sameStream(next) {
			return r, first, nil
		}
		headers, off, h = headers+1, end, next
	}
}

// next returns the next complete frame, as a slice of the read buffer that
// stays valid until the following call, or io.EOF at the end of the stream.
// Junk between frames, trailing tags and a final partial frame are skipped.
func (s *scanner) next() (header, []byte, error) {
	if s.pending > 0 {
		s.drop(s.pending)
		s.pending = 0
	}
	if err := s.tick(); err != nil {
		return header{}, nil, err
	}
	for {
		b, err := s.peek(4)
		if len(b) < 4 {
			if err == io.EOF {
				return header{}, nil, io.EOF
			}
			return header{}, nil, err
		}
		if h, ok := parseHeader(b); ok && s.ref.sameStream(h) {
			f, err := s.peek(h.size)
			if len(f) < h.size {
				if err == io.EOF { // a last frame cut short: not audio
					return header{}, nil, io.EOF
				}
				return header{}, nil, err
			}
			s.pending = h.size
			s.played += int64(h.samples)
			return h, f, nil
		}
		if err := s.skipJunk(); err != nil {
			return header{}, nil, err
		}
	}
}

// skipJunk passes over a tag or garbage between frames up to the next place
// where two frames follow each other (or one ends the file).
func (s *scanner) skipJunk() error {
	b, err := s.peek(32)
	if err != nil && err != io.EOF {
		return err
	}
	if size, ok := id3Size(b); ok { // ID3v2.4 allows appended tags
		_, err := s.skip(size)
		return err
	}
	if len(b) >= 32 && string(b[:8]) == "APETAGEX" {
		size := int64(32) // a footer: the items before it were junk already
		if binary.LittleEndian.Uint32(b[20:])&(1<<29) != 0 {
			size += int64(binary.LittleEndian.Uint32(b[12:])) // a header: skip the items too
		}
		_, err := s.skip(size)
		return err
	}
	if err := s.foreignStream(); err != nil { // the next file of a cat
		return err
	}
	s.drop(1)
	for {
		if err := s.tick(); err != nil {
			return err
		}
		b, err := s.peek(bufSize)
		if err != nil && err != io.EOF {
			return err
		}
		if len(b) == 0 {
			return io.EOF
		}
		i := bytes.IndexByte(b, 0xFF)
		if i < 0 {
			s.drop(len(b))
			continue
		}
		s.drop(i)
		if ok, err := s.resyncAt(); ok || err != nil {
			return err
		}
		if err := s.foreignStream(); err != nil {
			return err
		}
		s.drop(1)
	}
}

// foreignStream refuses the file if another stream starts here: minRun
// chained frames of one stream (or at least two up to the end of the file)
// that is not the first one, as when MP3 files of different rates or of
// mono and stereo are joined with cat. Its frames cannot be skipped as junk
// (the file's measured, charged and limited duration would leave them out
// while a speech engine given the file would hear them) nor counted with
// the first stream's (they are another rate, another number of channels),
// so the file is refused before anything is charged.
func (s *scanner) foreignStream() error {
	b, err := s.peek(minRun*maxFrameSize + 4)
	if err != nil && err != io.EOF {
		return err
	}
	first, ok := parseHeader(b)
	if !ok || s.ref.sameStream(first) {
		return nil
	}
	off, frames := 0, 0
	for h := first; ; {
		end := off + h.size
		if end > len(b) {
			return nil
		}
		if frames++; frames >= minRun {
			break
		}
		next, ok := parseHeader(b[end:])
		if !ok && err == io.EOF && len(b)-end < 4 && frames >= 2 {
			break
		}
		if !ok || !first.sameStream(next) {
			return nil
		}
		off, h = end, next
	}
	return streamChangeError(s.ref, first, float64(s.played)/float64(s.ref.sampleRate))
}

// streamChangeError says where and how the stream changes.
func streamChangeError(from, to header, at float64) error {
	return domain.Permanent(fmt.Errorf("the MP3 file changes format after %.1f s, from %s to %s: "+
		"files joined from recordings of different sample rates or channel counts are not supported; "+
		"convert the whole recording to one format and upload it again", at, from.streamName(), to.streamName()))
}

// resyncAt reports whether a frame of the stream starts here, confirmed by
// a second one right after it or by the end of the file.
func (s *scanner) resyncAt() (bool, error) {
	b, err := s.peek(2*maxFrameSize + 4)
	if err != nil && err != io.EOF {
		return false, err
	}
	h, ok := parseHeader(b)
	if !ok || !s.ref.sameStream(h) {
		return false, nil
	}
	if len(b) == h.size && err == io.EOF {
		return true, nil
	}
	next, ok := parseHeader(b[min(h.size, len(b)):])
	return ok && s.ref.sameStream(next), nil
}

// plural writes "1 frame", "2 frames".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
