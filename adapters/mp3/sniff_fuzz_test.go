package mp3

import (
	"bytes"
	"testing"
)

// FuzzSniff feeds the sniffer arbitrary headers: it must not panic, must
// look at no more than sniffLen bytes, and must name a type exactly when it
// says the bytes are not MP3.
func FuzzSniff(f *testing.F) {
	for _, seed := range []string{"", "RIFF\x00\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x55\x00", "\x00\x00\x00\x20ftypM4A ",
		"OggS" + string(make([]byte, 24)) + "\x01vorbis", "fLaC", "ID3\x04", "\xff\xf1", "<!DOCTYPE html>", "\xff\xfb\x90\x64"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		name := Sniff(b)
		if len(b) > sniffLen {
			if again := Sniff(b[:sniffLen]); again != name {
				t.Fatalf("Sniff read past %d bytes: %q on the whole, %q on the header", sniffLen, name, again)
			}
			if again := Sniff(append(bytes.Clone(b[:sniffLen]), bytes.Repeat([]byte{0xAA}, len(b)-sniffLen)...)); again != name {
				t.Fatalf("Sniff depends on bytes after %d", sniffLen)
			}
		}
		f, known := sniff(b)
		if known != (name != "") || f.name != name {
			t.Fatalf("sniff %+v %v, Sniff %q", f, known, name)
		}
	})
}
