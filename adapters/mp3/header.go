package mp3

import (
	"encoding/binary"
	"fmt"
)

// MPEG audio versions as numbered here (the header's two bits map onto them
// through versionOf).
const (
	mpeg1  = 1
	mpeg2  = 2
	mpeg25 = 3 // the unofficial MPEG-2.5 extension: 8, 11.025 and 12 kHz
)

// Channel modes, the header's two mode bits.
const (
	modeStereo = 0
	modeJoint  = 1
	modeDual   = 2
	modeMono   = 3
)

// maxFrameSize bounds every valid frame (MPEG-1 layer II, 384 kbit/s at
// 32 kHz, padded: 1729 bytes), so a frame always fits in the read buffer.
const maxFrameSize = 1729

var (
	versionOf = [4]int{mpeg25, 0, mpeg2, mpeg1} // 0: reserved

	sampleRates = [4][3]int{
		mpeg1:  {44100, 48000, 32000},
		mpeg2:  {22050, 24000, 16000},
		mpeg25: {11025, 12000, 8000},
	}

	// Bitrates in kbit/s by [MPEG-1?][layer][index]; index 0 is "free
	// format" and 15 is forbidden, so both stay 0 and are refused.
	bitrates = [2][4][16]int{
		{ // MPEG-2 and 2.5
			1: {0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256},
			2: {0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
			3: {0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
		},
		{ // MPEG-1
			1: {0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448},
			2: {0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384},
			3: {0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320},
		},
	}
)

// header is one decoded MPEG audio frame header.
type header struct {
	raw        uint32
	version    int // mpeg1, mpeg2 or mpeg25
	layer      int // 1, 2 or 3
	crc        bool
	bitrate    int // bit/s
	sampleRate int
	padding    bool
	mode       int
	size       int // whole frame in bytes, header included
	samples    int // per channel
}

// parseHeader decodes the four bytes at b. It refuses everything a decoder
// would refuse: no sync, reserved version, layer, bitrate or sample rate,
// free format (its frame length cannot be computed from the header) and the
// reserved emphasis.
func parseHeader(b []byte) (header, bool) {
	if len(b) < 4 {
		return header{}, false
	}
	raw := binary.BigEndian.Uint32(b)
	if raw&0xFFE00000 != 0xFFE00000 {
		return header{}, false
	}
	h := header{
		raw:     raw,
		version: versionOf[raw>>19&3],
		layer:   int(4 - raw>>17&3), // 01 is layer III, 11 layer I; 00 reserved gives 4
		crc:     raw>>16&1 == 0,
		padding: raw>>9&1 == 1,
		mode:    int(raw >> 6 & 3),
	}
	brIndex, srIndex := raw>>12&15, raw>>10&3
	if h.version == 0 || h.layer == 4 || srIndex == 3 || raw&3 == 2 {
		return header{}, false
	}
	v1 := 0
	if h.version == mpeg1 {
		v1 = 1
	}
	h.bitrate = bitrates[v1][h.layer][brIndex] * 1000
	if h.bitrate == 0 {
		return header{}, false
	}
	h.sampleRate = sampleRates[h.version][srIndex]
	pad := 0
	if h.padding {
		pad = 1
	}
	switch {
	case h.layer == 1:
		h.size, h.samples = (12*h.bitrate/h.sampleRate+pad)*4, 384
	case h.layer == 2:
		h.size, h.samples = 144*h.bitrate/h.sampleRate+pad, 1152
	case h.version == mpeg1:
		h.size, h.samples = 144*h.bitrate/h.sampleRate+pad, 1152
	default: // layer III below 32 kHz carries one granule, half the samples
		h.size, h.samples = 72*h.bitrate/h.sampleRate+pad, 576
	}
	return h, true
}

// channels is 1 for mono and 2 for stereo, joint stereo and dual channel.
func (h header) channels() int {
	if h.mode == modeMono {
		return 1
	}
	return 2
}

// sameStream reports whether o can follow h in one stream: same version,
// layer and sample rate, and mono stays mono. The bitrate may change (VBR)
// and so may the stereo mode (encoders switch between stereo and joint
// stereo frame by frame).
func (h header) sameStream(o header) bool {
	const mask = 0xFFFE0C00 // sync, version, layer, sample rate
	return h.raw&mask == o.raw&mask && (h.mode == modeMono) == (o.mode == modeMono)
}

// sideInfoSize is the size of a layer III frame's side information.
func (h header) sideInfoSize() int {
	switch {
	case h.version == mpeg1 && h.mode == modeMono:
		return 17
	case h.version == mpeg1:
		return 32
	case h.mode == modeMono:
		return 9
	}
	return 17
}

// describe names the stream's format for error messages: "MPEG-1 layer II".
func (h header) describe() string {
	v := map[int]string{mpeg1: "MPEG-1", mpeg2: "MPEG-2", mpeg25: "MPEG-2.5"}[h.version]
	return fmt.Sprintf("%s layer %s", v, [4]string{"", "I", "II", "III"}[h.layer])
}

// streamName names a stream for the customer: "8 kHz mono MPEG-2.5".
func (h header) streamName() string {
	ch := map[bool]string{true: "mono", false: "stereo"}[h.mode == modeMono]
	khz := fmt.Sprintf("%g kHz", float64(h.sampleRate)/1000)
	v := map[int]string{mpeg1: "MPEG-1", mpeg2: "MPEG-2", mpeg25: "MPEG-2.5"}[h.version]
	return fmt.Sprintf("%s %s %s layer %s", khz, ch, v, [4]string{"", "I", "II", "III"}[h.layer])
}

// infoTag is what the first frame of a stream may say about the whole
// stream: a Xing/Info header (LAME and most encoders) or a VBRI header
// (Fraunhofer), optionally followed by LAME's gapless-playback fields.
type infoTag struct {
	kind    string // "Xing", "Info" or "VBRI"
	frames  int64  // audio frames after this one; 0 if not given
	hasGap  bool   // delay and padding below are known
	delay   int    // encoder delay: samples of silence added at the start
	padding int    // samples added at the end to fill the last frame
}

// parseInfoTag looks for a Xing/Info or VBRI header in frame, a complete
// layer III frame with header h. The frame carries no audio when found.
func parseInfoTag(h header, frame []byte) (infoTag, bool) {
	if h.layer != 3 {
		return infoTag{}, false
	}
	off := 4 + h.sideInfoSize()
	if h.crc {
		off += 2
	}
	if t, ok := parseXing(frame, off); ok {
		return t, true
	}
	// VBRI always sits 32 bytes after the header, whatever the mode.
	if len(frame) >= 36+18 && string(frame[36:40]) == "VBRI" {
		return infoTag{kind: "VBRI", frames: int64(binary.BigEndian.Uint32(frame[50:54]))}, true
	}
	return infoTag{}, false
}

func parseXing(frame []byte, off int) (infoTag, bool) {
	if len(frame) < off+8 {
		return infoTag{}, false
	}
	kind := string(frame[off : off+4])
	if kind != "Xing" && kind != "Info" {
		return infoTag{}, false
	}
	t := infoTag{kind: kind}
	flags := binary.BigEndian.Uint32(frame[off+4:])
	p := off + 8
	if flags&1 != 0 {
		if len(frame) < p+4 {
			return t, true
		}
		t.frames = int64(binary.BigEndian.Uint32(frame[p:]))
		p += 4
	}
	for _, f := range []struct {
		bit uint32
		n   int
	}{{2, 4}, {4, 100}, {8, 4}} { // byte count, seek table, quality
		if flags&f.bit != 0 {
			p += f.n
		}
	}
	// The LAME extension: a 9-byte encoder name, then 12 bytes of fields
	// up to the delay and padding (12 bits each), then its own CRC at +34.
	// FFmpeg writes the same layout under "Lavc"/"Lavf" but not a CRC
	// LAME's way, so a known encoder name is enough, as it is for FFmpeg's
	// decoder; the CRC accepts other LAME-compatible encoders.
	if len(frame) < p+36 {
		return t, true
	}
	lame := frame[p : p+36]
	name := string(lame[:4])
	known := name == "LAME" || name == "Lavc" || name == "Lavf" || name == "L3.9"
	if known || crc16(frame[:p+34]) == binary.BigEndian.Uint16(lame[34:]) {
		t.hasGap = true
		t.delay = int(lame[21])<<4 | int(lame[22])>>4
		t.padding = int(lame[22]&15)<<8 | int(lame[23])
	}
	return t, true
}

// crc16 is the CRC-16 (polynomial 0x8005, reflected, initial 0) that LAME
// stores at the end of its tag.
func crc16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc ^= uint16(c)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0xA001
			} else {
				crc >>= 1
			}
		}
	}
	return crc
}
