package mp3

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
)

// sniffLen is how many leading bytes Sniff looks at.
const sniffLen = 64

// format is a recognised file type that is not MP3.
type format struct {
	name   string // what Sniff returns: "WAV"
	desc   string // for the error message: "WAV audio"
	detail string // optional, e.g. the MP4 brand
}

// Sniff names the file type announced by the first bytes of a file when it
// is a known type other than MP3 ("WAV", "M4A/MP4", "Ogg Vorbis", "FLAC",
// "AAC", "AIFF", …). It returns "" when the bytes could be MP3 or are not
// recognised; only a frame scan can tell those apart. 64 bytes are enough.
func Sniff(header []byte) string {
	f, _ := sniff(header)
	return f.name
}

func sniff(b []byte) (format, bool) {
	at := func(off int, sig string) bool {
		return len(b) >= off+len(sig) && string(b[off:off+len(sig)]) == sig
	}
	switch {
	case (at(0, "RIFF") || at(0, "RF64") || at(0, "BW64")) && at(8, "WAVE"):
		// MP3 inside a WAV container (format tag 0x55) is still a WAV file
		// to us, but saying so saves the customer a puzzled look.
		if at(12, "fmt ") && len(b) >= 22 && binary.LittleEndian.Uint16(b[20:]) == 0x55 {
			return format{"WAV", "WAV audio", "MP3 inside a WAV container"}, true
		}
		return format{"WAV", "WAV audio", ""}, true
	case at(0, "RIFF") && at(8, "AVI "):
		return format{"AVI", "AVI video", ""}, true
	case at(4, "ftyp"):
		brand := ""
		if len(b) >= 12 {
			brand = fmt.Sprintf("ftyp brand %q", b[8:12])
		}
		return format{"M4A/MP4", "M4A/MP4 audio", brand}, true
	case at(0, "OggS"):
		switch {
		case at(28, "\x01vorbis"):
			return format{"Ogg Vorbis", "Ogg Vorbis audio", ""}, true
		case at(28, "OpusHead"):
			return format{"Ogg Opus", "Ogg Opus audio", ""}, true
		case at(28, "\x7fFLAC"):
			return format{"Ogg FLAC", "Ogg FLAC audio", ""}, true
		case at(28, "Speex   "):
			return format{"Ogg Speex", "Ogg Speex audio", ""}, true
		}
		return format{"Ogg", "Ogg media", ""}, true
	case at(0, "fLaC"):
		return format{"FLAC", "FLAC audio", ""}, true
	case at(0, "FORM") && (at(8, "AIFF") || at(8, "AIFC")):
		return format{"AIFF", "AIFF audio", ""}, true
	case at(0, "\x1a\x45\xdf\xa3"):
		if bytes.Contains(b, []byte("webm")) {
			return format{"WebM", "WebM media", ""}, true
		}
		return format{"Matroska", "Matroska media", ""}, true
	case at(0, "#!AMR"):
		return format{"AMR", "AMR audio", ""}, true
	case at(0, "\x30\x26\xb2\x75\x8e\x66\xcf\x11"):
		return format{"WMA", "WMA/ASF media", ""}, true
	case at(0, "caff"):
		return format{"CAF", "Core Audio (CAF) audio", ""}, true
	case at(0, ".snd"):
		return format{"AU", "Sun/NeXT AU audio", ""}, true
	case at(0, "MThd"):
		return format{"MIDI", "a MIDI file", ""}, true
	case at(0, "MAC "):
		return format{"APE", "Monkey's Audio", ""}, true
	case at(0, "wvpk"):
		return format{"WavPack", "WavPack audio", ""}, true
	case at(0, "%PDF-"):
		return format{"PDF", "a PDF document", ""}, true
	case at(0, "PK\x03\x04"):
		return format{"ZIP", "a ZIP archive", ""}, true
	case at(0, "\x89PNG"), at(0, "\xff\xd8\xff"), at(0, "GIF8"):
		return format{"image", "an image", ""}, true
	case isADTS(b):
		return format{"AAC", "AAC audio", "ADTS"}, true
	case isHTML(b):
		return format{"HTML", "an HTML page", ""}, true
	}
	return format{}, false
}

// isADTS matches an AAC ADTS header: a 12-bit sync like MPEG audio's but
// with the layer bits 00, which MPEG audio reserves, and a valid sampling
// index and frame length.
func isADTS(b []byte) bool {
	if len(b) < 7 || b[0] != 0xFF || b[1]&0xF6 != 0xF0 {
		return false
	}
	length := int(b[3]&3)<<11 | int(b[4])<<3 | int(b[5])>>5
	return b[2]>>2&15 < 13 && length >= 7
}

// isHTML catches the error page a broken download link hands over instead
// of the recording.
func isHTML(b []byte) bool {
	b = bytes.TrimLeft(b, "\xef\xbb\xbf \t\r\n")
	b = bytes.ToLower(b[:min(len(b), 15)])
	return bytes.HasPrefix(b, []byte("<!doctype html")) || bytes.HasPrefix(b, []byte("<html"))
}

// notMP3Error is the permanent error for a recognised non-MP3 file.
func notMP3Error(f format) error { return domain.NotMP3(f.desc, f.detail) }

// The permanent errors of files that are not, or no longer, MP3
// (domain/failures.go has their wording).
var (
	errEmpty     = domain.ErrEmptyFile
	errNoMP3     = domain.ErrNoMP3Frames
	corruptError = domain.CorruptMP3
)
