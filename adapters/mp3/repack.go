package mp3

import "io"

// frameSource is the stream go-mp3 decodes: the audio frames of the upload
// and nothing else (no tags, junk or Xing frame), rewritten where go-mp3
// v0.3.4 would misread them. (The copy in internal/gomp3 has the frame
// size fixed too; repacking stays, as it also silences the frames of a cut
// stream whose reservoir is missing instead of decoding them from the
// wrong bytes.)
//
// MPEG-1 frames pass unchanged. go-mp3 computes the size of an MPEG-2 frame
// as (144·bitrate/rate + padding) >> 1, one byte short of the standard's
// 72·bitrate/rate + padding whenever the first term is even and the frame is
// padded (22.05 kHz at 8–32, 80 and 96 kbit/s). It then resynchronises on
// the next header, having lost a byte of the bit reservoir, and every later
// frame that reaches back across that byte decodes as noise. In layer III
// the bitrate field only sets the frame's length, so MPEG-2 and MPEG-2.5
// frames are repacked: each frame's main data is gathered from the
// reservoir and written into an unpadded frame without CRC whose bitrate
// field is the smallest that holds it. go-mp3 then computes every size
// right and decodes what it would have decoded from an intact stream.
//
// MPEG-2.5 frames keep their version and rate: the decoder kept in
// internal/gomp3 has the scale-factor bands of all three MPEG-2.5 rates.
type frameSource struct {
	s      *scanner
	frame  []byte // the frame being read
	off    int
	done   bool
	err    error // the scanner's error other than io.EOF; go-mp3 sees io.EOF
	frames int64 // input frames taken
	quiet  int64 // frames replaced by silence: their data was not there

	held int // MPEG-1: main-data bytes go-mp3 holds for the next frame

	res  []byte    // MPEG-2: the input's last reservoir bytes
	pend *lsfFrame // MPEG-2: the repacked frame waiting for its successor
	next *lsfFrame // MPEG-2: spare, to reuse buffers
}

// maxReservoir is how far back MPEG-2 main data may start: its
// main_data_begin field has 8 bits.
const maxReservoir = 255

func newFrameSource(s *scanner) *frameSource {
	return &frameSource{s: s, frame: make([]byte, 0, maxFrameSize), next: &lsfFrame{}}
}

func (f *frameSource) Read(p []byte) (int, error) {
	for f.off == len(f.frame) {
		if f.done {
			return 0, io.EOF
		}
		f.off = 0
		h, fr, err := f.s.next()
		if err != nil {
			if err != io.EOF {
				f.err = err
			}
			f.done = true
			f.frame = f.frame[:0]
			if f.pend != nil { // the last MPEG-2 frame
				f.frame = f.pend.encode(f.frame)
			}
			continue
		}
		f.frames++
		if h.version == mpeg1 {
			f.frame = f.passMPEG1(h, fr)
		} else {
			f.frame = f.repackLSF(h, fr)
		}
	}
	n := copy(p, f.frame[f.off:])
	f.off += n
	return n, nil
}

// passMPEG1 copies an MPEG-1 frame. A frame whose main data starts before
// what go-mp3 holds (the first frame of a cut stream) would be decoded from
// the wrong bytes, so its side information is zeroed: a silent frame keeps
// the timeline.
func (f *frameSource) passMPEG1(h header, fr []byte) []byte {
	out := append(f.frame[:0], fr...)
	side := 4
	if h.crc {
		side += 2
	}
	mdb := int(fr[side])<<1 | int(fr[side+1]>>7)
	if mdb > f.held {
		clear(out[side : side+h.sideInfoSize()])
		f.quiet++
		mdb = 0
	}
	// go-mp3 keeps the previous frame's main data, reservoir part included.
	f.held = mdb + h.size - side - h.sideInfoSize()
	return out
}

// lsfFrame is a repacked MPEG-2 frame: its header fields, its side
// information and its main data, of which the first mdb bytes travel at the
// end of the frame before it.
type lsfFrame struct {
	raw   uint32 // header with bitrate index 0, to be chosen
	rate  int    // sample rate in Hz
	side  []byte
	data  []byte
	mdb   int
	spill []byte // the head of the next frame's data, at the end
}

// area is the main-data room of a frame with bitrate index i, as go-mp3
// computes it (its formula is right for unpadded frames).
func (l *lsfFrame) area(i int) int {
	return (144*bitrates[0][3][i]*1000/l.rate)>>1 - 4 - len(l.side)
}

// encode appends the frame in the smallest size that holds its data.
func (l *lsfFrame) encode(out []byte) []byte {
	need := len(l.data) - l.mdb + len(l.spill)
	index := 14
	for i := 1; i < 14; i++ {
		if l.area(i) >= need {
			index = i
			break
		}
	}
	size := l.area(index) + 4 + len(l.side)
	raw := l.raw | uint32(index)<<12
	out = append(out, byte(raw>>24), byte(raw>>16), byte(raw>>8), byte(raw))
	out = append(out, l.side...)
	out[4] = byte(l.mdb)
	out = append(out, l.data[l.mdb:]...)
	for len(out) < size-len(l.spill) {
		out = append(out, 0)
	}
	return append(out, l.spill...)
}

// repackLSF takes in an MPEG-2 or MPEG-2.5 layer III frame and returns the
// repacked frame before it, if any (see frameSource). The delay of one
// frame lets a frame with more data than the largest frame holds put the
// excess at the end of its predecessor, where main_data_begin finds it.
func (f *frameSource) repackLSF(h header, fr []byte) []byte {
	sideAt := 4
	if h.crc {
		sideAt += 2
	}
	l := f.next
	l.side = append(l.side[:0], fr[sideAt:sideAt+h.sideInfoSize()]...)
	area := fr[sideAt+len(l.side):]
	l.rate = h.sampleRate
	// Sync, version (MPEG-2 or 2.5) and layer III kept, no CRC, no padding;
	// the rate index, private bit, mode, extension, copyright, original and
	// emphasis (low 12 bits but the bitrate's and padding's) kept.
	l.raw = h.raw&0xFFFE0000 | 1<<16 | h.raw&0xDFF
	l.mdb, l.spill = 0, l.spill[:0]

	// Main data length: part2_3_length (12 bits) of each channel's one
	// granule, after main_data_begin (8 bits) and the private bits (1
	// mono, 2 stereo), 63 bits apart.
	mdb := int(l.side[0])
	private := 2
	if h.mode == modeMono {
		private = 1
	}
	nbits := 0
	for ch := range h.channels() {
		nbits += bitsAt(l.side, 8+private+ch*63, 12)
	}
	n := (nbits + 7) / 8

	ok := mdb <= len(f.res) && n <= mdb+len(area)
	if ok {
		l.data = append(l.data[:0], f.res[len(f.res)-mdb:]...)
		l.data = append(l.data, area[:min(len(area), n)]...)[:n]
	}
	f.res = append(f.res, area...)
	if len(f.res) > maxReservoir {
		f.res = append(f.res[:0], f.res[len(f.res)-maxReservoir:]...)
	}
	if extra := n - l.area(14); ok && extra > 0 {
		p := f.pend
		ok = p != nil && extra <= maxReservoir && len(p.data)-p.mdb+extra <= p.area(14)
		if ok {
			p.spill = append(p.spill[:0], l.data[:extra]...)
			l.mdb = extra
		}
	}
	if !ok { // the data is gone (a cut stream) or does not fit: silence
		clear(l.side)
		l.data = l.data[:0]
		f.quiet++
	}

	out := f.frame[:0]
	if f.pend != nil {
		out = f.pend.encode(out)
	}
	f.pend, f.next = l, f.pend
	if f.next == nil {
		f.next = &lsfFrame{}
	}
	return out
}

// bitsAt reads n bits of b big-endian from bit offset pos.
func bitsAt(b []byte, pos, n int) int {
	v := 0
	for i := pos; i < pos+n; i++ {
		v = v<<1 | int(b[i/8]>>(7-i%8)&1)
	}
	return v
}
